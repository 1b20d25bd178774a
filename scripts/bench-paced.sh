#!/usr/bin/env bash
# A paced run's client CPU, as ratios measured in the same rounds:
# benchtop against go-ycsb (and against another benchtop build, when
# given) at the same target and threads, workload A. Three cases, issue
# 38's goals:
#   null   12 threads at 150,000 ops/s  (benchtop's `null`, go-ycsb's `basic`)
#   null   1,000 threads at 100,000 ops/s
#   redis  16 threads at 20,000 ops/s, 10,000 records (each tool reading
#          the keys it loaded itself: go-ycsb's are usertable/user...,
#          benchtop's usertable:user...), on a redis-server started here
# The tools run in turn, A B C, then C B A, round after round, so that
# drift on a shared machine hits each alike; each run's CPU is user+sys of
# the client process (/usr/bin/time) over its operations. Prints every run
# with its achieved rate, the pacer's lateness (actual start minus
# intended start: benchtop's "pacer" in --json; go-ycsb's only from a
# build that prints a `LATENESS ... p50_us X p99_us Y` line at the end)
# and the load average, then per case the median and min-max over the
# rounds of: CPU per operation against go-ycsb's and against the other
# build's, intended p50 and p99 against the other build's, lateness. A
# round's ratio counts only when both tools' achieved rates are within 1 %
# of the target (the rounds left out are counted). With PERF=1, system
# calls per operation too (perf stat; it slows each system call, so the
# CPU figures of such a set are not the ones to quote). Asserts nothing.
#
#   GO_YCSB=/path/to/go-ycsb [BASE=/path/to/benchtop] bash scripts/bench-paced.sh [ROUNDS] [SCALE]
#
# CASES="null12 null1000 redis" picks cases (default all three).
# WINDOWS="0 100 200" runs this tree once per pacing.window value (µs;
# default: the default window only), each a tool of its own (new-w0,
# new-w100, ...), for the CPU a wake-up costs against how late a start may
# be. SCALE multiplies the operation counts (default 1: 1.5 M, 1 M and
# 200,000, 10 s each; 0.3 for 3 s runs). BENCH_REDIS_PORT is the Redis
# server's port (default 26381).
#
# go-ycsb is not built here: fetch github.com/pingcap/go-ycsb and, in its
# folder, `go build -o /some/where/go-ycsb ./cmd/go-ycsb` (its go.mod is
# the main module). BASE is any other build of benchtop, e.g. main's:
# `git clone -q . /tmp/main && (cd /tmp/main && go build -o /tmp/benchtop-main .)`.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
scale=${2:-1}
goycsb=${GO_YCSB:-}
base=${BASE:-}
cases_wanted=${CASES:-null12 null1000 redis}
port=${BENCH_REDIS_PORT:-26381}
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
for c in $cases_wanted; do
	case $c in null12 | null1000 | redis) ;; *)
		echo "bench-paced.sh: CASES: $c is not a case (allowed: null12, null1000, redis)" >&2
		exit 2
		;;
	esac
done
for tool in /usr/bin/time python3; do
	command -v "$tool" >/dev/null || {
		echo "bench-paced.sh: $tool is missing (apt-get install time python3)" >&2
		exit 2
	}
done
perf=0
if [[ ${PERF:-0} == 1 ]]; then
	perf stat -e raw_syscalls:sys_enter -o /dev/null true 2>/dev/null || {
		echo "bench-paced.sh: PERF=1 needs perf with the raw_syscalls tracepoint (apt-get install linux-perf; root)" >&2
		exit 2
	}
	perf=1
fi
tmp=$(mktemp -d)
redis_up=0
cleanup() {
	if ((redis_up)); then
		BENCHTOP_REDIS_PORT=$port bash .ci/servers/redis.sh stop >/dev/null 2>&1 || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/benchtop" .
ops() { awk -v s="$scale" -v n="$1" 'BEGIN { printf "%d", n * s }'; }
cases=()
for c in $cases_wanted; do
	case $c in
	null12) cases+=("null 12 150000 $(ops 1500000)") ;;
	null1000) cases+=("null 1000 100000 $(ops 1000000)") ;;
	redis) cases+=("redis 16 20000 $(ops 200000)") ;;
	esac
