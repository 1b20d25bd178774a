#!/usr/bin/env bash
# Starts or stops Apache HBase 2.6.1 for benchtop's hbase adapter tests:
# a standalone master (with its region server and ZooKeeper in the same
# JVM) on the local filesystem, and the Thrift2 gateway the adapter talks
# to. Both listen on 127.0.0.1 only.
#
#   bash .ci/servers/hbase.sh start   # fetch jars if needed, start, create the table, print export lines
#   bash .ci/servers/hbase.sh stop    # stop both JVMs and remove the data folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/hbase.sh start)"
# sets BENCHTOP_HBASE_THRIFT; everything else goes to stderr.
#
# Environment:
#   BENCHTOP_HBASE_PORT   Thrift2 gateway port (default 9090); ZooKeeper,
#                         master and region server take PORT+10 to PORT+12
#   BENCHTOP_HBASE_TABLE  table created at start (default usertable), with
#                         column family "family" split into 8 regions
#   BENCHTOP_HBASE_HEAP   -Xmx of the master JVM (default 768m)
#   BENCHTOP_CACHE        where jars and the Maven repository are kept
#                         (default ~/.cache/benchtop)
#
# The jars come from Maven Central through a throwaway pom (hbase-server and
# hbase-thrift with their runtime dependencies, ~110 MB, once); the
# servlet-api 2.5 / jetty 6 jars are left out because they break the
# gateway (NoSuchMethodError ServletContext.createFilter). The table is
# created through the gateway by a small Go program (the hbase shell needs a
# JRuby jar that is not fetched): .ci/servers/hbasetable.
set -euo pipefail
SRV_NAME=hbase
SRV_GRACE=30 # the JVMs flush and leave ZooKeeper before they exit
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=2.6.1
PORT=${BENCHTOP_HBASE_PORT:-9090}
HOST=$SRV_HOST
TABLE=${BENCHTOP_HBASE_TABLE:-usertable}
HEAP=${BENCHTOP_HBASE_HEAP:-768m}
CACHE=${BENCHTOP_CACHE:-$HOME/.cache/benchtop}
HOME_DIR=$CACHE/hbase-$VERSION
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

srv_port BENCHTOP_HBASE_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
((PORT >= 1024 && PORT <= 65520)) || die "BENCHTOP_HBASE_PORT must be from 1024 to 65520 (it and PORT+10 to PORT+12 are used), not $PORT"
# PORT+10 to +12, not the next ports: Kafka's broker and controller take
# 9092 and 9093 beside the gateway's 9090.
ZK_PORT=$((PORT + 10))
MASTER_PORT=$((PORT + 11))
RS_PORT=$((PORT + 12))

# fetch puts the jars into $HOME_DIR/lib once; a half-done copy is never
# taken for a complete one (the folder is moved into place at the end).
fetch() {
	[[ -f $HOME_DIR/.complete ]] && return 0
	command -v mvn >/dev/null || die "mvn is needed to fetch HBase's jars from Maven Central (apt-get install maven)"
	command -v java >/dev/null || die "java (17) is needed to run HBase"
	log "fetching HBase $VERSION jars from Maven Central into $HOME_DIR (once, ~110 MB)"
	local tmp=$HOME_DIR.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	cat >"$tmp/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>benchtop</groupId><artifactId>hbase-jars</artifactId><version>1</version>
  <dependencies>
    <dependency><groupId>org.apache.hbase</groupId><artifactId>hbase-server</artifactId><version>$VERSION</version></dependency>
    <dependency><groupId>org.apache.hbase</groupId><artifactId>hbase-thrift</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
EOF
	(cd "$tmp" && mvn -q -B -Dstyle.color=never -Dmaven.repo.local="$CACHE/m2" dependency:copy-dependencies \
		-DoutputDirectory=lib -DincludeScope=runtime \
		-DexcludeArtifactIds=servlet-api,jetty,jetty-util,jetty-sslengine) >&2 ||
		{ rm -rf "$tmp"; die "mvn dependency:copy-dependencies failed"; }
	[[ -f $tmp/lib/hbase-thrift-$VERSION.jar ]] || { rm -rf "$tmp"; die "hbase-thrift-$VERSION.jar is missing after the copy"; }
	touch "$tmp/.complete"
	rm -rf "$HOME_DIR"
	mv "$tmp" "$HOME_DIR"
	log "$(ls "$HOME_DIR/lib" | wc -l) jars in $HOME_DIR/lib"
}

