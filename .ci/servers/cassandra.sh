#!/usr/bin/env bash
# Starts or stops Apache Cassandra 5.0.6, one node, for benchtop's cassandra
# adapter tests: 127.0.0.1 only, a small heap, PasswordAuthenticator on
# (a role benchtop with a password of its own, made by .ci/servers/cqlrole
# through the default superuser, so that a wrong password is refused as on a
# real cluster), its data in the state folder.
#
#   bash .ci/servers/cassandra.sh start   # fetch the jars once, start, print export lines
#   bash .ci/servers/cassandra.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/cassandra.sh start)"
# sets BENCHTOP_CASSANDRA_HOSTS, BENCHTOP_CASSANDRA_PORT,
# BENCHTOP_CASSANDRA_USERNAME, BENCHTOP_CASSANDRA_PASSWORD and
# BENCHTOP_CASSANDRA_PID_FILE (the JVM's, for scripts that read the server's
# CPU); everything else goes to stderr.
#
# Environment:
#   BENCHTOP_CASSANDRA_PORT     native (CQL) port (default 9042); the state folder
#                               ${TMPDIR:-/tmp}/benchtop-cassandra-PORT is keyed by it
#   BENCHTOP_CASSANDRA_STORAGE  internode (storage) port, bound on 127.0.0.1 although
#                               nothing else joins (default: the native port + 28)
#   BENCHTOP_CASSANDRA_HEAP     -Xmx and -Xms (default 512m: ~1 GB RSS under load)
#   BENCHTOP_CASSANDRA_PASSWORD the benchtop role's password (default: a random one,
#                               kept in the state folder)
#   BENCHTOP_CACHE              where the jars and the Maven repository are kept
#                               (default $HOME/.cache/benchtop)
#
# The jars come from Maven Central once, through a throwaway pom and
# `mvn dependency:copy-dependencies` (org.apache.cassandra:cassandra-all:5.0.6:
# 100 jars, 66 MB, ~100 s), into $BENCHTOP_CACHE/cassandra-5.0.6. The JVM runs
# with the flags of Cassandra's conf/jvm17-server.options, the jamm agent,
# and ring delay and gossip settling off (one node): "Startup complete" in
# ~10-20 s here. JMX is not enabled (no port but the two above).
set -euo pipefail
SRV_NAME=cassandra
SRV_GRACE=30 # the node drains and flushes before it exits
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=5.0.6
PORT=${BENCHTOP_CASSANDRA_PORT:-9042}
srv_port BENCHTOP_CASSANDRA_PORT "$PORT"
((PORT <= 65507)) || die "BENCHTOP_CASSANDRA_PORT must be at most 65507 (the storage port defaults to it + 28), not $PORT"
STORAGE=${BENCHTOP_CASSANDRA_STORAGE:-$((PORT + 28))}
srv_port BENCHTOP_CASSANDRA_STORAGE "$STORAGE"
[[ $STORAGE != "$PORT" ]] || die "BENCHTOP_CASSANDRA_STORAGE must differ from the native port $PORT"
HEAP=${BENCHTOP_CASSANDRA_HEAP:-512m}
CACHE=${BENCHTOP_CACHE:-$HOME/.cache/benchtop}
HOME_DIR=$CACHE/cassandra-$VERSION
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/cassandra.pid
PASS_FILE=$RUN_DIR/password
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LOG_FILE=$RUN_DIR/cassandra.log
CONF=$RUN_DIR/cassandra.yaml
MARKS=(org.apache.cassandra.service.CassandraDaemon "-Dcassandra.config=file://$CONF")

