#!/usr/bin/env bash
# The SQL adapters as a user runs them: the built binary loads YCSB's
# records into PostgreSQL and MariaDB (a table benchtop creates, 4 hash
# partitions) and runs workloads A to F on them with dataintegrity=true,
# headless; every phase must exit 0 with no Return= other than OK. A run
# with a wrong password must exit 1 with the password in no line.
#
#   bash .ci/sql-e2e.sh BENCHTOP_BINARY
#
# Needs BENCHTOP_POSTGRES_URL/_PASSWORD and BENCHTOP_MYSQL_URL/_PASSWORD
# (.ci/servers/postgres.sh and mariadb.sh print them); a server whose
# variables are unset is skipped, saying so.
set -euo pipefail
BIN=${1:?usage: sql-e2e.sh BENCHTOP_BINARY}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "sql-e2e: FAIL: $*"
	for f in "$tmp"/*.out "$tmp"/*.err; do
		[[ -s $f ]] && { echo "--- $f"; tail -n 30 "$f"; }
	done
	exit 1
}

run_server() {
	local adapter=$1 url=$2 pass=$3 table
	local common=(-p db.url="$url" -p db.passwd="$pass" -p recordcount=2000 -p dataintegrity=true -threads 8 --headless)
	for wl in a b c d e f; do
		# A table each: workloads D and E insert the same new keys.
		table=bt_e2e_$wl$RANDOM$RANDOM
		"$BIN" load "$adapter" -P "workloads/workload$wl" "${common[@]}" -p table="$table" -p partitions=4 \
			>"$tmp/load.out" 2>"$tmp/load.err" </dev/null || fail "$adapter: load for workload $wl exited $?"
		grep -q '^\[INSERT\], Return=OK, 2000$' "$tmp/load.out" || fail "$adapter: the load did not insert 2000 records"
		"$BIN" run "$adapter" -P "workloads/workload$wl" "${common[@]}" -p table="$table" -p operationcount=2000 \
			>"$tmp/$wl.out" 2>"$tmp/$wl.err" </dev/null || fail "$adapter: workload $wl exited $?"
		! grep -E '^\[[A-Z-]+\], Return=' "$tmp/$wl.out" | grep -qv 'Return=OK' ||
			fail "$adapter: workload $wl has operations that did not return OK"
		grep -q '^\[VERIFY\], Mismatches, 0$' "$tmp/$wl.out" || fail "$adapter: workload $wl: data-integrity mismatches"
		grep -E '^\[OVERALL\], Throughput' "$tmp/$wl.out" | sed "s/^/  $adapter workload$wl (table $table, 4 partitions) /"
	done
	set +e
	"$BIN" run "$adapter" -P workloads/workloada -p db.url="$url" -p db.passwd=wrong-pw-e2e -p table="$table" \
		-p operationcount=10 --headless >"$tmp/wrong.out" 2>"$tmp/wrong.err" </dev/null
	local code=$?
	set -e
	[[ $code -eq 1 ]] || fail "$adapter: a wrong password exited $code, want 1"
	! grep -q -e wrong-pw-e2e -e "$pass" "$tmp/wrong.out" "$tmp/wrong.err" || fail "$adapter: a password is in the output"
	echo "  $adapter, wrong password: $(head -n 1 "$tmp/wrong.err")"
}

if [[ -n ${BENCHTOP_POSTGRES_URL:-} ]]; then
	run_server postgres "$BENCHTOP_POSTGRES_URL" "${BENCHTOP_POSTGRES_PASSWORD:-}"
else
	echo "sql-e2e: postgres skipped: BENCHTOP_POSTGRES_URL is unset (.ci/servers/postgres.sh start sets it)"
fi
if [[ -n ${BENCHTOP_MYSQL_URL:-} ]]; then
	run_server mysql "$BENCHTOP_MYSQL_URL" "${BENCHTOP_MYSQL_PASSWORD:-}"
else
	echo "sql-e2e: mysql skipped: BENCHTOP_MYSQL_URL is unset (.ci/servers/mariadb.sh start sets it)"
fi
