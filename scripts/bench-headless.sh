#!/usr/bin/env bash
# Headless throughput of workload A on the embedded memory store:
# 100,000 records, 4 threads, 10 M operations, for several partition
# counts, each run ROUNDS times. Prints figures; asserts nothing.
#
#   bash scripts/bench-headless.sh [ROUNDS] [PARTITIONS...]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
parts=("${@:-1 4 8 16}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for p in ${parts[@]}; do
	for i in $(seq "$rounds"); do
		"$tmp/benchtop" run memory -P workloads/workloada -p recordcount=100000 -p operationcount=10000000 \
			-p partitions="$p" -threads 4 --headless 2>/dev/null |
			sed -n "s/^\[OVERALL\], Throughput(ops\/sec), \([0-9]*\).*/partitions $p  round $i  \1 ops\/s/p"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
