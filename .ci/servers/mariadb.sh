#!/usr/bin/env bash
# Starts or stops a MariaDB server (Debian's mariadb-server, 10.11 on
# bookworm; installed if missing) for benchtop's mysql adapter tests: a
# data folder of its own made by mariadb-install-db, 127.0.0.1 only, no
# /etc/mysql configuration (--no-defaults), InnoDB's log flushed about once
# a second rather than at every commit, and a user `benchtop` reached by
# TCP with a password, allowed everything (the test that compares what the
# server ran with the statements docs/adapters/mysql.md lists turns the
# general log on and off).
#
#   bash .ci/servers/mariadb.sh start   # install if needed, start, print export lines
#   bash .ci/servers/mariadb.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/mariadb.sh start)"
# sets BENCHTOP_MYSQL_URL (no password in it), BENCHTOP_MYSQL_PASSWORD and
# BENCHTOP_MARIADB_PID_FILE (mariadbd's, for scripts that read the server's
# CPU); everything else goes to stderr.
#
# Environment:
#   BENCHTOP_MARIADB_PORT      loopback port (default 3306); the state folder
#                              ${TMPDIR:-/tmp}/benchtop-mariadb-PORT is keyed by it
#   BENCHTOP_MARIADB_PASSWORD  the benchtop user's password (default: a random
#                              one, kept in the state folder)
set -euo pipefail
SRV_NAME=mariadb
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_MARIADB_PORT:-3306}
srv_port BENCHTOP_MARIADB_PORT "$PORT"
RUN_DIR=$(srv_state_dir "$PORT")
DATA=$RUN_DIR/data
SOCK=$RUN_DIR/mysqld.sock
PID_FILE=$RUN_DIR/mariadbd.pid
LOG_FILE=$RUN_DIR/mariadb.log
PASS_FILE=$RUN_DIR/password
MARKS=(mariadbd "$DATA")
OS_USER=$(id -un)

# client runs the mariadb client over the Unix socket as the OS user
# (unix_socket authentication, as mariadb-install-db sets it up).
client() {
	mariadb --no-defaults -S "$SOCK" -u "$OS_USER" "$@"
}

ready() { client -e "SELECT 1" >/dev/null 2>&1; }

print_env() {
	echo "# MariaDB $(mariadbd --version | awk '{print $3}') on $SRV_HOST:$PORT, data $DATA, log $LOG_FILE"
	echo "export BENCHTOP_MYSQL_URL='mysql://benchtop@$SRV_HOST:$PORT/ycsb'"
	echo "export BENCHTOP_MYSQL_PASSWORD='$(cat "$PASS_FILE")'"
	echo "export BENCHTOP_MARIADB_PID_FILE='$PID_FILE'"
}

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	srv_apt_install mariadb-server mariadbd /usr/sbin/mariadbd
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_MARIADB_PORT"
	mkdir -p "$RUN_DIR"
	if [[ ! -f $PASS_FILE ]]; then
		(umask 077 && echo "${BENCHTOP_MARIADB_PASSWORD:-ci-$RANDOM$RANDOM$RANDOM}" >"$PASS_FILE")
	fi
	if [[ ! -d $DATA/mysql ]]; then
		rm -rf "$DATA"
		mariadb-install-db --no-defaults --datadir="$DATA" --user="$OS_USER" --skip-test-db \
			--auth-root-authentication-method=socket >"$RUN_DIR/install.log" 2>&1 ||
			{
				tail -n 20 "$RUN_DIR/install.log" >&2
				die "mariadb-install-db into $DATA failed"
			}
	fi
	local as_user=()
	((EUID != 0)) || as_user=(--user=root)
	srv_launch "$PID_FILE" "$LOG_FILE" "$(command -v mariadbd || echo /usr/sbin/mariadbd)" --no-defaults \
		--datadir="$DATA" --port="$PORT" --bind-address="$SRV_HOST" --socket="$SOCK" \
		--pid-file="$DATA/mariadbd.pid" "${as_user[@]}" --skip-name-resolve \
		--innodb-flush-log-at-trx-commit=0 --max-connections=300 --log-error="$LOG_FILE"
	srv_wait_up "$SRV_PID" "$LOG_FILE" 60 "mariadbd on $SRV_HOST:$PORT" ready
	# The password in the client's standard input, not on a command line.
	client <<SQL || die "creating the ycsb database and the benchtop user failed"
CREATE DATABASE IF NOT EXISTS ycsb;
CREATE USER IF NOT EXISTS 'benchtop'@'$SRV_HOST' IDENTIFIED BY '$(cat "$PASS_FILE")';
ALTER USER 'benchtop'@'$SRV_HOST' IDENTIFIED BY '$(cat "$PASS_FILE")';
GRANT ALL PRIVILEGES ON *.* TO 'benchtop'@'$SRV_HOST' WITH GRANT OPTION;
SQL
	print_env
}

stop() {
	srv_stop "$PID_FILE" mariadbd TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
