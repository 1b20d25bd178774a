#!/usr/bin/env bash
# Time to an answer: --find-max against a fixed staircase that reaches the
# same precision, on the sim model server (issue 27). Prints both times
# and their ratio. Asserts nothing.
#
#   bash scripts/bench-findmax.sh [CAPACITY] [BOUND] [PRECISION]
#   BENCHTOP=/path/to/benchtop bash scripts/bench-findmax.sh 4000 500ms 5%
#
# 1. The search: `benchtop run sim --find-max p99<BOUND` on a model of
#    CAPACITY ops/s (10 ms mean service, CAPACITY/2 threads); its time is
#    the JSON member capacity.elapsed_s (from the run phase's start).
# 2. A fixed staircase, measured: `--sweep target=...` ascending from half
#    the search's unlimited rate U to 1.1 U in steps of the precision
#    (each (1+P) times the one before), each step 6 s (its transition and
#    the 5 steady intervals a probe needs; at U/2 or more a p99's 10,000
#    operations fit in them). Its time to the answer is the end of its
#    first failing step (p99 intended over the bound, or less than 95 % of
#    the target done): generous, it is told the answer lies within a
#    factor two of U and stops as soon as it is known.
# 3. The same staircase over the search's own range, computed from the
#    measured step length: from the floor (1 % of U) up (and from U/10), each step as long
#    as its evidence needs at its rate (its transition, then 5 intervals
#    or 10,000 operations, whichever is longer), to the step the measured
#    staircase failed at. Nothing tells a staircase where the answer lies.
set -euo pipefail
cd "$(dirname "$0")/.."
cap=${1:-4000}
bound=${2:-500ms}
prec=${3:-5%}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BENCHTOP:-}
if [[ -z $bin ]]; then
	go build -o "$tmp/benchtop" .
	bin=$tmp/benchtop
fi
threads=$((cap / 2))
model=(-P workloads/workloada -p recordcount=1000 -p sim.capacity="$cap" -p sim.latency=10ms -threads "$threads")
echo "model: $cap ops/s (10 ms mean service), $threads threads; p99<$bound, precision $prec; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$bin" run sim "${model[@]}" --find-max "p99<$bound" --find-max-precision "$prec" --find-max-time 10m \
	--headless --json "$tmp/search.json" >"$tmp/search.txt" 2>"$tmp/search.err" || true
read -r upper answer elapsed p <<<"$(python3 - "$tmp/search.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["capacity"]
u = c["probes"][0]["goodput_ops_sec"]
print(u, c.get("rate_ops_sec") or 0, c["elapsed_s"], c["precision"])
EOF
)"
grep '^# capacity: ' "$tmp/search.txt" | head -2
printf 'search: %.0f ops/s in %.1f s (unlimited %.0f ops/s)\n' "$answer" "$elapsed" "$upper"

targets=$(python3 -c "
u, p = $upper, $p
r, out = u / 2, []
while r <= 1.1 * u:
    out.append(str(round(r)))
    r *= 1 + p
print(','.join(out))")
echo "staircase: --sweep target=$targets --step 6s"
"$bin" run sim "${model[@]}" --sweep "target=$targets" --step 6s --headless --json "$tmp/stairs.json" >"$tmp/stairs.txt" 2>"$tmp/stairs.err" || true
python3 - "$tmp/stairs.json" "$bound" "$elapsed" "$upper" "$p" <<'EOF'
import json, math, sys
doc = json.load(open(sys.argv[1]))
bound_s, search, u, p = sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
unit = {"ms": 1e3, "s": 1e6, "us": 1}
num = bound_s.rstrip("mus")
bound_us = float(num) * unit[bound_s[len(num):]]
segs = []
def walk(x):
    if isinstance(x, dict):
        if "segments" in x and isinstance(x["segments"], list) and x["segments"] and "target" in x["segments"][0]:
            segs.extend(x["segments"])
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(doc)
passed, failed_at, t_fail = None, None, None
for g in segs:
    if not g.get("target"):
        continue
    p99 = g.get("intended_p99_us")
    ok = p99 is not None and p99 < bound_us and g["ops_per_sec"] >= 0.95 * g["target"]
    if ok:
        passed = g["target"]
    else:
        failed_at, t_fail = g["target"], g["start_s"] + g["duration_s"]
        break
if t_fail is None:
    print("staircase: no step failed (raise the top of the staircase)")
    sys.exit(0)
# The phase's start: the first segment's start (the sweep begins with it).
t0 = min(g["start_s"] for g in segs)
measured = t_fail - t0
print(f"staircase (from U/2, measured): {passed or 0:.0f} ops/s passed, {failed_at:.0f} failed, after {measured:.1f} s")
print(f"ratio search / staircase from U/2: {search / measured:.2f}")
# The same staircase from the search's floor (1 % of U), and from U/10,
# computed.
for share, name in ((0.01, "the floor, 1 % of U"), (0.1, "U/10")):
    r, total = share * u, 0.0
    while r < failed_at * (1 + p / 2):
        total += 1 + max(5, 10000 / r)
        r *= 1 + p
    print(f"staircase (from {name}, computed): {total:.0f} s; ratio search / it: {search / total:.3f}")
EOF
