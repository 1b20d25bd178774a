#!/usr/bin/env bash
# Starts or stops a MongoDB-wire server for benchtop's mongodb adapter tests.
#
# No MongoDB server package is available to this project's machines, so this
# runs FerretDB (a MongoDB-wire-compatible server written in Go) on SQLite,
# built once from the Go module proxy into a cache folder that survives runs.
# FerretDB answers the wire protocol, not MongoDB's performance: never present
# its throughput as MongoDB's.
#
#   bash .ci/servers/mongodb.sh start   # prints export lines (eval-safe)
#   bash .ci/servers/mongodb.sh stop
#   bash .ci/servers/mongodb.sh build   # only build/cache the binary
#
# stdout carries only `export ...` lines and `#` comments, so
#   eval "$(bash .ci/servers/mongodb.sh start)"
# works; progress and build output go to stderr.
#
# Environment:
#   BENCHTOP_CACHE          cache folder (default $HOME/.cache/benchtop)
#   BENCHTOP_MONGODB_PORT   loopback port (default 27017)
#
# start after a crash (kill -9) restarts the server on the same data, which is
# how the adapter's recovery is checked by hand; stop removes the data.
set -euo pipefail

FERRETDB_VERSION=v1.24.2
CACHE=${BENCHTOP_CACHE:-${HOME:-/tmp}/.cache/benchtop}
BIN_DIR=$CACHE/ferretdb-$FERRETDB_VERSION
BIN=$BIN_DIR/ferretdb
PORT=${BENCHTOP_MONGODB_PORT:-27017}
HOST=127.0.0.1 # loopback only, ever
RUN_DIR=${TMPDIR:-/tmp}/benchtop-mongodb-$PORT
PID_FILE=$RUN_DIR/ferretdb.pid
LOG_FILE=$RUN_DIR/ferretdb.log
DATA_DIR=$RUN_DIR/data

log() { echo "mongodb.sh: $*" >&2; }
die() { log "$*"; exit 1; }

case $PORT in
'' | *[!0-9]*) die "BENCHTOP_MONGODB_PORT must be a port number, not '$PORT'" ;;
esac

build() {
	if [[ -x $BIN ]]; then
		return 0
	fi
	command -v go >/dev/null || die "go is needed to build FerretDB"
	log "building FerretDB $FERRETDB_VERSION into $BIN_DIR (a few minutes the first time)"
	local t0 tmp dir
	t0=$(date +%s)
	tmp=$(mktemp -d)
	# shellcheck disable=SC2064 # expand tmp now
	trap "rm -rf '$tmp'" EXIT
	# Outside any module, so that no project's go.mod is touched.
	dir=$(cd "$tmp" && GOWORK=off GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" |
		sed -n 's/^[[:space:]]*"Dir":[[:space:]]*"\(.*\)",\{0,1\}$/\1/p')
	[[ -n $dir && -d $dir ]] || die "go mod download of FerretDB $FERRETDB_VERSION failed"
	# The module zip lacks build/version/version.txt, which the build embeds.
	cp -r "$dir" "$tmp/src"
	chmod -R u+w "$tmp/src"
	mkdir -p "$tmp/src/build/version"
	echo "$FERRETDB_VERSION" >"$tmp/src/build/version/version.txt"
	mkdir -p "$BIN_DIR"
	(cd "$tmp/src" && GOWORK=off GOFLAGS=-mod=mod go build -o "$BIN.tmp.$$" ./cmd/ferretdb) >&2 ||
		{ rm -f "$BIN.tmp.$$"; die "go build of FerretDB failed"; }
	mv -f "$BIN.tmp.$$" "$BIN" # atomic: a half-built binary is never reused
	log "built FerretDB in $(($(date +%s) - t0))s"
}

# running prints the pid of our live server, if any.
running() {
	[[ -f $PID_FILE ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	# Check it is still our ferretdb, not a recycled pid.
	[[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "ferretdb" || return 1
	echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

print_env() {
	echo "# FerretDB $FERRETDB_VERSION (MongoDB wire protocol, SQLite) on $HOST:$PORT, pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_MONGODB_URL='mongodb://$HOST:$PORT/ycsb?w=1'"
	echo "export BENCHTOP_MONGODB_PID_FILE='$PID_FILE'"
}

start() {
	if running >/dev/null; then
		log "already running (pid $(running))"
		print_env
		return 0
	fi
	if port_open; then
		die "$HOST:$PORT is already in use by another process; set BENCHTOP_MONGODB_PORT"
	fi
	build
	mkdir -p "$DATA_DIR"
	# The state dir holds FerretDB's state.json (its instance id); data stays
	# across a crash so that a restart finds the records again.
	DO_NOT_TRACK=1 nohup "$BIN" \
		--handler=sqlite \
		--sqlite-url="file:$DATA_DIR/" \
		--listen-addr="$HOST:$PORT" \
		--debug-addr="$HOST:0" \
		--state-dir="$RUN_DIR" \
		--telemetry=disable \
		--log-level=warn \
		</dev/null >>"$LOG_FILE" 2>&1 &
	local pid=$!
	echo "$pid" >"$PID_FILE"
	local i
	for ((i = 0; i < 300; i++)); do # 30 s at most
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$LOG_FILE" >&2 || true
			die "FerretDB exited at start (log above, $LOG_FILE)"
		fi
		if port_open; then
			log "FerretDB is up on $HOST:$PORT (pid $pid)"
			print_env
			return 0
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	die "FerretDB did not answer on $HOST:$PORT within 30s ($LOG_FILE)"
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
		log "stopped FerretDB (pid $pid)"
	else
		log "not running"
	fi
	rm -rf "$RUN_DIR"
}

case ${1:-} in
start) start ;;
stop) stop ;;
build) build ;;
*)
	echo "usage: $0 start|stop|build" >&2
	exit 2
	;;
esac
