#!/usr/bin/env bash
# A paced run's client CPU, as ratios measured in the same run: benchtop
# against go-ycsb (and against another benchtop build, when given) at the
# same target and threads on a do-nothing database (benchtop's `null`,
# go-ycsb's `basic`), workload A. Two cases: 12 threads at 150,000 ops/s
# and 1,000 threads at 100,000 ops/s. The tools run in turn, A B C, then
# C B A, round after round, so that drift on a shared machine hits each
# alike; each run's CPU is user+sys of the process (/usr/bin/time) over
# its operations. Prints every run, then per case the median and min-max
# over the rounds of: CPU per operation against go-ycsb's, and against the
# other build's with intended p50 and p99 against its (from --json); with
# perf available, system calls per operation (perf stat, counted by the
# kernel: they do not depend on the machine's load). Asserts nothing.
#
#   GO_YCSB=/path/to/go-ycsb [BASE=/path/to/benchtop] bash scripts/bench-paced.sh [ROUNDS] [SCALE]
#
# GRIDS="0 20 50" runs this tree once per pacing.grid value (µs; default:
# the default grid only), each a tool of its own (new-g0, new-g20, ...),
# for the cost of the pacer's precision.
#
# SCALE multiplies the operation counts (default 1: 1.5 M and 1 M, 10 s
# each; 0.2 for 2 s runs). go-ycsb is not built here: fetch github.com/pingcap/go-ycsb and,
# in its folder, `go build -o /some/where/go-ycsb ./cmd/go-ycsb` (its
# go.mod is the main module). BASE is any other build of benchtop, e.g.
# main's: `git worktree add /tmp/main main && (cd /tmp/main && go build -o
# /tmp/benchtop-main .)`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
scale=${2:-1}
goycsb=${GO_YCSB:-}
base=${BASE:-}
if [[ -z $goycsb && -z $base ]]; then
	echo "bench-paced.sh: set GO_YCSB (a go-ycsb binary) and/or BASE (another benchtop build): the figures are ratios against them" >&2
	exit 2
fi
for f in "$goycsb" "$base"; do
	[[ -z $f || -x $f ]] || {
		echo "bench-paced.sh: $f is not an executable" >&2
		exit 2
	}
done
command -v /usr/bin/time >/dev/null || {
	echo "bench-paced.sh: /usr/bin/time is missing (apt-get install time)" >&2
	exit 2
}
perf=0
if command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null; then
	perf=1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
ops1=$(awk -v s="$scale" 'BEGIN { printf "%d", 1500000 * s }')
ops2=$(awk -v s="$scale" 'BEGIN { printf "%d", 1000000 * s }')
cases=("12 150000 $ops1" "1000 100000 $ops2")

# run TOOL THREADS TARGET OPS: one run; prints "cpu_us_per_op p50_us p99_us syscalls_per_op".
run() {
	local tool=$1 n=$2 target=$3 ops=$4 cmd
	case $tool in
	goycsb) cmd=("$goycsb" run basic -P workloads/workloada -p operationcount="$ops" -p threadcount="$n" -p target="$target") ;;
	new*)
		cmd=("$tmp/benchtop" run null -P workloads/workloada -p operationcount="$ops" -threads "$n" -target "$target" --headless --json "$tmp/run.json")
		[[ $tool == new-g* ]] && cmd+=(-p pacing.grid="${tool#new-g}")
		;;
	base) cmd=("$base" run null -P workloads/workloada -p operationcount="$ops" -threads "$n" -target "$target" --headless --json "$tmp/run.json") ;;
	esac
	rm -f "$tmp/run.json"
	if ((perf)); then
		/usr/bin/time -f '%U %S' -o "$tmp/time" perf stat -x, -e raw_syscalls:sys_enter -o "$tmp/perf" "${cmd[@]}" >"$tmp/out" 2>&1
	else
		/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" >"$tmp/out" 2>&1
	fi
	python3 - "$tmp" "$ops" "$perf" <<'EOF'