# fetch puts the jars into $HOME_DIR/lib once; a half-done copy is never
# taken for a complete one (the folder is moved into place at the end).
fetch() {
	[[ -f $HOME_DIR/.complete ]] && return 0
	command -v mvn >/dev/null || die "mvn is needed to fetch Cassandra's jars from Maven Central (apt-get install maven)"
	log "fetching Cassandra $VERSION jars from Maven Central into $HOME_DIR (once, ~66 MB)"
	local tmp=$HOME_DIR.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>benchtop</groupId><artifactId>cassandra-jars</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.cassandra</groupId><artifactId>cassandra-all</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
EOF
	(cd "$tmp" && mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$CACHE/m2" dependency:copy-dependencies \
		-DoutputDirectory=lib -DincludeScope=runtime) >&2 ||
		{ rm -rf "$tmp"; die "mvn dependency:copy-dependencies failed"; }
	[[ -f $tmp/lib/cassandra-all-$VERSION.jar ]] || { rm -rf "$tmp"; die "cassandra-all-$VERSION.jar is missing after the copy"; }
	compgen -G "$tmp/lib/jamm-*.jar" >/dev/null || { rm -rf "$tmp"; die "the jamm agent's jar is missing after the copy"; }
	touch "$tmp/.complete"
	rm -rf "$HOME_DIR"
	mv "$tmp" "$HOME_DIR"
	log "$(find "$HOME_DIR/lib" -name '*.jar' | wc -l) jars in $HOME_DIR/lib"
}

write_conf() {
	mkdir -p "$RUN_DIR/data"
	# One node on loopback; everything not set here is Cassandra's default.
	cat >"$CONF" <<EOF
cluster_name: benchtop
num_tokens: 16
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
endpoint_snitch: SimpleSnitch
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "$SRV_HOST:$STORAGE"
listen_address: $SRV_HOST
rpc_address: $SRV_HOST
storage_port: $STORAGE
native_transport_port: $PORT
start_native_transport: true
authenticator: PasswordAuthenticator
authorizer: AllowAllAuthorizer
role_manager: CassandraRoleManager
data_file_directories:
  - $RUN_DIR/data/data
commitlog_directory: $RUN_DIR/data/commitlog
saved_caches_directory: $RUN_DIR/data/saved_caches
hints_directory: $RUN_DIR/data/hints
cdc_raw_directory: $RUN_DIR/data/cdc_raw
commitlog_sync: periodic
commitlog_sync_period: 10000ms
concurrent_compactors: 1
auto_snapshot: false
EOF
	cat >"$RUN_DIR/logback.xml" <<EOF
<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="out"/></root>
</configuration>
EOF
}

# java_cmd prints the JVM's command line, one argument a line: the flags of
# Cassandra's conf/jvm17-server.options (G1, JPMS opens and exports, Netty),
# the jamm agent Cassandra measures memtables with, and one node's startup
# shortcuts.
java_cmd() {
	local jamm
	jamm=$(compgen -G "$HOME_DIR/lib/jamm-*.jar" | head -n 1)
	printf '%s\n' java "-Xms$HEAP" "-Xmx$HEAP" -Xss256k -XX:+UseG1GC -XX:+ParallelRefProcEnabled \
		-XX:MaxTenuringThreshold=1 -XX:G1HeapRegionSize=16m -XX:G1RSetUpdatingPauseTimePercent=5 \
		-XX:MaxGCPauseMillis=300 -XX:InitiatingHeapOccupancyPercent=70 -XX:+ExitOnOutOfMemoryError -Djdk.attach.allowAttachSelf=true \
		--add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
		--add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED \
		--add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED --add-exports java.rmi/sun.rmi.server=ALL-UNNAMED \
		--add-exports java.sql/java.sql=ALL-UNNAMED --add-exports java.base/java.lang.ref=ALL-UNNAMED \
		--add-exports jdk.unsupported/sun.misc=ALL-UNNAMED \
		--add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED \
		--add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED \
		--add-opens java.base/java.lang.module=ALL-UNNAMED --add-opens java.base/jdk.internal.loader=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/jdk.internal.reflect=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.math=ALL-UNNAMED --add-opens java.base/jdk.internal.module=ALL-UNNAMED \
		--add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED \
		--add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED \
		--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.io=ALL-UNNAMED \
		--add-opens java.base/java.lang.reflect=ALL-UNNAMED --add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED \
		--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.util=ALL-UNNAMED \
		-Dio.netty.tryReflectionSetAccessible=true -Dio.netty.allocator.useCacheForAllThreads=true \
		-Dio.netty.allocator.maxOrder=11 -Djava.net.preferIPv4Stack=true \
		"-javaagent:$jamm" "-Dcassandra.config=file://$CONF" "-Dlogback.configurationFile=$RUN_DIR/logback.xml" \
		"-Dcassandra.logdir=$RUN_DIR" "-Dcassandra.storagedir=$RUN_DIR/data" \
		-Dcassandra-foreground=yes -Dcassandra.ring_delay_ms=0 -Dcassandra.skip_wait_for_gossip_to_settle=0 \
		-Dcassandra.superuser_setup_delay_ms=0 -cp "$HOME_DIR/lib/*" org.apache.cassandra.service.CassandraDaemon
}

print_env() {
	echo "# Apache Cassandra $VERSION (one node, heap $HEAP) on $SRV_HOST:$PORT (CQL), storage port $STORAGE, state $RUN_DIR, log $LOG_FILE"
	echo "export BENCHTOP_CASSANDRA_HOSTS=$SRV_HOST"
	echo "export BENCHTOP_CASSANDRA_PORT=$PORT"
	echo "export BENCHTOP_CASSANDRA_USERNAME=benchtop"
	echo "export BENCHTOP_CASSANDRA_PASSWORD='$(cat "$PASS_FILE")'"
	echo "export BENCHTOP_CASSANDRA_PID_FILE=$PID_FILE"
}

# ready: the native port answers and the node said so; the default
# superuser is made right after (superuser_setup_delay_ms=0).
ready() {
	port_open "$PORT" && grep -q 'Startup complete' "$LOG_FILE" 2>/dev/null &&
		grep -q "superuser role 'cassandra'" "$LOG_FILE" 2>/dev/null
}

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	command -v java >/dev/null || die "java (17) is needed to run Cassandra"
	port_open "$PORT" && die "127.0.0.1:$PORT is already in use by another process; set BENCHTOP_CASSANDRA_PORT"
	port_open "$STORAGE" && die "127.0.0.1:$STORAGE (the storage port) is already in use; set BENCHTOP_CASSANDRA_STORAGE"
	fetch
	rm -rf "$RUN_DIR/data"
	write_conf
	local -a cmd
	mapfile -t cmd < <(java_cmd)
	srv_launch "$PID_FILE" "$LOG_FILE" "${cmd[@]}"
	srv_wait_up "$SRV_PID" "$LOG_FILE" 180 "Cassandra $VERSION on $SRV_HOST:$PORT" ready
	local pw=${BENCHTOP_CASSANDRA_PASSWORD:-ci-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')}
	echo "$pw" >"$PASS_FILE"
	chmod 600 "$PASS_FILE"
	if ! (cd "$ROOT" && go run ./.ci/servers/cqlrole -addr "$SRV_HOST:$PORT" -role benchtop <"$PASS_FILE") >&2; then
		tail -n 20 "$LOG_FILE" >&2
		die "could not create the benchtop role on $SRV_HOST:$PORT"
	fi
	print_env
}

stop() {
	srv_stop "$PID_FILE" "Cassandra on port $PORT" TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
