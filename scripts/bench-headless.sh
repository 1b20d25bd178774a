#!/usr/bin/env bash
# Headless throughput of workload A on the embedded memory store:
# 100,000 records, 4 threads, 10 M operations, for several partition
# counts. Rounds alternate between the partition counts (round 1 runs
# every count, then round 2 ...), so that drift on a shared machine hits
# every count alike; at the end it prints each count's median with the
# min-max of its rounds. Prints figures; asserts nothing.
#
#   bash scripts/bench-headless.sh [ROUNDS] [PARTITIONS...]   (default: 5 rounds of 1 and 8)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
parts=("${@:-1 8}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	for p in ${parts[@]}; do
		r=$("$tmp/benchtop" run memory -P workloads/workloada -p recordcount=100000 -p operationcount=10000000 \
			-p partitions="$p" -threads 4 --headless 2>/dev/null |
			sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9]*\).*/\1/p')
		echo "round $i  partitions $p  ${r:-?} ops/s  (load $(cut -d' ' -f1 /proc/loadavg))"
		echo "$r" >>"$tmp/p$p"
	done
done
for p in ${parts[@]}; do
	sort -n "$tmp/p$p" | awk -v p="$p" '{v[NR] = $1} END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "partitions %s: median %.2f M ops/s (min %.2f, max %.2f M; %d rounds)\n", p, m / 1e6, v[1] / 1e6, v[NR] / 1e6, NR }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