import json, os, sys
tmp, ops, perf = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
u, s = open(os.path.join(tmp, "time")).read().split()[-2:]
cpu = (float(u) + float(s)) * 1e6 / ops
p50 = p99 = "-"
try:
    d = json.load(open(os.path.join(tmp, "run.json")))
    ints = [o["intended"] for o in d["operations"] if o.get("intended") and o["intended"]["count"]]
    n = sum(i["count"] for i in ints)
    p50 = "%.1f" % (sum(i["p50_us"] * i["count"] for i in ints) / n)  # count-weighted over READ and UPDATE
    p99 = "%.1f" % max(i["p99_us"] for i in ints)
except (OSError, ValueError, KeyError, ZeroDivisionError):
    pass
sc = "-"
if perf:
    for line in open(os.path.join(tmp, "perf")):
        f = line.split(",")
        if len(f) > 2 and "raw_syscalls:sys_enter" in f[2]:
            sc = "%.3f" % (float(f[0]) / ops)
print("%.3f %s %s %s" % (cpu, p50, p99, sc))
EOF
}

tools=(new)
if [[ -n ${GRIDS:-} ]]; then
	tools=()
	for g in $GRIDS; do tools+=("new-g$g"); done
fi
[[ -n $goycsb ]] && tools+=(goycsb)
[[ -n $base ]] && tools+=(base)
echo "# $(nproc) CPUs; load average before: $(cut -d' ' -f1-3 /proc/loadavg); tools: ${tools[*]} (new = this tree)"
printf '%-5s %-6s %-7s %8s %-7s %10s %12s %12s %12s %6s\n' round case target ops tool cpu-us/op int-p50-us int-p99-us syscalls/op load
for r in $(seq "$rounds"); do
	order=("${tools[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#tools[@]} - 1; i >= 0; i--)); do order+=("${tools[i]}"); done
	fi
	for c in "${cases[@]}"; do
		read -r n target ops <<<"$c"
		for t in "${order[@]}"; do
			read -r cpu p50 p99 sc < <(run "$t" "$n" "$target" "$ops")
			printf '%-5s %-6s %-7s %8s %-7s %10s %12s %12s %12s %6s\n' "$r" "$n" "$target" "$ops" "$t" "$cpu" "$p50" "$p99" "$sc" "$(cut -d' ' -f1 /proc/loadavg)"
			echo "$r $n $t $cpu $p50 $p99 $sc" >>"$tmp/rows"
		done
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {}
for r, n, t, cpu, p50, p99, sc in rows:
    by.setdefault((n, r), {})[t] = (float(cpu), p50, p99, sc)
news = sorted({row[2] for row in rows if row[2].startswith("new")}, key=lambda t: (len(t), t))
def summary(vals):
    vals = sorted(vals)
    return "median %.3f (%.3f-%.3f, %d rounds)" % (statistics.median(vals), vals[0], vals[-1], len(vals))
for n in sorted({k[0] for k in by}, key=int):
    rounds = [v for k, v in by.items() if k[0] == n]
    print("## %s threads" % n)
    def ratio(new, ref, col, label):
        xs = []
        for v in rounds:
            if new in v and ref in v and "-" not in (v[new][col], v[ref][col]):
                a, b = float(v[new][col]), float(v[ref][col])
                if b > 0:
                    xs.append(a / b)
        if xs:
            print("  %-52s %s" % (label, summary(xs)))
    for t in news:
        name = "benchtop" if t == "new" else "benchtop pacing.grid=%sus" % t[len("new-g"):]
        ratio(t, "goycsb", 0, "cpu per op, %s / go-ycsb" % name)
        ratio(t, "base", 0, "cpu per op, %s / BASE" % name)
        ratio(t, "base", 1, "intended p50, %s / BASE" % name)
        ratio(t, "base", 2, "intended p99, %s / BASE" % name)
    for t in news + ["base"]:
        for col, label in ((1, "intended p50 us"), (2, "intended p99 us")):
            xs = [float(v[t][col]) for v in rounds if t in v and v[t][col] != "-"]
            if xs:
                print("  %-52s %s" % ("%s, %s" % (label, t), summary(xs)))
    for t in news + ["goycsb", "base"]:
        sc = [float(v[t][3]) for v in rounds if t in v and v[t][3] != "-"]
        if sc:
            print("  %-52s %s" % ("system calls per op, " + t, summary(sc)))
EOF
