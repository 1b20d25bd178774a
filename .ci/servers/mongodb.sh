#!/usr/bin/env bash
# Starts or stops a MongoDB-wire server for benchtop's mongodb adapter tests.
#
# No MongoDB server package is available to this project's machines, so this
# runs FerretDB 1.24.2 (a MongoDB-wire-compatible server written in Go), built
# once from the Go module proxy into a cache folder that survives runs, on a
# PostgreSQL 15 of its own (Debian's postgresql-15, installed if missing):
# initdb with trust authentication into the state folder, 127.0.0.1 only,
# fsync off. An event trigger gives every new collection table a GIN index on
# (_jsonb->'_id') and the database plans every query with its parameters
# (plan_cache_mode=force_custom_plan): without both, FerretDB scans a whole
# table for a find by _id. Only if PostgreSQL cannot start does it fall back
# to FerretDB's SQLite handler (said on stderr and in the `#` comment): at
# 10,000 documents it did 14 finds by _id per second here, against 2,000-2,800.
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
#   BENCHTOP_CACHE            cache folder (default $HOME/.cache/benchtop)
#   BENCHTOP_MONGODB_PORT     loopback port (default 27017); the state folder
#                             ${TMPDIR:-/tmp}/benchtop-mongodb-PORT is keyed by it
#   BENCHTOP_MONGODB_PG_PORT  loopback port of its PostgreSQL (default the
#                             MongoDB port + 10000, or - 10000 above 55535)
#   BENCHTOP_MONGODB_BACKEND  postgresql (default) or sqlite, to choose SQLite
#
# start after a crash (kill -9 of FerretDB or PostgreSQL) restarts what died on
# the same data, which is how the adapter's recovery is checked by hand; stop
# removes the data.
set -euo pipefail
SRV_NAME=mongodb
SRV_COMMANDS=build
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

FERRETDB_VERSION=v1.24.2
CACHE=${BENCHTOP_CACHE:-${HOME:-/tmp}/.cache/benchtop}
BIN_DIR=$CACHE/ferretdb-$FERRETDB_VERSION
BIN=$BIN_DIR/ferretdb
PORT=${BENCHTOP_MONGODB_PORT:-27017}
srv_port BENCHTOP_MONGODB_PORT "$PORT"
if ((PORT <= 55535)); then
	PG_PORT=${BENCHTOP_MONGODB_PG_PORT:-$((PORT + 10000))}
else
	PG_PORT=${BENCHTOP_MONGODB_PG_PORT:-$((PORT - 10000))}
fi
srv_port BENCHTOP_MONGODB_PG_PORT "$PG_PORT"
BACKEND=${BENCHTOP_MONGODB_BACKEND:-postgresql}
case $BACKEND in
postgresql | sqlite) ;;
*) die "BENCHTOP_MONGODB_BACKEND must be postgresql or sqlite, not '$BACKEND'" ;;
esac
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/ferretdb.pid
LOG_FILE=$RUN_DIR/ferretdb.log
SQLITE_DIR=$RUN_DIR/sqlite
PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_DATA=$RUN_DIR/pg
PG_LOG=$RUN_DIR/postgresql.log
PG_URL="postgres://postgres@$SRV_HOST:$PG_PORT/ferretdb"
MARKS=(ferretdb "--listen-addr=$SRV_HOST:$PORT" "$RUN_DIR")
PG_MARKS=(postgres "$PG_DATA")

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
		{
			rm -f "$BIN.tmp.$$"
			die "go build of FerretDB failed"
		}
	mv -f "$BIN.tmp.$$" "$BIN" # atomic: a half-built binary is never reused
	log "built FerretDB in $(($(date +%s) - t0))s"
}

