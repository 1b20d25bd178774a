#!/usr/bin/env bash
# benchtop's cassandra adapter beside go-ycsb's cassandra database on the
# same Cassandra node: client CPU per operation (user+sys of the client
# process, from /usr/bin/time), server CPU per operation (the Cassandra
# JVM, from /proc) and throughput (each tool's own figure for its run
# phase), over alternating rounds. Prints every round, then the ratios
# benchtop/go-ycsb (median, min-max). Asserts nothing.
#
#   GO_YCSB=/path/to/go-ycsb bash scripts/bench-cql.sh [ROUNDS] [OPERATIONS] [THREADS] [WORKLOAD]
#
# e.g. GO_YCSB=~/go-ycsb/go-ycsb bash scripts/bench-cql.sh 5 30000 16 workloada
#
# go-ycsb is built from its source as the main module (its go.mod has
# replace directives, so `go install ...@latest` does not build it):
#
#   git clone https://github.com/pingcap/go-ycsb && cd go-ycsb && go build -o go-ycsb ./cmd/go-ycsb
#
# The script starts a node with .ci/servers/cassandra.sh on
# BENCH_CASSANDRA_PORT (default 29042; storage port +28) unless one runs
# there already, and stops it at the end unless KEEP_SERVER=1. Each tool
# loads RECORDS (default 10,000) records of YCSB's 10 fields of 100 bytes
# into a table of its own in keyspace ycsb: benchtop's usertable layout
# (y_id, blob fields) made by its load, go-ycsb's own (ycsb_key, varchar
# fields) made by its load. Both run the same workload file (WORKLOAD,
# default workloada; go-ycsb's cassandra cannot scan, so not workloade)
# with the same record count, operation count and threads, at
# consistency QUORUM (both tools' default) and each with its own default
# pool (benchtop 1 connection per host, as YCSB's Java driver; go-ycsb 2);
# a warm-up run of each is not counted. TARGET=N runs both tools at N
# operations per second (benchtop's -target, go-ycsb's target).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
ops=${2:-30000}
threads=${3:-16}
wl=${4:-workloada}
records=${RECORDS:-10000}
gy=${GO_YCSB:-}
[[ -n $gy && -x $gy ]] || {
	echo "bench-cql.sh: set GO_YCSB to a go-ycsb binary built from its source (see the header of this script)" >&2
	exit 2
}
[[ -f workloads/$wl ]] || {
	echo "bench-cql.sh: no workloads/$wl" >&2
	exit 2
}
[[ $wl != workloade ]] || {
	echo "bench-cql.sh: go-ycsb's cassandra database cannot scan: workloade has nothing to compare" >&2
	exit 2
}
command -v /usr/bin/time >/dev/null || {
	echo "bench-cql.sh: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
}
port=${BENCH_CASSANDRA_PORT:-29042}

tmp=$(mktemp -d)
cleanup() {
	[[ -n ${KEEP_SERVER:-} ]] || BENCHTOP_CASSANDRA_PORT=$port bash .ci/servers/cassandra.sh stop 2>/dev/null || true
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
	local try
	for try in 1 2 3; do
		# go-ycsb's gocql gives a connection's start 600 ms: on a loaded
		# machine it can miss it, and then fails before any operation.
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null && break
		grep -q 'unable to create session' "$tmp/err" || break
		echo "# $tool: no session (try $try): $(tail -n 1 "$tmp/err")" >&2
		s0=$(server_cpu "$srv_pid")
	done
	grep -q '^\[OVERALL\]\|^TOTAL' "$tmp/out" || {
		echo "bench-cql.sh: $tool failed:" >&2
		tail -n 20 "$tmp/out" "$tmp/err" >&2
		exit 1
	}
	s1=$(server_cpu "$srv_pid")
	record "$tool" "$round" "$s0" "$s1"
}

eval "$(BENCHTOP_CASSANDRA_PORT=$port bash .ci/servers/cassandra.sh start)"
srv_pid=$(head -n 1 "$BENCHTOP_CASSANDRA_PID_FILE")
bt_table=bench_$RANDOM
gy_table=goycsb_$RANDOM
creds=(-p cassandra.username="$BENCHTOP_CASSANDRA_USERNAME" -p cassandra.password="$BENCHTOP_CASSANDRA_PASSWORD")
shared=(-P "workloads/$wl" -p recordcount="$records" -p cassandra.keyspace=ycsb "${creds[@]}")
bt=("$tmp/benchtop" run cassandra "${shared[@]}" -p hosts="$BENCHTOP_CASSANDRA_HOSTS" -p port="$port" -p table="$bt_table")
gy_cmd=("$gy" run cassandra "${shared[@]}" -p cassandra.cluster="$BENCHTOP_CASSANDRA_HOSTS:$port" -p table="$gy_table" -p workload=core)
bt_load=("${bt[@]}")
bt_load[1]=load
gy_load=("${gy_cmd[@]}")
gy_load[1]=load
"${bt_load[@]}" -threads 8 --headless >/dev/null 2>&1
"${gy_load[@]}" -p threadcount=8 >/dev/null 2>&1
bt_run=("${bt[@]}" -p operationcount="$ops" -threads "$threads" --headless)
gy_run=("${gy_cmd[@]}" -p operationcount="$ops" -p threadcount="$threads")
what=""
if [[ -n ${TARGET:-} ]]; then
	bt_run+=(-target "$TARGET")
	gy_run+=(-p target="$TARGET")
	what=", both at $TARGET ops/s"
fi
: >"$tmp/rows"
version=$(sed -n 's/.*Cassandra version: \([0-9.]*\).*/\1/p' "$(dirname "$BENCHTOP_CASSANDRA_PID_FILE")/cassandra.log" | head -n 1)
echo "# cassandra on Apache Cassandra ${version:-5.0.6}, $wl: $records records each tool (tables $bt_table and $gy_table), $ops operations, $threads threads a run$what; load average $(cut -d' ' -f1-3 /proc/loadavg)"
alternate "$rounds" measure "${bt_run[@]}" -- "${gy_run[@]}"
echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
summary
