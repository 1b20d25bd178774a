#!/usr/bin/env bash
# dynalite (a DynamoDB API implementation on LevelDB) for the dynamodb
# adapter's integration tests.
#
#   .ci/servers/dynamodb.sh start   install if needed, start, wait, print the endpoint
#   .ci/servers/dynamodb.sh stop    kill it and remove its data
#
# stdout of start carries only a `#` comment and an `export` line, so that
# `eval "$(.ci/servers/dynamodb.sh start)"` sets BENCHTOP_DYNAMODB_ENDPOINT;
# everything else goes to stderr.
#
# Environment: BENCHTOP_CACHE (default ~/.cache/benchtop) holds the npm
# install; BENCHTOP_DYNAMODB_PORT (default 8000) is the port; the state
# (pid file, data folder, log) lives in BENCHTOP_DYNAMODB_STATE (default
# ${TMPDIR:-/tmp}/benchtop-dynalite). It listens on 127.0.0.1 only.
set -euo pipefail

VERSION=4.0.0
CACHE="${BENCHTOP_CACHE:-$HOME/.cache/benchtop}/dynalite"
PORT="${BENCHTOP_DYNAMODB_PORT:-8000}"
STATE="${BENCHTOP_DYNAMODB_STATE:-${TMPDIR:-/tmp}/benchtop-dynalite}"
PIDFILE="$STATE/dynalite.pid"
LOG="$STATE/dynalite.log"
DATA="$STATE/data"
CLI="$CACHE/node_modules/dynalite/cli.js"

die() { echo "dynamodb.sh: $*" >&2; exit 1; }

announce() {
	echo "# dynalite $VERSION (DynamoDB API, LevelDB in $DATA) on 127.0.0.1:$PORT, pid file $PIDFILE, log $LOG"
	echo "export BENCHTOP_DYNAMODB_ENDPOINT=http://127.0.0.1:$PORT"
}

install() {
	if [[ -f "$CLI" ]] && grep -q "\"version\": \"$VERSION\"" "$CACHE/node_modules/dynalite/package.json" 2>/dev/null; then
		return
	fi
	command -v npm >/dev/null || die "npm is needed to install dynalite@$VERSION"
	mkdir -p "$CACHE"
	echo "dynamodb.sh: installing dynalite@$VERSION into $CACHE" >&2
	# --prefix keeps the install inside the cache folder whatever the cwd.
	npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error "dynalite@$VERSION" >&2 ||
		die "npm install dynalite@$VERSION failed"
	[[ -f "$CLI" ]] || die "dynalite installed but $CLI is missing"
}

port_open() {
	# bash's /dev/tcp: no dependency on nc or curl.
	(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null
}

running() {
	[[ -f "$PIDFILE" ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null
}

start() {
	if running; then
		announce
		return
	fi
	if port_open; then
		die "port $PORT on 127.0.0.1 is already taken by another process"
	fi
	install
	mkdir -p "$STATE" "$DATA"
	nohup node "$CLI" --host 127.0.0.1 --port "$PORT" --path "$DATA" \
		--createTableMs 0 --deleteTableMs 0 --updateTableMs 0 >"$LOG" 2>&1 &
	echo $! >"$PIDFILE"
	for _ in $(seq 1 150); do # 15 s
		if port_open; then
			announce
			return
		fi
		if ! running; then
			cat "$LOG" >&2 || true
			rm -f "$PIDFILE"
			die "dynalite exited during start-up"
		fi
		sleep 0.1
	done
	cat "$LOG" >&2 || true
	stop
	die "dynalite did not answer on 127.0.0.1:$PORT within 15 s"
}

stop() {
	if [[ -f "$PIDFILE" ]]; then
		pid="$(cat "$PIDFILE")"
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 1 50); do # 5 s, then force
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
			kill -9 "$pid" 2>/dev/null || true
		fi
		rm -f "$PIDFILE"
	fi
	rm -rf "$DATA" "$LOG"
	rmdir "$STATE" 2>/dev/null || true
}

case "${1:-}" in
start) start ;;
stop) stop ;;
*) die "usage: $0 start|stop" ;;
esac
