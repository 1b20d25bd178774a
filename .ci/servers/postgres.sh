#!/usr/bin/env bash
# Starts or stops a PostgreSQL 15 server (Debian's postgresql-15, on the
# machine image; installed if missing) for benchtop's postgres adapter
# tests: initdb into the state folder, 127.0.0.1 only, fsync off,
# pg_stat_statements preloaded (the test that compares what the server ran
# with the statements docs/adapters/postgres.md lists reads it), and a
# database `ycsb` reached by TCP with a password (scram-sha-256), so that a
# wrong password is refused as on a real server.
#
#   bash .ci/servers/postgres.sh start   # start, print export lines
#   bash .ci/servers/postgres.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/postgres.sh start)"
# sets BENCHTOP_POSTGRES_URL (no password in it), BENCHTOP_POSTGRES_PASSWORD
# and BENCHTOP_POSTGRES_PID_FILE (the postmaster's, for scripts that read
# the server's CPU); everything else goes to stderr.
#
# Environment:
#   BENCHTOP_POSTGRES_PORT      loopback port (default 5432); the state folder
#                               ${TMPDIR:-/tmp}/benchtop-postgres-PORT is keyed by it
#   BENCHTOP_POSTGRES_PASSWORD  the postgres user's password over TCP
#                               (default: a random one, kept in the state folder)
#
# As root the server runs as the postgres user (initdb and postgres refuse
# root), through runuser.
set -euo pipefail
SRV_NAME=postgres
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_POSTGRES_PORT:-5432}
srv_port BENCHTOP_POSTGRES_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
DATA=$RUN_DIR/data
LOG_FILE=$RUN_DIR/postgresql.log
PASS_FILE=$RUN_DIR/password
MARKS=(postgres "$DATA")

# pg_run CMD... runs a PostgreSQL program as the postgres user when we are
# root, else as ourselves.
pg_run() {
	if ((EUID == 0)); then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# psql over the Unix socket in the data folder (trust there).
pg_psql() {
	PGOPTIONS="-c client_min_messages=warning" pg_run "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DATA" -p "$PORT" -U postgres "$@"
}

print_env() {
	echo "# PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on $SRV_HOST:$PORT, data $DATA, log $LOG_FILE"
	echo "export BENCHTOP_POSTGRES_URL='postgres://postgres@$SRV_HOST:$PORT/ycsb?sslmode=disable'"
	echo "export BENCHTOP_POSTGRES_PASSWORD='$(cat "$PASS_FILE")'"
	echo "export BENCHTOP_POSTGRES_PID_FILE='$DATA/postmaster.pid'"
}

start() {
	local pid
	if pid=$(srv_pid "$DATA/postmaster.pid" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	srv_apt_install "postgresql-$PG_MAJOR" "$PG_BIN/pg_ctl"
	if ((EUID == 0)) && ! id postgres >/dev/null 2>&1; then
		die "there is no postgres user to run PostgreSQL as"
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_POSTGRES_PORT"
	mkdir -p "$RUN_DIR"
	if [[ ! -f $PASS_FILE ]]; then
		(umask 077 && echo "${BENCHTOP_POSTGRES_PASSWORD:-ci-$RANDOM$RANDOM$RANDOM}" >"$PASS_FILE")
	fi
	if [[ ! -f $DATA/PG_VERSION ]]; then
		rm -rf "$DATA"
		mkdir -p "$DATA"
		chmod 700 "$DATA"
		((EUID != 0)) || chown postgres: "$RUN_DIR" "$DATA"
		pg_run "$PG_BIN/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
			-E UTF8 --locale=C --no-sync >/dev/null || die "initdb into $DATA failed"
	fi
	touch "$LOG_FILE"
	((EUID != 0)) || chown postgres: "$LOG_FILE"
	# -k: the Unix socket goes to the data folder, not /var/run/postgresql.
	pg_run "$PG_BIN/pg_ctl" -D "$DATA" -l "$LOG_FILE" -s -w -t 30 \
		-o "-p $PORT -k $DATA -c listen_addresses=$SRV_HOST -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 -c shared_preload_libraries=pg_stat_statements -c pg_stat_statements.max=10000" \
		start </dev/null >&2 || {
		tail -n 20 "$LOG_FILE" >&2 || true
		die "pg_ctl start of PostgreSQL on $SRV_HOST:$PORT failed (log above, $LOG_FILE)"
	}
	pid=$(srv_pid "$DATA/postmaster.pid" "${MARKS[@]}") || die "PostgreSQL started but its postmaster.pid does not name it"
	log "PostgreSQL is up on $SRV_HOST:$PORT (pid $pid)"
	local exists
	exists=$(pg_psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ycsb'") || die "psql to PostgreSQL on $SRV_HOST:$PORT failed"
	[[ $exists == 1 ]] || pg_psql -d postgres -c "CREATE DATABASE ycsb" || die "CREATE DATABASE ycsb failed"
	# The password in psql's standard input, not on a command line.
	pg_psql -d ycsb <<SQL || die "setting the postgres user's password and pg_stat_statements failed"
ALTER USER postgres PASSWORD '$(cat "$PASS_FILE")';
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
SQL
	print_env
}

stop() {
	# SIGINT is PostgreSQL's fast shutdown (SIGTERM would wait for clients).
	srv_stop "$DATA/postmaster.pid" PostgreSQL INT "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
