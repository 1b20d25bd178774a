#!/usr/bin/env bash
# benchtop's postgres and mysql adapters beside go-ycsb's pg and mysql
# databases on the same server: client CPU per operation (user+sys of the
# client process, from /usr/bin/time), server CPU per operation (the
# server's processes, from /proc: PostgreSQL's postmaster, its live
# children and the children it reaped; mariadbd's threads) and throughput
# (each tool's own figure for its run phase), over alternating rounds.
# Prints every round, then the ratios benchtop/go-ycsb (median, min-max).
# Asserts nothing.
#
#   GO_YCSB=/path/to/go-ycsb bash scripts/bench-sql.sh [postgres|mysql|both] [ROUNDS] [OPERATIONS] [THREADS] [WORKLOAD]
#
# e.g. GO_YCSB=~/go-ycsb/go-ycsb bash scripts/bench-sql.sh both 5 30000 16 workloada
#
# go-ycsb is built from its source as the main module (its go.mod has
# replace directives, so `go install ...@latest` does not build it):
#
#   git clone https://github.com/pingcap/go-ycsb && cd go-ycsb && go build -o go-ycsb ./cmd/go-ycsb
#
# The script starts its own servers with .ci/servers/postgres.sh and
# mariadb.sh on BENCH_POSTGRES_PORT (default 25432) and BENCH_MARIADB_PORT
# (default 23306) and stops them at the end. Each tool loads RECORDS
# (default 10,000) records of YCSB's 10 fields of 100 bytes into one table
# benchtop creates (db.tablelayout=binary: a C/binary collation key,
# bytea/LONGBLOB fields; MariaDB's statements prepared on the server,
# useServerPrepStmts=true, as go-ycsb's are); go-ycsb's keys differ from YCSB's (another hash), so the table
# holds both tools' records, each tool reading and updating its own. Both
# run the same workload file (WORKLOAD, default workloada) with the same
# record count, operation count and threads; a warm-up run of each is not
# counted. LAYOUT=text makes the table YCSB's README's layout instead
# (VARCHAR(255) key, TEXT fields), made before the loads, which benchtop
# then uses as it is: go-ycsb's pg reads bytea in text format (hex), which
# costs the server more than benchtop's binary results, a difference that a
# TEXT table does not have. TARGET=N runs both tools at N operations per
# second (benchtop's -target, go-ycsb's target): the runs then last as long
# as each other, so the server's own background work (a fixed amount per
# second) weighs the same on both per operation; unpaced, the faster tool's
# operations carry less of it.
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-both}
rounds=${2:-5}
ops=${3:-30000}
threads=${4:-16}
wl=${5:-workloada}
records=${RECORDS:-10000}
gy=${GO_YCSB:-}
case $which in postgres | mysql | both) ;; *)
	echo "bench-sql.sh: the first argument is postgres, mysql or both, not '$which'" >&2
	exit 2
	;;
esac
[[ -n $gy && -x $gy ]] || {
	echo "bench-sql.sh: set GO_YCSB to a go-ycsb binary built from its source (see the header of this script)" >&2
	exit 2
}
[[ -f workloads/$wl ]] || {
	echo "bench-sql.sh: no workloads/$wl" >&2
	exit 2
}
command -v /usr/bin/time >/dev/null || {
	echo "bench-sql.sh: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
}
pg_port=${BENCH_POSTGRES_PORT:-25432}
my_port=${BENCH_MARIADB_PORT:-23306}