write_conf() {
	mkdir -p "$RUN_DIR/conf" "$RUN_DIR/logs"
	cat >"$RUN_DIR/conf/hbase-site.xml" <<EOF
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$RUN_DIR/hbase</value></property>
  <property><name>hbase.tmp.dir</name><value>$RUN_DIR/tmp</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$RUN_DIR/zk</value></property>
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>$HOST</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$ZK_PORT</value></property>
  <property><name>hbase.zookeeper.property.clientPortAddress</name><value>$HOST</value></property>
  <property><name>hbase.master.port</name><value>$MASTER_PORT</value></property>
  <property><name>hbase.regionserver.port</name><value>$RS_PORT</value></property>
  <property><name>hbase.master.hostname</name><value>$HOST</value></property>
  <property><name>hbase.regionserver.hostname</name><value>$HOST</value></property>
  <property><name>hbase.master.ipc.address</name><value>$HOST</value></property>
  <property><name>hbase.regionserver.ipc.address</name><value>$HOST</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.thrift.info.port</name><value>-1</value></property>
  <property><name>hbase.thrift.info.bindAddress</name><value>$HOST</value></property>
  <!-- The gateway (TBoundedThreadPoolServer) serves each connection on a
       thread of its own for as long as the connection stays open. Stock
       settings give it 16 core threads and a queue of 1000: connection 17
       and later wait in that queue, unserved, until an earlier connection
       closes. benchtop keeps one connection per worker, so: a thread for
       every connection at once (core = max), no queue (a connection past
       the maximum is closed at once, and counted as unavailable), and room
       for the 4096 threads benchtop allows. -->
  <property><name>hbase.thrift.minWorkerThreads</name><value>4200</value></property>
  <property><name>hbase.thrift.maxWorkerThreads</name><value>4200</value></property>
  <property><name>hbase.thrift.maxQueuedRequests</name><value>0</value></property>
  <!-- The listening socket's accept queue. Unset, Java's default of 50
       holds too few of a run's first dials when 1024 workers connect at
       once (and a second process does the same, as CI's lanes do): the
       kernel drops the rest (TcpExtListenOverflows: 157 in two such runs
       here), retries come seconds later, and on CI's crowded host 12 of
       them ended in "connection reset by peer" at 15.6 s. The kernel caps
       this at net.core.somaxconn (4096). -->
  <property><name>hbase.regionserver.thrift.backlog</name><value>4096</value></property>
  <!-- The published client tuning, for the gateway's own HBase client (the
       gateway is the HBase client here; see docs/adapters/hbase.md). -->
  <property><name>hbase.client.ipc.pool.size</name><value>16</value></property>
  <property><name>hbase.client.max.total.tasks</name><value>16</value></property>
  <property><name>hbase.client.max.perserver.tasks</name><value>16</value></property>
</configuration>
EOF
	cat >"$RUN_DIR/conf/log4j.properties" <<'EOF'
log4j.rootLogger=INFO,console
log4j.appender.console=org.apache.log4j.ConsoleAppender
log4j.appender.console.target=System.err
log4j.appender.console.layout=org.apache.log4j.PatternLayout
log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n
log4j.logger.org.apache.zookeeper=WARN
log4j.logger.org.apache.hadoop.hbase.zookeeper=WARN
log4j.logger.org.apache.hadoop=WARN
log4j.logger.org.apache.hadoop.hbase=INFO
EOF
}

# java_flags are the JVM flags HBase needs on Java 17.
java_flags() {
	local p
	for p in java.lang java.lang.reflect java.nio sun.nio.ch jdk.internal.ref java.util.concurrent.atomic java.io java.util; do
		printf -- '--add-opens java.base/%s=ALL-UNNAMED ' "$p"
	done
	printf -- '--add-exports java.base/jdk.internal.misc=ALL-UNNAMED '
	printf -- '-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true -Djava.net.preferIPv4Stack=true '
	printf -- '-Dlog4j.configuration=file:%s/conf/log4j.properties -XX:+UseG1GC ' "$RUN_DIR"
}

