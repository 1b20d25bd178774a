#!/usr/bin/env bash
# dynalite (a DynamoDB API implementation on LevelDB) for the dynamodb
# adapter's integration tests.
#
#   bash .ci/servers/dynamodb.sh start   install if needed, start, wait, print the endpoint
#   bash .ci/servers/dynamodb.sh stop    kill it and remove its data
#
# stdout of start carries only `#` comments and `export` lines, so that
# `eval "$(bash .ci/servers/dynamodb.sh start)"` sets BENCHTOP_DYNAMODB_ENDPOINT;
# everything else goes to stderr.
#
# Environment: BENCHTOP_CACHE (default ~/.cache/benchtop) holds the npm
# install; BENCHTOP_DYNAMODB_PORT (default 8000) is the port. The state (pid
# file, LevelDB data folder, log) lives in ${TMPDIR:-/tmp}/benchtop-dynamodb-PORT,
# keyed by the port, so that two instances never share a pid file. It
# listens on 127.0.0.1 only.
set -euo pipefail
SRV_NAME=dynamodb
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION=4.0.0
CACHE="${BENCHTOP_CACHE:-${HOME:-/tmp}/.cache/benchtop}/dynalite"
CLI="$CACHE/node_modules/dynalite/cli.js"
PORT=${BENCHTOP_DYNAMODB_PORT:-8000}
srv_port BENCHTOP_DYNAMODB_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/dynalite.pid
LOG_FILE=$RUN_DIR/dynalite.log
DATA=$RUN_DIR/data
MARKS=("$CLI" "$DATA")

print_env() {
	echo "# dynalite $VERSION (DynamoDB API, LevelDB in $DATA) on $SRV_HOST:$PORT, pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_DYNAMODB_ENDPOINT=http://$SRV_HOST:$PORT"
}

install() {
	if [[ -f $CLI ]] && grep -q "\"version\": \"$VERSION\"" "$CACHE/node_modules/dynalite/package.json" 2>/dev/null; then
		return 0
	fi
	command -v npm >/dev/null || die "npm is needed to install dynalite@$VERSION"
	mkdir -p "$CACHE"
	log "installing dynalite@$VERSION into $CACHE"
	# --prefix keeps the install inside the cache folder whatever the cwd.
	npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error "dynalite@$VERSION" >&2 ||
		die "npm install dynalite@$VERSION failed"
	[[ -f $CLI ]] || die "dynalite installed but $CLI is missing"
}

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_DYNAMODB_PORT"
	command -v node >/dev/null || die "node is needed to run dynalite"
	install
	mkdir -p "$DATA"
	srv_launch "$PID_FILE" "$LOG_FILE" node "$CLI" --host "$SRV_HOST" --port "$PORT" --path "$DATA" \
		--createTableMs 0 --deleteTableMs 0 --updateTableMs 0
	srv_wait_up "$SRV_PID" "$LOG_FILE" 15 "dynalite on $SRV_HOST:$PORT" port_open "$PORT"
	print_env
}

stop() {
	srv_stop "$PID_FILE" dynalite TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
