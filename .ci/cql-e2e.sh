#!/usr/bin/env bash
# The cassandra adapter as a user runs it: the built binary loads YCSB's
# records into a Cassandra node (a keyspace and table benchtop creates) and
# runs workloads A to F on them with dataintegrity=true, headless; every
# phase must exit 0 with no Return= other than OK. A run with a wrong
# password must exit 1 with the password in no line.
#
#   bash .ci/cql-e2e.sh BENCHTOP_BINARY
#
# Needs BENCHTOP_CASSANDRA_HOSTS, _PORT, _USERNAME and _PASSWORD
# (.ci/servers/cassandra.sh prints them); skipped, saying so, without them.
set -euo pipefail
BIN=${1:?usage: cql-e2e.sh BENCHTOP_BINARY}
cd "$(dirname "$0")/.."
if [[ -z ${BENCHTOP_CASSANDRA_HOSTS:-} ]]; then
	echo "cql-e2e: skipped: BENCHTOP_CASSANDRA_HOSTS is unset (.ci/servers/cassandra.sh start sets it)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "cql-e2e: FAIL: $*"
	for f in "$tmp"/*.out "$tmp"/*.err; do
		[[ -s $f ]] && { echo "--- $f"; tail -n 30 "$f"; }
	done
	exit 1
}

common=(-p hosts="$BENCHTOP_CASSANDRA_HOSTS" -p port="$BENCHTOP_CASSANDRA_PORT" -p cassandra.username="$BENCHTOP_CASSANDRA_USERNAME"
	-p cassandra.password="$BENCHTOP_CASSANDRA_PASSWORD" -p cassandra.keyspace=bt_e2e -p recordcount=2000 -p dataintegrity=true -threads 8 --headless)
for wl in a b c d e f; do
	# A table each: workloads D and E insert the same new keys.
	table=bt_e2e_$wl$RANDOM$RANDOM
	"$BIN" load cassandra -P "workloads/workload$wl" "${common[@]}" -p table="$table" \
		>"$tmp/load.out" 2>"$tmp/load.err" </dev/null || fail "load for workload $wl exited $?"
	grep -q '^\[INSERT\], Return=OK, 2000$' "$tmp/load.out" || fail "the load did not insert 2000 records"
	"$BIN" run cassandra -P "workloads/workload$wl" "${common[@]}" -p table="$table" -p operationcount=2000 \
		>"$tmp/$wl.out" 2>"$tmp/$wl.err" </dev/null || fail "workload $wl exited $?"
	! grep -E '^\[[A-Z-]+\], Return=' "$tmp/$wl.out" | grep -qv 'Return=OK' ||
		fail "workload $wl has operations that did not return OK"
	grep -q '^\[VERIFY\], Mismatches, 0$' "$tmp/$wl.out" || fail "workload $wl: data-integrity mismatches"
	grep -E '^\[OVERALL\], Throughput' "$tmp/$wl.out" | sed "s/^/  cassandra workload$wl (table bt_e2e.$table) /"
done
set +e
"$BIN" run cassandra -P workloads/workloada "${common[@]}" -p cassandra.password=wrong-pw-e2e -p table="$table" \
	-p operationcount=10 >"$tmp/wrong.out" 2>"$tmp/wrong.err" </dev/null
code=$?
set -e
[[ $code -eq 1 ]] || fail "a wrong password exited $code, want 1"
! grep -q -e wrong-pw-e2e -e "$BENCHTOP_CASSANDRA_PASSWORD" "$tmp/wrong.out" "$tmp/wrong.err" || fail "a password is in the output"
echo "  cassandra, wrong password: $(head -n 1 "$tmp/wrong.err")"
