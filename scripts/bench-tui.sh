#!/usr/bin/env bash
# Measures what drawing costs the benchmark: headless against live-screen
# throughput on the memory store, workload A, same settings, alternating
# runs (so that machine drift hits both alike); then the live screen's own
# CPU with a small load. Prints figures; asserts nothing.
#
#   bash scripts/bench-tui.sh [ROUNDS] [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
secs=${2:-15}
tmp=$(mktemp -d)
trap 'tmux kill-session -t benchtui 2>/dev/null || true; rm -rf "$tmp"' EXIT
command -v tmux >/dev/null || { echo "tmux is needed" >&2; exit 1; }
go build -o "$tmp/benchtop" .
args=(run memory -P workloads/workloada -p recordcount=100000 -p operationcount=0 -p maxexecutiontime="$secs" -p partitions=4 -threads 4)

# Throughput from the JSON summary: the live screen needs stdout to be the
# terminal, so the report cannot be redirected there.
tput() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["throughput_ops_per_sec"])' "$1"; }

# quit_when_done waits for the run to finish (its time plus the load phase),
# then presses q until the program has exited and written FILE.
quit_when_done() {
	sleep "$((secs + 3))"
	for _ in $(seq 60); do
		tmux send-keys -t benchtui q 2>/dev/null || true
		[[ -s $1 ]] && break
		sleep 1
	done
	tmux kill-session -t benchtui 2>/dev/null || true
}

h_sum=0; t_sum=0
for i in $(seq "$rounds"); do
	"$tmp/benchtop" "${args[@]}" --headless --json "$tmp/h.json" >/dev/null 2>&1
	h=$(tput "$tmp/h.json")
	rm -f "$tmp/t.json"
	tmux new-session -d -s benchtui -x 120 -y 40 "'$tmp/benchtop' ${args[*]} --json '$tmp/t.json'; tmux wait-for -S benchtui-done"
	# A finished run stays on screen until q.
	quit_when_done "$tmp/t.json"
	t=$(tput "$tmp/t.json")
	printf 'round %d: headless %.0f ops/s   tui %.0f ops/s   ratio %.3f   (load %s)\n' "$i" "$h" "$t" "$(echo "$t / $h" | bc -l)" "$(cut -d' ' -f1 /proc/loadavg)"
	h_sum=$(echo "$h_sum + $h" | bc -l); t_sum=$(echo "$t_sum + $t" | bc -l)
	echo "$h $t" >>"$tmp/rounds"
done
printf 'mean: headless %.0f ops/s   tui %.0f ops/s   ratio %.3f\n' "$(echo "$h_sum / $rounds" | bc -l)" "$(echo "$t_sum / $rounds" | bc -l)" "$(echo "$t_sum / $h_sum" | bc -l)"
# Medians with the min-max of the rounds, and of each round's ratio.
med() { sort -g | awk -v f="$1" '{v[NR] = $1} END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf f " (" f "-" f ")", m, v[1], v[NR] }'; }
printf 'median: headless %s ops/s   tui %s ops/s   ratio %s\n' "$(awk '{print $1}' "$tmp/rounds" | med %.0f)" "$(awk '{print $2}' "$tmp/rounds" | med %.0f)" \
	"$(awk '{print $2 / $1}' "$tmp/rounds" | med %.3f)"

# The live screen's own CPU under a small load: 1 thread at 1,000 ops/s.
tmux new-session -d -s benchtui -x 120 -y 40 "'$tmp/benchtop' run memory -p recordcount=10000 -p operationcount=0 -p maxexecutiontime=20 -threads 1 -target 1000 --json '$tmp/l.json'; tmux wait-for -S benchtui-done"
sleep 5
pid=$(pgrep -f "$tmp/benchtop run memory -p recordcount=10000" | head -1)
t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
sleep 10
t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
hz=$(getconf CLK_TCK)
printf 'small load (1,000 ops/s, 1 thread, 120x40): benchtop process CPU %.1f %% of one core\n' "$(echo "($t1 - $t0) * 100 / $hz / 10" | bc -l)"
secs=5 quit_when_done "$tmp/l.json"
