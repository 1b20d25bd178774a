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
#   BENCHTOP_NATS_PORT   loopback port (default 4222)
#
# JetStream stores its data under the run folder, removed by stop. The
# server listens on 127.0.0.1 only, without authentication.
set -euo pipefail

PORT=${BENCHTOP_NATS_PORT:-4222}
HOST=127.0.0.1 # loopback only, ever
RUN_DIR=${TMPDIR:-/tmp}/benchtop-nats-$PORT
PID_FILE=$RUN_DIR/nats.pid
LOG_FILE=$RUN_DIR/nats.log
STORE_DIR=$RUN_DIR/jetstream

log() { echo "nats.sh: $*" >&2; }
die() { log "$*"; exit 1; }

case $PORT in
'' | *[!0-9]*) die "BENCHTOP_NATS_PORT must be a port number, not '$PORT'" ;;
esac

find_server() {
	command -v nats-server 2>/dev/null || { [[ -x /usr/sbin/nats-server ]] && echo /usr/sbin/nats-server; } || { [[ -x /usr/bin/nats-server ]] && echo /usr/bin/nats-server; }
}

install() {
	if [[ -n $(find_server) ]]; then
		return 0
	fi
	command -v apt-get >/dev/null || die "nats-server is missing and apt-get is not available to install it"
	log "installing nats-server from Debian's packages"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nats-server; } >&2 ||
		die "apt-get install nats-server failed"
	[[ -n $(find_server) ]] || die "nats-server is still missing after the install"
}

# running prints the pid of our live server, if any.
running() {
	[[ -f $PID_FILE ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "nats-server" || return 1
	echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

print_env() {
	echo "# $("$(find_server)" --version) with JetStream on $HOST:$PORT, store $STORE_DIR, pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_NATS_URL=nats://$HOST:$PORT"
}

start() {
	if running >/dev/null; then
		log "already running (pid $(running))"
		print_env
		return 0
	fi
	install
	if port_open; then
		die "$HOST:$PORT is already in use by another process; set BENCHTOP_NATS_PORT"
	fi
	mkdir -p "$STORE_DIR"
	nohup "$(find_server)" -a "$HOST" -p "$PORT" -js -sd "$STORE_DIR" -P "$PID_FILE" \
		</dev/null >>"$LOG_FILE" 2>&1 &
	local pid=$!
	local i
	for ((i = 0; i < 100; i++)); do # 10 s
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$LOG_FILE" >&2 || true
			die "nats-server exited at start (log above, $LOG_FILE)"
		fi
		if port_open && running >/dev/null; then
			log "nats-server is up on $HOST:$PORT (pid $pid)"
			print_env
			return 0
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	die "nats-server did not answer on $HOST:$PORT within 10s ($LOG_FILE)"
}

stop() {
	local pid
	if pid=$(running); then
		kill "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 100; i++)); do # 10 s, then the hard way
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		log "stopped nats-server (pid $pid)"
	else
		log "not running"
	fi
	rm -rf "$RUN_DIR"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