done

tools=(new)
if [[ -n ${WINDOWS:-} ]]; then
	tools=()
	for w in $WINDOWS; do tools+=("new-w$w"); done
fi
[[ -n $goycsb ]] && tools+=(goycsb)
[[ -n $base ]] && tools+=(base)

records=10000
if [[ " $cases_wanted " == *" redis "* ]]; then
	command -v redis-server >/dev/null || {
		echo "bench-paced.sh: the redis case needs redis-server (apt-get install redis-server), or leave it out: CASES=\"null12 null1000\"" >&2
		exit 2
	}
	eval "$(BENCHTOP_REDIS_PORT=$port bash .ci/servers/redis.sh start)"
	redis_up=1
	rload=(-P workloads/workloada -p recordcount=$records -p redis.addr=127.0.0.1:$port)
	"$tmp/benchtop" load redis "${rload[@]}" -threads 4 --headless >/dev/null 2>&1
	[[ -n $goycsb ]] && "$goycsb" load redis "${rload[@]}" -p threadcount=4 >/dev/null 2>&1
fi

# run TOOL DB THREADS TARGET OPS: one run; prints
# "cpu_us_per_op rate p50_us p99_us late_p50_us late_p99_us syscalls_per_op".
run() {
	local tool=$1 db=$2 n=$3 target=$4 ops=$5 cmd bt
	local props=(-P workloads/workloada -p operationcount="$ops")
	[[ $db == redis ]] && props+=(-p recordcount=$records -p redis.addr=127.0.0.1:$port)
	case $tool in
	goycsb)
		local gdb=$db
		[[ $db == null ]] && gdb=basic
		cmd=("$goycsb" run "$gdb" "${props[@]}" -p threadcount="$n" -p target="$target")
		;;
	new* | base)
		bt=$tmp/benchtop
		[[ $tool == base ]] && bt=$base
		cmd=("$bt" run "$db" "${props[@]}" -threads "$n" -target "$target" --headless --json "$tmp/run.json")
		[[ $tool == new-w* ]] && cmd+=(-p pacing.window="${tool#new-w}")
		;;
	esac
	rm -f "$tmp/run.json"
	if ((perf)); then
		/usr/bin/time -f '%U %S' -o "$tmp/time" perf stat -x, -e raw_syscalls:sys_enter -o "$tmp/perf" "${cmd[@]}" >"$tmp/out" 2>&1
	else
		/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" >"$tmp/out" 2>&1
	fi
	python3 - "$tmp" "$ops" "$perf" <<'PY'
import json, os, re, sys
tmp, ops, perf = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
u, s = open(os.path.join(tmp, "time")).read().split()[-2:]
cpu = (float(u) + float(s)) * 1e6 / ops
rate = p50 = p99 = lp50 = lp99 = "-"
out = open(os.path.join(tmp, "out"), errors="replace").read()
try:
    d = json.load(open(os.path.join(tmp, "run.json")))
    rate = "%.0f" % d["throughput_ops_per_sec"]
    ints = [o["intended"] for o in d["operations"] if o.get("intended") and o["intended"]["count"]]
    n = sum(i["count"] for i in ints)
    p50 = "%.1f" % (sum(i["p50_us"] * i["count"] for i in ints) / n)  # count-weighted over READ and UPDATE
    p99 = "%.1f" % max(i["p99_us"] for i in ints)
    if d.get("pacer"):
        lp50, lp99 = "%.1f" % d["pacer"]["late_p50_us"], "%.1f" % d["pacer"]["late_p99_us"]
except (OSError, ValueError, KeyError, ZeroDivisionError):
    m = re.search(r"^TOTAL .*?OPS: ([0-9.]+)", out, re.M)  # go-ycsb's summary line
    if m:
        rate = "%.0f" % float(m.group(1))
    m = re.search(r"LATENESS .*p50_us ([0-9.]+) p99_us ([0-9.]+)", out)
    if m:
        lp50, lp99 = m.group(1), m.group(2)
sc = "-"
if perf:
    for line in open(os.path.join(tmp, "perf")):
        f = line.split(",")
        if len(f) > 2 and "raw_syscalls:sys_enter" in f[2]:
            sc = "%.3f" % (float(f[0]) / ops)