# pid_of NAME prints the pid of our live JVM NAME (master or thrift): its
# command line carries -Dbenchtop.hbase=PORT.
pid_of() { srv_pid "$RUN_DIR/$1.pid" "-Dbenchtop.hbase=$PORT"; }

print_env() {
	echo "# HBase $VERSION standalone (ZooKeeper $HOST:$ZK_PORT, master $MASTER_PORT, region server $RS_PORT), Thrift2 gateway $HOST:$PORT (buffered transport, binary protocol)"
	echo "# table $TABLE, column family family; logs in $RUN_DIR/logs"
	echo "export BENCHTOP_HBASE_THRIFT=$HOST:$PORT"
}

launch() { # NAME MAINCLASS XMX ARGS...
	local name=$1 class=$2 xmx=$3
	shift 3
	# shellcheck disable=SC2046 # java_flags are words
	(cd "$RUN_DIR" && exec setsid java -Xmx"$xmx" -Xms"$xmx" -Dbenchtop.hbase="$PORT" $(java_flags) \
		-cp "$RUN_DIR/conf:$HOME_DIR/lib/*" "$class" "$@" \
		</dev/null >"$RUN_DIR/logs/$name.log" 2>&1) &
	echo $! >"$RUN_DIR/$name.pid"
}

start() {
	if pid_of master >/dev/null && pid_of thrift >/dev/null; then
		log "already running (master pid $(pid_of master), gateway pid $(pid_of thrift))"
		print_env
		return 0
	fi
	stop >/dev/null 2>&1 || true
	fetch
	local p
	for p in "$PORT" "$ZK_PORT" "$MASTER_PORT" "$RS_PORT"; do
		port_open "$p" && die "$HOST:$p is already in use by another process; set BENCHTOP_HBASE_PORT"
	done
	srv_remove_state "$RUN_DIR"
	write_conf
	local t0=$SECONDS
	launch master org.apache.hadoop.hbase.master.HMaster "$HEAP" start
	launch thrift org.apache.hadoop.hbase.thrift2.ThriftServer 256m \
		-b "$HOST" -p "$PORT" --infoport -1 start
	local i
	for ((i = 0; i < 600; i++)); do # 60 s for the gateway's port
		port_open "$PORT" && break
		# Alive, by pid: just after the fork the process is still the
		# shell that will exec java, so its command line is not java's yet.
		kill -0 "$(cat "$RUN_DIR/master.pid")" 2>/dev/null || { tail -n 30 "$RUN_DIR/logs/master.log" >&2; die "the HBase master exited"; }
		kill -0 "$(cat "$RUN_DIR/thrift.pid")" 2>/dev/null || { tail -n 30 "$RUN_DIR/logs/thrift.log" >&2; die "the Thrift2 gateway exited"; }
		sleep 0.1
	done
	port_open "$PORT" || { tail -n 30 "$RUN_DIR/logs/thrift.log" >&2; die "the Thrift2 gateway did not listen on $HOST:$PORT within 60s"; }
	# Creating the table is the readiness test: it succeeds only once the
	# master has initialised and the region server has checked in.
	log "gateway up after $((SECONDS - t0))s; creating table $TABLE (waits for the master)"
	if ! (cd "$ROOT" && go run ./.ci/servers/hbasetable -addr "$HOST:$PORT" -table "$TABLE" \
		-family family -regions 8 -wait 180s) >&2; then
		tail -n 30 "$RUN_DIR/logs/master.log" >&2
		die "could not create table $TABLE through $HOST:$PORT (logs in $RUN_DIR/logs)"
	fi
	log "HBase is up after $((SECONDS - t0))s (master pid $(pid_of master), gateway pid $(pid_of thrift))"
	print_env
}

stop() {
	srv_stop "$RUN_DIR/thrift.pid" "the Thrift2 gateway" TERM "-Dbenchtop.hbase=$PORT"
	srv_stop "$RUN_DIR/master.pid" "the HBase master" TERM "-Dbenchtop.hbase=$PORT"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
