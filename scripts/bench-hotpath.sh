#!/usr/bin/env bash
# The engine's hot path as ratios to the cost of one clock read measured
# in the same run (a clock read costs 22 ns on one machine and 80 on
# another: the ratio carries, the ns do not): BenchmarkHotPath (one
# operation on a do-nothing database, unpaced), BenchmarkHotPathPaced (the
# pacing arithmetic, never sleeping) and BenchmarkPaced (12 workers at
# 150,000 ops/s through the pacer's waker: the sleeps and wake-ups, its
# CPU per operation and how late operations start), each beside
# BenchmarkClockRead from the same test binary. With BASE_TREE (a
# checkout of another revision, e.g. `git worktree add /tmp/main main`)
# the same benchmarks of that tree run in alternation and the ratios
# this / BASE_TREE are printed too (BenchmarkPaced and BenchmarkClockRead
# must exist there: copy engine/bench_test.go over if they do not).
# Prints every round, then medians and min-max. Asserts nothing.
#
#   [BASE_TREE=/path/to/checkout] bash scripts/bench-hotpath.sh [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
base=${BASE_TREE:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/new.test" ./engine/
trees=(new)
if [[ -n $base ]]; then
	(cd "$base" && go test -c -o "$tmp/base.test" ./engine/)
	trees+=(base)
fi
echo "# $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-5s %12s %12s %14s %14s %12s %12s %6s\n' round tree clock-ns hotpath-ns paced-arith-ns paced-cpu-ns lag-p50-ns lag-p99-ns load
for r in $(seq "$rounds"); do
	order=("${trees[@]}")
	((r % 2 == 0)) && order=($(printf '%s\n' "${trees[@]}" | tac))
	for t in "${order[@]}"; do
		"$tmp/$t.test" -test.run '^$' -test.bench '^Benchmark(ClockRead|HotPath|HotPathPaced)$' -test.benchtime 2000000x >"$tmp/out" 2>&1
		"$tmp/$t.test" -test.run '^$' -test.bench '^BenchmarkPaced$' -test.benchtime 300000x >>"$tmp/out" 2>&1
		python3 - "$tmp/out" "$r" "$t" "$(cut -d' ' -f1 /proc/loadavg)" >>"$tmp/rows" <<'EOF'
import re, sys
f = {}
for line in open(sys.argv[1]):
    m = re.match(r"Benchmark(\w+)-\d+\s+\d+\s+([\d.]+) ns/op(.*)", line)
    if not m:
        continue
    name, ns, rest = m.group(1), float(m.group(2)), m.group(3)
    f[name] = ns
    for v, unit in re.findall(r"([\d.]+) ([\w-]+/op|lag-p\d+-ns)", rest):
        f[name + ":" + unit] = float(v)
print(sys.argv[2], sys.argv[3], f.get("ClockRead", 0), f.get("HotPath:cpu-ns/op", f.get("HotPath", 0)),
      f.get("HotPathPaced:cpu-ns/op", f.get("HotPathPaced", 0)), f.get("Paced:cpu-ns/op", 0),
      f.get("Paced:lag-p50-ns", 0), f.get("Paced:lag-p99-ns", 0), sys.argv[4])
EOF
		tail -1 "$tmp/rows" | awk '{ printf "%-5s %-5s %12.1f %12.1f %14.1f %14.0f %12.0f %12.0f %6s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def line(label, xs):
    xs = sorted(x for x in xs if x > 0)
    if xs:
        print("%-48s median %8.2f (%.2f-%.2f, %d rounds)" % (label, statistics.median(xs), xs[0], xs[-1], len(xs)))
for tree in ("new", "base"):
    rs = [[float(x) for x in r[2:8]] for r in rows if r[1] == tree]
    if not rs:
        continue
    name = "this tree" if tree == "new" else "BASE_TREE"
    line("%s: hot path / clock read" % name, [r[1] / r[0] for r in rs if r[0]])
    line("%s: paced arithmetic / clock read" % name, [r[2] / r[0] for r in rs if r[0]])
    line("%s: paced CPU per op (sleeping) / clock read" % name, [r[3] / r[0] for r in rs if r[0]])
    line("%s: paced lag p99, us" % name, [r[5] / 1e3 for r in rs])
by = {}
for r in rows:
    by.setdefault(r[0], {})[r[1]] = [float(x) for x in r[2:8]]
pairs = [v for v in by.values() if "new" in v and "base" in v]
if pairs:
    for i, label in ((1, "hot path"), (3, "paced CPU per op"), (5, "paced lag p99")):
        line("this tree / BASE_TREE: " + label, [v["new"][i] / v["base"][i] for v in pairs if v["base"][i]])
EOF
