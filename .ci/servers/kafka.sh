#!/usr/bin/env bash
# Starts or stops Apache Kafka 4.1.1 in KRaft mode (one JVM that is both
# broker and controller, no ZooKeeper) for benchtop's kafka adapter tests:
# the stream workload on topic partitions.
#
#   bash .ci/servers/kafka.sh start   # fetch the jars once, format, start, print export lines
#   bash .ci/servers/kafka.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/kafka.sh start)"
# sets BENCHTOP_KAFKA_BROKERS; everything else goes to stderr.
#
# Environment:
#   BENCHTOP_KAFKA_PORT       broker port (default 9092); the state folder
#                             ${TMPDIR:-/tmp}/benchtop-kafka-PORT is keyed by it
#   BENCHTOP_KAFKA_CONTROLLER controller port (default: the broker port + 1)
#   BENCHTOP_KAFKA_HOST       the broker's address: 127.0.0.1 (default), or the
#                             address of a lab bridge made by scripts/netlab.sh
#                             (the interface ${NETLAB_PREFIX:-benchtop-}br0), so
#                             that clients in the lab's network namespaces reach
#                             it; never 0.0.0.0
#   BENCHTOP_KAFKA_HEAP       JVM heap (default 512m)
#   BENCHTOP_CACHE            where the jars and the Maven repository are kept
#                             (default $HOME/.cache/benchtop)
#
# The jars come from Maven Central once, through a throwaway pom and
# `mvn dependency:copy-dependencies` (kafka_2.13, kafka-tools and
# log4j-slf4j-impl: ~90 jars, ~55 MB, ~50 s), into $BENCHTOP_CACHE/kafka-4.1.1.
# Start takes ~5 s warm, ~30 s on the first run of the JVM. The log folder is
# formatted with a fresh cluster id at every start and removed by stop.
set -euo pipefail
SRV_NAME=kafka
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=4.1.1
LOG4J_VERSION=2.24.3
PORT=${BENCHTOP_KAFKA_PORT:-9092}
srv_port BENCHTOP_KAFKA_PORT "$PORT"
CPORT=${BENCHTOP_KAFKA_CONTROLLER:-$((PORT + 1))}
srv_port BENCHTOP_KAFKA_CONTROLLER "$CPORT"
[[ $CPORT != "$PORT" ]] || die "BENCHTOP_KAFKA_CONTROLLER must differ from the broker port $PORT"
HOST=${BENCHTOP_KAFKA_HOST:-$SRV_HOST}
HEAP=${BENCHTOP_KAFKA_HEAP:-512m}
CACHE=${BENCHTOP_CACHE:-$HOME/.cache/benchtop}
HOME_DIR=$CACHE/kafka-$VERSION
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/kafka.pid
LOG_FILE=$RUN_DIR/kafka.log
CONF=$RUN_DIR/server.properties
MARKS=(kafka.Kafka "$CONF")

