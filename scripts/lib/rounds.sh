# shellcheck shell=bash
# The alternating rounds of benchtop against go-ycsb on one server, for
# scripts/bench-sql.sh and scripts/bench-cql.sh (sourced). The caller sets
# $tmp (a scratch folder holding $tmp/rows) and $srv_pid (the server's
# process), and runs each tool's command itself (its own retries and
# waits), taking server_cpu before and after, then calls record; summary
# prints the ratios at the end. Asserts nothing.

# server_cpu PID prints the CPU seconds of PID's process tree, with the
# children it has reaped (PostgreSQL's backends of closed connections;
# a JVM or mariadbd is one process: its threads).
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

# record TOOL ROUND S0 S1: reads the run's $tmp/out and $tmp/time
# (/usr/bin/time -f '%U %S'), S0 and S1 the server's CPU seconds before and
# after; appends "tool round ops client_s server_s throughput" to
# $tmp/rows and prints the round (nothing for the warm-up, ROUND "").
record() {
	local tool=$1 round=$2 s0=$3 s1=$4 tput n u s
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

# alternate ROUNDS MEASURE BT_RUN... -- GY_RUN...: a warm-up run of each
# tool, then ROUNDS rounds, benchtop first in odd rounds, go-ycsb first in
# even ones; MEASURE is the caller's function (TOOL ROUND CMD...).
alternate() {
	local rounds=$1 measure=$2 r
	shift 2
	local bt_run=() gy_run=()
	while [[ $1 != -- ]]; do
		bt_run+=("$1")
		shift
	done
	shift
	gy_run=("$@")
	"$measure" benchtop "" "${bt_run[@]}"
	"$measure" go-ycsb "" "${gy_run[@]}"
	for ((r = 1; r <= rounds; r++)); do
		if ((r % 2)); then
			"$measure" benchtop "$r" "${bt_run[@]}"
			"$measure" go-ycsb "$r" "${gy_run[@]}"
		else
			"$measure" go-ycsb "$r" "${gy_run[@]}"
			"$measure" benchtop "$r" "${bt_run[@]}"
		fi
	done
}

# summary prints the ratios benchtop/go-ycsb over the rounds of $tmp/rows:
# client and server CPU per operation and throughput (median, min-max).
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
