#!/usr/bin/env bash
# Many threads without distortion: the same target on the embedded store
# with 8, 1024 and 4096 threads; prints achieved ops/s, intended and
# service p99 and the client's own CPU per operation (utime+stime of the
# process over its operations). Asserts nothing.
#
#   bash scripts/bench-threads.sh [TARGET] [SECONDS] [THREADS...]
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-100000}
secs=${2:-20}
shift 2 || true
threads=("${@:-8 1024 4096}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
echo "target $target ops/s, $secs s per run; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %12s %14s %14s %16s\n' threads ops/s intended-p99 service-p99 cpu-us/op
for n in ${threads[@]}; do
	TIMEFORMAT='%U %S'
	{ time "$tmp/benchtop" run memory -P workloads/workloada -p recordcount=100000 -p operationcount=0 \
		-p maxexecutiontime="$secs" -threads "$n" -target "$target" --headless >"$tmp/out.txt" 2>/dev/null; } 2>"$tmp/time.txt"
	read -r u s <"$tmp/time.txt"
	total=$(sed -n 's/^\[READ\], Operations, //p;s/^\[UPDATE\], Operations, //p' "$tmp/out.txt" | paste -sd+ | bc)
	ops=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9.]*\).*/\1/p' "$tmp/out.txt")
	ip99=$(sed -n 's/^\[Intended-READ\], 99thPercentileLatency(us), //p' "$tmp/out.txt")
	sp99=$(sed -n 's/^\[READ\], 99thPercentileLatency(us), //p' "$tmp/out.txt")
	# The load phase (100,000 inserts) is in the CPU figure too; it is the
	# same for every thread count.
	cpu=$(echo "scale=2; ($u + $s) * 1000000 / ${total:-1}" | bc)
	printf '%8s %12.0f %12s us %12s us %14s\n' "$n" "${ops:-0}" "${ip99:-?}" "${sp99:-?}" "$cpu"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
