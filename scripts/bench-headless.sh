#!/usr/bin/env bash
# Headless workload A on the embedded memory store, 4 threads, as ratios
# measured in the same rounds:
#   - partitions: 100,000 records, 10 M operations, at each partition
#     count given (default 1 and 8): throughput, and the ratio of each
#     count's to the first's, round by round;
#   - records: 1 partition, 5 M operations, 1,000 against 100,000 records:
#     the process's CPU (user+sys, /usr/bin/time) per operation, the load
#     phase's inserts included, and the ratio 100,000 / 1,000.
# Rounds alternate the runs (round 1 runs every one, then round 2 ...),
# so that drift on a shared machine hits each alike; at the end it prints
# the medians with the min-max of the rounds. Prints figures; asserts
# nothing.
#
#   bash scripts/bench-headless.sh [ROUNDS] [PARTITIONS...]   (default: 5 rounds of 1 and 8)
#   BENCHTOP=/path/to/benchtop bash scripts/bench-headless.sh ...   (another build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
shift || true
parts=("${@:-1 8}")
parts=(${parts[@]})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BENCHTOP:-}
if [[ -z $bin ]]; then
	go build -o "$tmp/benchtop" .
	bin=$tmp/benchtop
fi
echo "# $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
	for p in "${parts[@]}"; do
		r=$("$bin" run memory -P workloads/workloada -p recordcount=100000 -p operationcount=10000000 \
			-p partitions="$p" -threads 4 --headless 2>/dev/null |
			sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9]*\).*/\1/p')
		echo "round $i  partitions $p  ${r:-?} ops/s  (load $(cut -d' ' -f1 /proc/loadavg))"
		echo "$i part $p ${r:-0}" >>"$tmp/rows"
	done
	for rc in 1000 100000; do
		ops=5000000
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$bin" run memory -P workloads/workloada -p recordcount="$rc" \
			-p operationcount=$ops -threads 4 --headless >/dev/null 2>&1
		cpu=$(awk -v n=$ops -v rc="$rc" '{ printf "%.3f", ($1 + $2) * 1e6 / (n + rc) }' "$tmp/time")
		echo "round $i  records $rc  $cpu cpu-us/op  (load $(cut -d' ' -f1 /proc/loadavg))"
		echo "$i rec $rc $cpu" >>"$tmp/rows"
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" "${parts[0]}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
first = sys.argv[2]
def summary(xs):
    xs = sorted(xs)
    return "median %.3f (%.3f-%.3f, %d rounds)" % (statistics.median(xs), xs[0], xs[-1], len(xs))
by = {}
for r, kind, k, v in rows:
    by.setdefault((kind, r), {})[k] = float(v)
parts = sorted({k for (kind, _), d in by.items() if kind == "part" for k in d}, key=int)
for p in parts:
    vals = [d[p] / 1e6 for (kind, _), d in by.items() if kind == "part" and d.get(p)]
    print("partitions %s: M ops/s %s" % (p, summary(vals)))
    if p != first:
        xs = [d[p] / d[first] for (kind, _), d in by.items() if kind == "part" and d.get(p) and d.get(first)]
        if xs:
            print("partitions %s / partitions %s, throughput: %s" % (p, first, summary(xs)))
xs = [d["100000"] / d["1000"] for (kind, _), d in by.items() if kind == "rec" and d.get("1000")]
if xs:
    print("cpu per op, 100,000 / 1,000 records: %s" % summary(xs))
EOF
