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

# server_cpu PID prints the CPU seconds of PID's process tree, with the
# children it has reaped (the Cassandra JVM is one process: its threads).
server_cpu() {
	python3 - "$1" <<'PY'
import os, sys
root = int(sys.argv[1])
tck = os.sysconf("SC_CLK_TCK")
stats = {}
for d in os.listdir("/proc"):
    if d.isdigit():
        try:
            s = open(f"/proc/{d}/stat").read()
        except OSError:
            continue
        f = s[s.rindex(")") + 2:].split()
        stats[int(d)] = (int(f[1]), [int(x) for x in f[11:15]])  # ppid; utime stime cutime cstime
tree, todo = set(), [root]
while todo:
    p = todo.pop()
    tree.add(p)
    todo += [c for c, (pp, _) in stats.items() if pp == p and c not in tree]
total = sum(stats[p][1][0] + stats[p][1][1] for p in tree if p in stats)
total += stats[root][1][2] + stats[root][1][3]
print(total / tck)
PY
}

# measure TOOL ROUND CMD...: one run; appends "tool round ops client_s server_s throughput" to $tmp/rows.
measure() {
	local tool=$1 round=$2 s0 s1 tput n
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
	if [[ $tool == benchtop ]]; then
		tput=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), //p' "$tmp/out")
		n=$(sed -n 's/^\[[A-Z-]*\], Return=OK, //p' "$tmp/out" | paste -sd+ | bc)
		! grep -E '^\[[A-Z-]+\], Return=' "$tmp/out" | grep -qv 'Return=OK' || echo "# benchtop round $round: operations that did not return OK" >&2
	else
		tput=$(sed -n 's/^TOTAL *- .*OPS: \([0-9.]*\),.*/\1/p' "$tmp/out" | tail -n 1)
		n=$(sed -n 's/^TOTAL *- .*Count: \([0-9]*\),.*/\1/p' "$tmp/out" | tail -n 1)
		! grep -q '_ERROR' "$tmp/out" || echo "# go-ycsb round $round: errors: $(grep '_ERROR' "$tmp/out" | head -n 2)" >&2
	fi
	[[ -n $round ]] || return 0 # the warm-up
	read -r u s <"$tmp/time"
	echo "$tool $round $n $(echo "$u + $s" | bc) $(echo "$s1 - $s0" | bc) $tput" >>"$tmp/rows"
	printf '  round %s %-8s %6d ops  client %6.1f µs/op  server %6.1f µs/op  %8.0f ops/s\n' "$round" "$tool" "$n" \
		"$(echo "($u + $s) * 1000000 / $n" | bc -l)" "$(echo "($s1 - $s0) * 1000000 / $n" | bc -l)" "$tput"
}

summary() {
	python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    tool, r, n, cl, sv, tp = line.split()
    rows.setdefault(int(r), {})[tool] = (int(n), float(cl), float(sv), float(tp))
ratios = {"client CPU per operation": [], "server CPU per operation": [], "throughput": []}
for r, t in sorted(rows.items()):
    if len(t) < 2:
        continue
    (bn, bc, bs, bt), (gn, gc, gs, gt) = t["benchtop"], t["go-ycsb"]
    ratios["client CPU per operation"].append((bc / bn) / (gc / gn))
    ratios["server CPU per operation"].append((bs / bn) / (gs / gn))
    ratios["throughput"].append(bt / gt)
for k, v in ratios.items():
    print(f"  benchtop/go-ycsb {k}: median {statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f}), {len(v)} rounds: " + ", ".join(f"{x:.3f}" for x in v))
PY
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
measure benchtop "" "${bt_run[@]}"
measure go-ycsb "" "${gy_run[@]}"
for ((r = 1; r <= rounds; r++)); do
	if ((r % 2)); then
		measure benchtop "$r" "${bt_run[@]}"
		measure go-ycsb "$r" "${gy_run[@]}"
	else
		measure go-ycsb "$r" "${gy_run[@]}"
		measure benchtop "$r" "${bt_run[@]}"
	fi
done
echo "# load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
summary