# pg_run CMD... runs a PostgreSQL program as the postgres user when we are
# root (initdb and postgres refuse to run as root), else as ourselves.
pg_run() {
	if ((EUID == 0)); then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

pg_psql() {
	PGOPTIONS="-c client_min_messages=warning" "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$SRV_HOST" -p "$PG_PORT" -U postgres "$@"
}

# PG_SETUP makes FerretDB's finds by _id use an index: FerretDB filters with
# `_jsonb->$1 @> $2`, which its own btree index on _id cannot serve; a GIN
# index on the expression can, once the planner sees the parameters. Without
# fastupdate every update queues its new _id entry in the index's pending
# list, which each find then reads through: finds slowed from ~3,400/s to
# ~1,400/s over 60,000 updates here.
# Idempotent: run on every start.
PG_SETUP=$(
	cat <<'SQL'
CREATE OR REPLACE FUNCTION benchtop_id_index() RETURNS event_trigger
LANGUAGE plpgsql AS $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT objid, object_identity FROM pg_event_trigger_ddl_commands()
		WHERE command_tag = 'CREATE TABLE' AND object_type = 'table'
	LOOP
		IF EXISTS (SELECT 1 FROM pg_attribute
			WHERE attrelid = r.objid AND attname = '_jsonb' AND NOT attisdropped) THEN
			EXECUTE format('CREATE INDEX ON %s USING gin ((_jsonb->''_id'')) WITH (fastupdate = off)',
				r.object_identity);
		END IF;
	END LOOP;
END
$$;
DROP EVENT TRIGGER IF EXISTS benchtop_id_index;
CREATE EVENT TRIGGER benchtop_id_index ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE') EXECUTE FUNCTION benchtop_id_index();
ALTER DATABASE ferretdb SET plan_cache_mode = force_custom_plan;
SQL
)

# pg_start starts (or finds) this instance's PostgreSQL and prepares the
# ferretdb database; it returns 1, saying why on stderr, instead of dying,
# so that start can fall back to SQLite.
pg_start() {
	local pid exists
	if pid=$(srv_pid "$PG_DATA/postmaster.pid" "${PG_MARKS[@]}"); then
		log "PostgreSQL already running (pid $pid)"
	else
		(srv_apt_install "postgresql-$PG_MAJOR" "$PG_BIN/pg_ctl") || return 1
		if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
			log "there is no postgres user to run PostgreSQL as"
			return 1
		fi
		if port_open "$PG_PORT"; then
			log "$SRV_HOST:$PG_PORT is already in use by another process; set BENCHTOP_MONGODB_PG_PORT"
			return 1
		fi
		if [[ ! -f $PG_DATA/PG_VERSION ]]; then
			rm -rf "$PG_DATA"
			mkdir -p "$PG_DATA"
			chmod 700 "$PG_DATA"
			((EUID != 0)) || chown postgres: "$PG_DATA"
			pg_run "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >/dev/null || {
				log "initdb into $PG_DATA failed"
				return 1
			}
		fi
		touch "$PG_LOG"
		((EUID != 0)) || chown postgres: "$PG_LOG"
		# -k: the Unix socket goes to the data folder, not /var/run/postgresql.
		if ! pg_run "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -s -w -t 30 \
			-o "-p $PG_PORT -k $PG_DATA -c listen_addresses=$SRV_HOST -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
			start </dev/null >&2; then
			tail -n 20 "$PG_LOG" >&2 || true
			log "pg_ctl start of PostgreSQL on $SRV_HOST:$PG_PORT failed (log above, $PG_LOG)"
			return 1
		fi
		pid=$(srv_pid "$PG_DATA/postmaster.pid" "${PG_MARKS[@]}") || {
			log "PostgreSQL started but its postmaster.pid does not name it"
			return 1
		}
		log "PostgreSQL is up on $SRV_HOST:$PG_PORT (pid $pid)"
	fi
	exists=$(pg_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'") || {
		log "psql to PostgreSQL on $SRV_HOST:$PG_PORT failed"
		return 1
	}
	if [[ $exists != 1 ]]; then
		pg_psql -d postgres -c "CREATE DATABASE ferretdb" || {
			log "CREATE DATABASE ferretdb failed"
			return 1
		}
	fi
	pg_psql -d ferretdb <<<"$PG_SETUP" || {
		log "installing the _id index trigger into the ferretdb database failed"
		return 1
	}
}

# handler_of PID prints the FerretDB handler (postgresql or sqlite) PID runs.
handler_of() {
	local arg
	local -a args
	mapfile -d '' args <"/proc/$1/cmdline" 2>/dev/null || return 0
	for arg in "${args[@]}"; do
		[[ $arg == --handler=* ]] && echo "${arg#--handler=}"
	done
	return 0
}

print_env() {
	local handler=$1 store
	if [[ $handler == postgresql ]]; then
		store="PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on $SRV_HOST:$PG_PORT (GIN index on _id per collection, data $PG_DATA, log $PG_LOG)"
	elif [[ $BACKEND == sqlite ]]; then
		store="SQLite in $SQLITE_DIR (chosen by BENCHTOP_MONGODB_BACKEND)"
	else
		store="SQLite in $SQLITE_DIR (fallback: PostgreSQL could not start, the reason is on the stderr of start; finds by _id scan whole collections)"
	fi
	echo "# FerretDB $FERRETDB_VERSION (MongoDB wire protocol) on $SRV_HOST:$PORT, store: $store; pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_MONGODB_URL='mongodb://$SRV_HOST:$PORT/ycsb?w=1'"
	echo "export BENCHTOP_MONGODB_PID_FILE='$PID_FILE'"
	echo "export BENCHTOP_MONGODB_BACKEND=$handler"
}

start() {
	local pid handler=$BACKEND
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		handler=$(handler_of "$pid")
		log "already running (pid $pid)"
		if [[ $handler == postgresql ]] && ! srv_pid "$PG_DATA/postmaster.pid" "${PG_MARKS[@]}" >/dev/null; then
			log "its PostgreSQL is not running: starting it again on the same data"
			pg_start || die "PostgreSQL could not start again under FerretDB (pid $pid); stop and start again"
		fi
		print_env "$handler"
		return 0
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_MONGODB_PORT"
	build
	mkdir -p "$RUN_DIR"
	if [[ $handler == postgresql ]] && ! pg_start; then
		log "PostgreSQL could not start (see above and $PG_LOG): falling back to FerretDB's SQLite handler, much slower"
		handler=sqlite
	fi
	local store
	if [[ $handler == postgresql ]]; then
		store=(--handler=postgresql "--postgresql-url=$PG_URL")
	else
		mkdir -p "$SQLITE_DIR"
		store=(--handler=sqlite "--sqlite-url=file:$SQLITE_DIR/")
	fi
	# The state dir holds FerretDB's state.json (its instance id); data stays
	# across a crash so that a restart finds the records again.
	DO_NOT_TRACK=1 srv_launch "$PID_FILE" "$LOG_FILE" "$BIN" "${store[@]}" \
		--listen-addr="$SRV_HOST:$PORT" \
		--debug-addr="$SRV_HOST:0" \
		--state-dir="$RUN_DIR" \
		--telemetry=disable \
		--log-level=warn
	srv_wait_up "$SRV_PID" "$LOG_FILE" 30 "FerretDB ($handler) on $SRV_HOST:$PORT" port_open "$PORT"
	print_env "$handler"
}

stop() {
	srv_stop "$PID_FILE" FerretDB TERM "${MARKS[@]}"
	# SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for clients).
	srv_stop "$PG_DATA/postmaster.pid" PostgreSQL INT "${PG_MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
