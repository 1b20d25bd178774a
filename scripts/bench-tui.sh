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

tput() { sed -n 's/^\[OVERALL\], Throughput(ops\/sec), //p' "$1"; }

h_sum=0; t_sum=0
for i in $(seq "$rounds"); do
	"$tmp/benchtop" "${args[@]}" --headless >"$tmp/h.txt" 2>/dev/null
	h=$(tput "$tmp/h.txt")
	tmux new-session -d -s benchtui -x 120 -y 40 "'$tmp/benchtop' ${args[*]} >'$tmp/t.txt'; tmux wait-for -S benchtui-done"
	tmux wait-for benchtui-done
	tmux kill-session -t benchtui 2>/dev/null || true
	t=$(tput "$tmp/t.txt")
	printf 'round %d: headless %.0f ops/s   tui %.0f ops/s   ratio %.3f\n' "$i" "$h" "$t" "$(echo "$t / $h" | bc -l)"
	h_sum=$(echo "$h_sum + $h" | bc -l); t_sum=$(echo "$t_sum + $t" | bc -l)
done
printf 'mean: headless %.0f ops/s   tui %.0f ops/s   ratio %.3f\n' "$(echo "$h_sum / $rounds" | bc -l)" "$(echo "$t_sum / $rounds" | bc -l)" "$(echo "$t_sum / $h_sum" | bc -l)"

# The live screen's own CPU under a small load: 1 thread at 1,000 ops/s.
tmux new-session -d -s benchtui -x 120 -y 40 "'$tmp/benchtop' run memory -p recordcount=10000 -p operationcount=0 -p maxexecutiontime=20 -threads 1 -target 1000 >'$tmp/l.txt'; tmux wait-for -S benchtui-done"
sleep 5
pid=$(pgrep -f "$tmp/benchtop run memory -p recordcount=10000" | head -1)
t0=$(awk '{print $14+$15}' "/proc/$pid/stat")
sleep 10
t1=$(awk '{print $14+$15}' "/proc/$pid/stat")
hz=$(getconf CLK_TCK)
printf 'small load (1,000 ops/s, 1 thread, 120x40): benchtop process CPU %.1f %% of one core\n' "$(echo "($t1 - $t0) * 100 / $hz / 10" | bc -l)"
tmux wait-for benchtui-done
