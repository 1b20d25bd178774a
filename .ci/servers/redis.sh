#!/usr/bin/env bash
# Starts or stops a Redis server (Debian's redis-server) for benchtop's
# redis adapter tests: key-value records as hashes and the stream workload
# on Redis Streams.
#
#   bash .ci/servers/redis.sh start   # install if needed, start, print export lines
#   bash .ci/servers/redis.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/redis.sh start)"
# sets BENCHTOP_REDIS_ADDR; everything else goes to stderr.
#
# Environment:
#   BENCHTOP_REDIS_PORT         loopback port (default 6379)
#   BENCHTOP_REDIS_REQUIREPASS  a password: the server requires it
#                               (requirepass), and start exports
#                               BENCHTOP_REDIS_AUTH_ADDR and
#                               BENCHTOP_REDIS_AUTH_PASSWORD instead of
#                               BENCHTOP_REDIS_ADDR, so that a second server
#                               for the password tests runs beside the first
#
# The server keeps nothing on disk (--save "" --appendonly no) and listens on
# 127.0.0.1 only, with protected mode on and no password unless asked.
set -euo pipefail

PORT=${BENCHTOP_REDIS_PORT:-6379}
REQUIREPASS=${BENCHTOP_REDIS_REQUIREPASS:-}
HOST=127.0.0.1 # loopback only, ever
RUN_DIR=${TMPDIR:-/tmp}/benchtop-redis-$PORT
PID_FILE=$RUN_DIR/redis.pid
LOG_FILE=$RUN_DIR/redis.log

log() { echo "redis.sh: $*" >&2; }
die() { log "$*"; exit 1; }

case $PORT in
'' | *[!0-9]*) die "BENCHTOP_REDIS_PORT must be a port number, not '$PORT'" ;;
esac

install() {
	if command -v redis-server >/dev/null; then
		return 0
	fi
	command -v apt-get >/dev/null || die "redis-server is missing and apt-get is not available to install it"
	log "installing redis-server from Debian's packages"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; } >&2 ||
		die "apt-get install redis-server failed"
	# The package may start a system service on the default port: ours is
	# started below, so stop that one if it took our port.
	if command -v service >/dev/null && [[ $PORT == 6379 ]]; then
		service redis-server stop >&2 2>/dev/null || true
	fi
	command -v redis-server >/dev/null || die "redis-server is still missing after the install"
}

# running prints the pid of our live server, if any.
running() {
	[[ -f $PID_FILE ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "redis-server" || return 1
	echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

print_env() {
	echo "# $(redis-server --version | cut -d' ' -f1-3) on $HOST:$PORT, pid file $PID_FILE, log $LOG_FILE"
	if [[ -n $REQUIREPASS ]]; then
		echo "export BENCHTOP_REDIS_AUTH_ADDR=$HOST:$PORT"
		echo "export BENCHTOP_REDIS_AUTH_PASSWORD=$REQUIREPASS"
	else
		echo "export BENCHTOP_REDIS_ADDR=$HOST:$PORT"
	fi
}

start() {
	if running >/dev/null; then
		log "already running (pid $(running))"
		print_env
		return 0
	fi
	install
	if port_open; then
		die "$HOST:$PORT is already in use by another process; set BENCHTOP_REDIS_PORT"
	fi
	mkdir -p "$RUN_DIR"
	local auth=()
	if [[ -n $REQUIREPASS ]]; then
		# In a config file, so that the password is not on the command line.
		printf 'requirepass "%s"\n' "$REQUIREPASS" >"$RUN_DIR/auth.conf"
		chmod 600 "$RUN_DIR/auth.conf"
		auth=("$RUN_DIR/auth.conf")
	fi
	redis-server "${auth[@]}" --bind "$HOST" --port "$PORT" --save "" --appendonly no \
		--daemonize yes --dir "$RUN_DIR" --pidfile "$PID_FILE" --logfile "$LOG_FILE" \
		--protected-mode yes >&2 || die "redis-server did not start ($LOG_FILE)"
	local i
	for ((i = 0; i < 100; i++)); do # 10 s
		if port_open && running >/dev/null; then
			log "redis-server is up on $HOST:$PORT (pid $(running))"
			print_env
			return 0
		fi
		sleep 0.1
	done
	tail -n 20 "$LOG_FILE" >&2 || true
	die "redis-server did not answer on $HOST:$PORT within 10s ($LOG_FILE)"
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
		log "stopped redis-server (pid $pid)"
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
