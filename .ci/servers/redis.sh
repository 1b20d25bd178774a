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
#   BENCHTOP_REDIS_REQUIREPASS  a password: the server requires it
#                               (requirepass), and start exports
#                               BENCHTOP_REDIS_AUTH_ADDR and
#                               BENCHTOP_REDIS_AUTH_PASSWORD instead of
#                               BENCHTOP_REDIS_ADDR (a second server for the
#                               password tests runs beside the first)
#   BENCHTOP_REDIS_PORT   loopback port (default 6379); the state folder
#                         ${TMPDIR:-/tmp}/benchtop-redis-PORT is keyed by it
#
# The server keeps nothing on disk (--save "" --appendonly no) and listens on
# 127.0.0.1 only, with protected mode on and no password.
set -euo pipefail
SRV_NAME=redis
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_REDIS_PORT:-6379}
REQUIREPASS=${BENCHTOP_REDIS_REQUIREPASS:-}
srv_port BENCHTOP_REDIS_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/redis.pid
LOG_FILE=$RUN_DIR/redis.log
# --set-proc-title no keeps the command line (and so RUN_DIR) in /proc.
MARKS=(redis-server "$RUN_DIR")

print_env() {
	echo "# $(redis-server --version | cut -d' ' -f1-3) on $SRV_HOST:$PORT, pid file $PID_FILE, log $LOG_FILE"
	if [[ -n $REQUIREPASS ]]; then
		echo "export BENCHTOP_REDIS_AUTH_ADDR=$SRV_HOST:$PORT"
		echo "export BENCHTOP_REDIS_AUTH_PASSWORD=$REQUIREPASS"
	else
		echo "export BENCHTOP_REDIS_ADDR=$SRV_HOST:$PORT"
	fi
}

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	if ! command -v redis-server >/dev/null; then
		srv_apt_install redis-server redis-server
		# The package may start a system service on the default port: ours
		# is started below, so stop that one if it took our port.
		if command -v service >/dev/null && [[ $PORT == 6379 ]]; then
			service redis-server stop >&2 2>/dev/null || true
		fi
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_REDIS_PORT"
	mkdir -p "$RUN_DIR"
	local auth=()
	if [[ -n $REQUIREPASS ]]; then
		# In a config file, so that the password is not on the command line.
		printf 'requirepass "%s"\n' "$REQUIREPASS" >"$RUN_DIR/auth.conf"
		chmod 600 "$RUN_DIR/auth.conf"
		auth=("$RUN_DIR/auth.conf")
	fi
	srv_launch "$PID_FILE" "$LOG_FILE" redis-server "${auth[@]}" --bind "$SRV_HOST" --port "$PORT" \
		--save "" --appendonly no --daemonize no --dir "$RUN_DIR" \
		--protected-mode yes --set-proc-title no
	srv_wait_up "$SRV_PID" "$LOG_FILE" 10 "redis-server on $SRV_HOST:$PORT" port_open "$PORT"
	print_env
}

stop() {
	srv_stop "$PID_FILE" redis-server TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