print("%.3f %s %s %s %s %s %s" % (cpu, rate, p50, p99, lp50, lp99, sc))
PY
}

echo "# $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -1)); load average before: $(cut -d' ' -f1-3 /proc/loadavg); tools: ${tools[*]} (new = this tree)"
fmt='%-5s %-5s %-6s %-7s %8s %-7s %10s %8s %10s %10s %10s %10s %11s %6s\n'
printf "$fmt" round db thr target ops tool cpu-us/op rate int-p50-us int-p99-us late-p50 late-p99 syscalls/op load
for r in $(seq "$rounds"); do
	order=("${tools[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#tools[@]} - 1; i >= 0; i--)); do order+=("${tools[i]}"); done
	fi
	for c in "${cases[@]}"; do
		read -r db n target ops <<<"$c"
		for t in "${order[@]}"; do
			read -r cpu rate p50 p99 lp50 lp99 sc < <(run "$t" "$db" "$n" "$target" "$ops")
			load=$(cut -d' ' -f1 /proc/loadavg)
			printf "$fmt" "$r" "$db" "$n" "$target" "$ops" "$t" "$cpu" "$rate" "$p50" "$p99" "$lp50" "$lp99" "$sc" "$load"
			echo "$r $db-$n $target $t $cpu $rate $p50 $p99 $lp50 $lp99 $sc $load" >>"$tmp/rows"
		done
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by, targets, loads = {}, {}, {}
for r, case, target, t, cpu, rate, p50, p99, lp50, lp99, sc, load in rows:
    by.setdefault((case, r), {})[t] = dict(cpu=cpu, rate=rate, p50=p50, p99=p99, lp50=lp50, lp99=lp99, sc=sc)
    targets[case] = float(target)
    loads.setdefault(case, []).append(float(load))
news = sorted({row[3] for row in rows if row[3].startswith("new")}, key=lambda t: (len(t), t))
def summary(vals):
    vals = sorted(vals)
    return "median %.3f (%.3f-%.3f, %d rounds)" % (statistics.median(vals), vals[0], vals[-1], len(vals))
def on_rate(v, case):
    try:
        return abs(float(v["rate"]) / targets[case] - 1) <= 0.01
    except ValueError:
        return False
for case in sorted({k[0] for k in by}, key=lambda c: (c.split("-")[0], int(c.split("-")[1]))):
    rounds = [v for k, v in by.items() if k[0] == case]
    ls = loads[case]
    print("## %s threads at %.0f ops/s (load %.1f-%.1f)" % (case.replace("-", ", "), targets[case], min(ls), max(ls)))
    def ratio(new, ref, col, label, rate_rule):
        xs, off = [], 0
        for v in rounds:
            if new not in v or ref not in v or "-" in (v[new][col], v[ref][col]):
                continue
            if rate_rule and not (on_rate(v[new], case) and on_rate(v[ref], case)):
                off += 1
                continue
            a, b = float(v[new][col]), float(v[ref][col])
            if b > 0:
                xs.append(a / b)
        note = "; %d rounds left out (a rate off the target by more than 1 %%)" % off if off else ""
        if xs:
            print("  %-50s %s%s" % (label, summary(xs), note))
        elif off:
            print("  %-50s none counted%s" % (label, note))
    for t in news:
        name = "benchtop" if t == "new" else "benchtop pacing.window=%sus" % t[len("new-w"):]
        ratio(t, "goycsb", "cpu", "cpu per op, %s / go-ycsb" % name, True)
        ratio(t, "base", "cpu", "cpu per op, %s / BASE" % name, True)
        ratio(t, "base", "p50", "intended p50, %s / BASE" % name, False)
        ratio(t, "base", "p99", "intended p99, %s / BASE" % name, False)
    for t in news + ["base", "goycsb"]:
        for col, label in (("rate", "achieved ops/s"), ("p50", "intended p50 us"), ("p99", "intended p99 us"),
                           ("lp50", "lateness p50 us"), ("lp99", "lateness p99 us"), ("sc", "system calls per op")):
            xs = [float(v[t][col]) for v in rounds if t in v and v[t][col] != "-"]
            if xs:
                print("  %-50s %s" % ("%s, %s" % (label, t), summary(xs)))
PY
