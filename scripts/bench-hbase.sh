#!/usr/bin/env bash
# The published HBase single-operation tests (GET, SCAN and PUT of one
# column of 100-column rows) against a Thrift2 gateway, at several thread
# counts: loads the rows, warms up, then runs each workload file for SECS
# seconds per thread count and prints ops/s, p50/p95/p99 (service time)
# and the benchtop process's own CPU per operation. Prints figures;
# asserts nothing.
#
#   eval "$(bash .ci/servers/hbase.sh start)"
#   bash scripts/bench-hbase.sh [SECS] [THREADS...]     # default 30 s; 8 128 1024
#
# Environment: BENCHTOP_HBASE_THRIFT (default 127.0.0.1:9090), ROWS (rows
# loaded, default 10000), RUNROWS (rows queried, default ROWS/10, as the
# published runs queried 30 M of 300 M), WORKLOADS (default the three
# 1-column files), LOAD=0 to skip the load.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
shift || true
threads=("${@:-8 128 1024}")
addr=${BENCHTOP_HBASE_THRIFT:-127.0.0.1:9090}
rows=${ROWS:-10000}
runrows=${RUNROWS:-$((rows / 10))}
workloads=(${WORKLOADS:-hbase-get-1col hbase-scan-1col hbase-put-1col})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
bt() { "$tmp/benchtop" "$@" -p hbase.thrift.addr="$addr" --headless </dev/null; }

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores, shared by benchtop and HBase"
if [[ ${LOAD:-1} != 0 ]]; then
	bt load hbase -P workloads/hbase-get-1col -p recordcount="$rows" -threads 8 >"$tmp/load.txt" 2>&1 ||
		{ cat "$tmp/load.txt"; exit 1; }
	echo "loaded $rows rows: $(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9]*\).*/\1 rows\/s/p' "$tmp/load.txt")"
fi
# Warm-up: cold JVMs run 2-3x slower.
bt run hbase -P workloads/hbase-get-1col -p recordcount="$runrows" -p maxexecutiontime=10 -threads 8 >/dev/null 2>&1

printf '%-16s %7s %9s %9s %9s %9s %7s %11s\n' workload threads ops/s p50_us p95_us p99_us errors cpu_us/op
for w in "${workloads[@]}"; do
	for t in ${threads[@]}; do
		/usr/bin/time -f '%U %S' -o "$tmp/time.txt" \
			"$tmp/benchtop" run hbase -P "workloads/$w" -p hbase.thrift.addr="$addr" -p recordcount="$runrows" \
			-p maxexecutiontime="$secs" -threads "$t" --headless --json "$tmp/s.json" </dev/null >"$tmp/out.txt" 2>&1 ||
			{ echo "$w at $t threads failed:"; tail -20 "$tmp/out.txt"; continue; }
		read -r user sys <"$tmp/time.txt"
		python3 - "$tmp/s.json" "$w" "$t" "$user" "$sys" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
seg = [g for g in s["segments"] if g["label"] == "run phase"] or s["segments"]
g = seg[-1]
cpu_us = (float(sys.argv[4]) + float(sys.argv[5])) * 1e6 / max(1, g["operations"])
print("%-16s %7s %9.0f %9.0f %9.0f %9.0f %7d %11.0f" % (sys.argv[2], sys.argv[3], g["ops_per_sec"], g["p50_us"], g["p95_us"], g["p99_us"], g["errors"], cpu_us))
PY
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