tmp=$(mktemp -d)
cleanup() {
	BENCHTOP_POSTGRES_PORT=$pg_port bash .ci/servers/postgres.sh stop 2>/dev/null || true
	BENCHTOP_MARIADB_PORT=$my_port bash .ci/servers/mariadb.sh stop 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/benchtop" .

# shellcheck source=scripts/lib/rounds.sh
. scripts/lib/rounds.sh

# measure TOOL ROUND CMD...: one run, recorded (scripts/lib/rounds.sh).
measure() {
	local tool=$1 round=$2 s0 s1
	shift 2
	s0=$(server_cpu "$srv_pid")
	/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || {
		echo "bench-sql.sh: $tool exited $?:" >&2
		tail -n 20 "$tmp/out" "$tmp/err" >&2
		exit 1
	}
	sleep 1 # the server reaps its backends
	s1=$(server_cpu "$srv_pid")
	record "$tool" "$round" "$s0" "$s1"
}

bench() {
	local adapter=$1 bt_props gy_cmd
	: >"$tmp/rows"
	if [[ $adapter == postgres ]]; then
		eval "$(BENCHTOP_POSTGRES_PORT=$pg_port bash .ci/servers/postgres.sh start)"
		srv_pid=$(head -n 1 "$BENCHTOP_POSTGRES_PID_FILE")
		bt_props=(-p db.url="$BENCHTOP_POSTGRES_URL" -p db.passwd="$BENCHTOP_POSTGRES_PASSWORD")
		gy_cmd=("$gy" run postgresql -p pg.host=127.0.0.1 -p pg.port="$pg_port" -p pg.user=postgres
			-p pg.password="$BENCHTOP_POSTGRES_PASSWORD" -p pg.db=ycsb -p pg.sslmode=disable)
		server="PostgreSQL $(/usr/lib/postgresql/15/bin/postgres --version | awk '{print $3}')"
	else
		eval "$(BENCHTOP_MARIADB_PORT=$my_port bash .ci/servers/mariadb.sh start)"
		srv_pid=$(head -n 1 "$BENCHTOP_MARIADB_PID_FILE")
		# go-ycsb's mysql prepares its statements on the server: so does
		# benchtop here (its default is Connector/J's, text queries).
		bt_props=(-p db.url="$BENCHTOP_MYSQL_URL?useServerPrepStmts=true" -p db.passwd="$BENCHTOP_MYSQL_PASSWORD")
		gy_cmd=("$gy" run mysql -p mysql.host=127.0.0.1 -p mysql.port="$my_port" -p mysql.user=benchtop
			-p mysql.password="$BENCHTOP_MYSQL_PASSWORD" -p mysql.db=ycsb)
		server="MariaDB $(mariadbd --version | awk '{print $3}')"
	fi
	local table=bench_$RANDOM
	local shared=(-P "workloads/$wl" -p table="$table" -p recordcount="$records")
	local layout="benchtop's binary (a C/binary collation key, bytea/LONGBLOB fields)"
	[[ ${LAYOUT:-} == text ]] || bt_props+=(-p db.tablelayout=binary)
	if [[ ${LAYOUT:-} == text ]]; then
		local ddl="CREATE TABLE $table (YCSB_KEY VARCHAR(255) PRIMARY KEY" i
		for ((i = 0; i < 10; i++)); do ddl+=", FIELD$i TEXT"; done
		ddl+=")"
		if [[ $adapter == postgres ]]; then
			PGPASSWORD=$BENCHTOP_POSTGRES_PASSWORD /usr/lib/postgresql/15/bin/psql -X -q -h 127.0.0.1 -p "$pg_port" -U postgres -d ycsb -c "$ddl"
		else
			MYSQL_PWD=$BENCHTOP_MYSQL_PASSWORD mariadb --no-defaults -h 127.0.0.1 -P "$my_port" -u benchtop ycsb -e "$ddl"
		fi
		layout="YCSB's README's (VARCHAR(255) key, TEXT fields)"
	fi
	"$tmp/benchtop" load "$adapter" "${shared[@]}" "${bt_props[@]}" -threads 8 --headless >/dev/null 2>&1
	local gy_load=("${gy_cmd[@]}")
	gy_load[1]=load
	"${gy_load[@]}" "${shared[@]}" -p workload=core -p threadcount=8 >/dev/null 2>&1
	local bt_run=("$tmp/benchtop" run "$adapter" "${shared[@]}" "${bt_props[@]}" -p operationcount="$ops" -threads "$threads" --headless)
	local gy_run=("${gy_cmd[@]}" "${shared[@]}" -p workload=core -p operationcount="$ops" -p threadcount="$threads")
	if [[ -n ${TARGET:-} ]]; then
		bt_run+=(-target "$TARGET")
		gy_run+=(-p target="$TARGET")
		layout+=", both at $TARGET ops/s"
	fi
	echo "# $adapter on $server, $wl: $records records each tool in table $table, layout $layout, $ops operations, $threads threads a run; load average $(cut -d' ' -f1-3 /proc/loadavg)"
	alternate "$rounds" measure "${bt_run[@]}" -- "${gy_run[@]}"
	echo "# $adapter: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	summary
}

[[ $which == mysql ]] || bench postgres
[[ $which == postgres ]] || bench mysql