# check_host refuses any broker address but loopback and a benchtop lab
# bridge's: the lab's addresses exist only inside this host.
check_host() {
	[[ $HOST == 127.0.0.1 ]] && return 0
	[[ $HOST =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "BENCHTOP_KAFKA_HOST must be 127.0.0.1 or a lab bridge's IPv4 address, not '$HOST'"
	local bridge=${NETLAB_PREFIX:-benchtop-}br0
	ip -o -4 addr show 2>/dev/null | awk -v a="$HOST" -v br="$bridge" '$2 == br { split($4, p, "/"); if (p[1] == a) found = 1 } END { exit !found }' ||
		die "BENCHTOP_KAFKA_HOST=$HOST is not the address of the lab's bridge $bridge (scripts/netlab.sh up makes one; NETLAB_PREFIX names it); only 127.0.0.1 or the lab's bridge are allowed"
}

port_up() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

# fetch puts the jars into $HOME_DIR/lib once; a half-done copy is never
# taken for a complete one (the folder is moved into place at the end).
fetch() {
	[[ -f $HOME_DIR/.complete ]] && return 0
	command -v mvn >/dev/null || die "mvn is needed to fetch Kafka's jars from Maven Central (apt-get install maven)"
	log "fetching Kafka $VERSION jars from Maven Central into $HOME_DIR (once, ~55 MB)"
	local tmp=$HOME_DIR.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>benchtop</groupId><artifactId>kafka-jars</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
	(cd "$tmp" && mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$CACHE/m2" dependency:copy-dependencies \
		-DoutputDirectory=lib -DincludeScope=runtime) >&2 ||
		{ rm -rf "$tmp"; die "mvn dependency:copy-dependencies failed"; }
	[[ -f $tmp/lib/kafka_2.13-$VERSION.jar ]] || { rm -rf "$tmp"; die "kafka_2.13-$VERSION.jar is missing after the copy"; }
	touch "$tmp/.complete"
	rm -rf "$HOME_DIR"
	mv "$tmp" "$HOME_DIR"
	log "$(find "$HOME_DIR/lib" -name '*.jar' | wc -l) jars in $HOME_DIR/lib"
}

write_conf() {
	mkdir -p "$RUN_DIR/data"
	cat >"$CONF" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$CPORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://127.0.0.1:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$RUN_DIR/data
num.partitions=1
auto.create.topics.enable=false
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=1
EOF
	cat >"$RUN_DIR/log4j2.properties" <<EOF
status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = out
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.server.name = kafka.server.KafkaRaftServer
logger.server.level = INFO
EOF
}

# JAVA runs a Kafka main class with the cached jars (the class path quoted:
# an expanded glob breaks the command).
JAVA=(java "-Xmx$HEAP" "-Xms$HEAP" -XX:+UseG1GC -Djava.awt.headless=true -Djava.net.preferIPv4Stack=true
	"-Dlog4j2.configurationFile=$RUN_DIR/log4j2.properties" "-Dkafka.logs.dir=$RUN_DIR" -cp "$HOME_DIR/lib/*")

# cluster_id makes a KRaft cluster id: 16 random bytes, base64url, no padding.
# cluster_id is a random base64url id; never one that starts with '-',
# which the format tool's argument parser takes for an option (1 start in
# 64 failed so: "argument --cluster-id/-t: expected one argument").
cluster_id() {
	local id
	id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
	echo "${id/#-/A}"
}

print_env() {
	echo "# Apache Kafka $VERSION (KRaft, broker and controller in one JVM) on $HOST:$PORT, controller 127.0.0.1:$CPORT, state $RUN_DIR, log $LOG_FILE"
	echo "export BENCHTOP_KAFKA_BROKERS=$HOST:$PORT"
}

start() {
	local pid
	check_host
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	command -v java >/dev/null || die "java (17 or later) is needed to run Kafka"
	port_up && die "$HOST:$PORT is already in use by another process; set BENCHTOP_KAFKA_PORT"
	port_open "$CPORT" && die "127.0.0.1:$CPORT (the controller port) is already in use; set BENCHTOP_KAFKA_CONTROLLER"
	fetch
	rm -rf "$RUN_DIR/data"
	write_conf
	"${JAVA[@]}" kafka.tools.StorageTool format -t "$(cluster_id)" -c "$CONF" >>"$LOG_FILE" 2>&1 ||
		{ tail -n 20 "$LOG_FILE" >&2; die "formatting the KRaft log folder failed (log above)"; }
	srv_launch "$PID_FILE" "$LOG_FILE" "${JAVA[@]}" kafka.Kafka "$CONF"
	# The port opens before the broker has registered with its controller:
	# wait for the server's own "started" line too.
	srv_wait_up "$SRV_PID" "$LOG_FILE" 90 "Kafka $VERSION on $HOST:$PORT" started
	print_env
}

started() { port_up && grep -q 'Kafka Server started\|KafkaRaftServer.*started' "$LOG_FILE" 2>/dev/null; }

stop() {
	srv_stop "$PID_FILE" "Kafka on port $PORT" TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
