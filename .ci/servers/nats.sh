#!/usr/bin/env bash
# Starts or stops a NATS server with JetStream (Debian's nats-server) for
# benchtop's nats adapter tests: the stream workload on JetStream.
#
#   bash .ci/servers/nats.sh start   # install if needed, start, print export lines
#   bash .ci/servers/nats.sh stop    # stop it and remove its store
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/nats.sh start)"
# sets BENCHTOP_NATS_URL; everything else goes to stderr.
#
# Environment:
#   BENCHTOP_NATS_PORT   loopback port (default 4222); the state folder
#                        ${TMPDIR:-/tmp}/benchtop-nats-PORT is keyed by it
#
# JetStream stores its data under the state folder, removed by stop. The
# server listens on 127.0.0.1 only, without authentication.
set -euo pipefail
SRV_NAME=nats
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_NATS_PORT:-4222}
srv_port BENCHTOP_NATS_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/nats.pid
LOG_FILE=$RUN_DIR/nats.log
STORE_DIR=$RUN_DIR/jetstream
MARKS=(nats-server "$STORE_DIR")

# Debian puts nats-server in /usr/sbin, which is not on every PATH.
find_server() {
	command -v nats-server 2>/dev/null || { [[ -x /usr/sbin/nats-server ]] && echo /usr/sbin/nats-server; }
}

print_env() {
	echo "# $("$(find_server)" --version) with JetStream on $SRV_HOST:$PORT, store $STORE_DIR, pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_NATS_URL=nats://$SRV_HOST:$PORT"
}

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_NATS_PORT"
	srv_apt_install nats-server nats-server /usr/sbin/nats-server
	mkdir -p "$STORE_DIR"
	srv_launch "$PID_FILE" "$LOG_FILE" "$(find_server)" -a "$SRV_HOST" -p "$PORT" -js -sd "$STORE_DIR"
	srv_wait_up "$SRV_PID" "$LOG_FILE" 10 "nats-server on $SRV_HOST:$PORT" port_open "$PORT"
	print_env
}

stop() {
	srv_stop "$PID_FILE" nats-server TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
