#!/usr/bin/env bash
# What a fleet costs on one box, as ratios measured in the same rounds: a
# paced run on the do-nothing database (workload A, TARGET ops/s in all)
# three ways, in turn:
#   fleet  N agents on loopback (benchtop agent --once) and a coordinator,
#          THREADS threads per agent: the CPU of the N + 1 processes;
#   parts  N plain processes at TARGET/N each, THREADS threads each, run
#          at the same time: what the fleet's parts cost without a fleet;
#   one    one process at TARGET with N x THREADS threads.
# Each figure is user+sys (/usr/bin/time) summed over the processes; the
# ratios fleet/one, fleet/parts and parts/one are printed per round, then
# their medians and min-max. Asserts nothing.
#
#   bash scripts/bench-fleet.sh [ROUNDS] [TARGET] [THREADS] [AGENTS] [SECONDS]
#   BENCHTOP=/path/to/benchtop ...   (another build)
#
# Defaults: 5 rounds, 150000 ops/s, 4 threads, 3 agents, 10 s. The agents
# listen on 127.0.0.1 ports from BENCH_FLEET_PORT (default 27071) up.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
target=${2:-150000}
threads=${3:-4}
agents=${4:-3}
secs=${5:-10}
port=${BENCH_FLEET_PORT:-27071}
tmp=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
bin=${BENCHTOP:-}
if [[ -z $bin ]]; then
	go build -o "$tmp/benchtop" .
	bin=$tmp/benchtop
fi
ops=$(awk -v t="$target" -v s="$secs" 'BEGIN { printf "%d", t * s }')
run=(run null -P workloads/workloada -p operationcount="$ops" --headless)
sum() { cat "$@" | awk '{ s += $1 + $2 } END { printf "%.2f", s }'; }

fleet() {
	local list=() i
	pids=()
	for i in $(seq "$agents"); do
		/usr/bin/time -f '%U %S' -o "$tmp/a$i.time" "$bin" agent --listen "127.0.0.1:$((port + i - 1))" --once >"$tmp/a$i.out" 2>&1 &
		pids+=($!)
		list+=("127.0.0.1:$((port + i - 1))")
	done
	sleep 0.5
	/usr/bin/time -f '%U %S' -o "$tmp/c.time" "$bin" "${run[@]}" -threads "$threads" -target "$target" \
		--agents "$(
			IFS=,
			echo "${list[*]}"
		)" >"$tmp/c.out" 2>&1
	wait "${pids[@]}" 2>/dev/null || true
	pids=()
	sum "$tmp"/a*.time "$tmp/c.time"
}

parts() {
	local i share
	share=$(awk -v t="$target" -v n="$agents" 'BEGIN { printf "%.3f", t / n }')
	local pops=$((ops / agents))
	pids=()
	for i in $(seq "$agents"); do
		/usr/bin/time -f '%U %S' -o "$tmp/p$i.time" "$bin" run null -P workloads/workloada -p operationcount="$pops" --headless \
			-threads "$threads" -target "$share" >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	pids=()
	sum "$tmp"/p*.time
}

one() {
	/usr/bin/time -f '%U %S' -o "$tmp/o.time" "$bin" "${run[@]}" -threads $((threads * agents)) -target "$target" >/dev/null 2>&1
	sum "$tmp/o.time"
}

echo "# $(nproc) CPUs; $agents agents x $threads threads, $target ops/s in all, $ops operations a run; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %10s %10s %10s %11s %12s %10s %6s\n' round fleet-cpu parts-cpu one-cpu fleet/one fleet/parts parts/one load
for r in $(seq "$rounds"); do
	if ((r % 2)); then
		f=$(fleet)
		p=$(parts)
		o=$(one)
	else
		o=$(one)
		p=$(parts)
		f=$(fleet)
	fi
	line=$(awk -v f="$f" -v p="$p" -v o="$o" 'BEGIN { printf "%.3f %.3f %.3f", f / o, f / p, p / o }')
	read -r fo fp po <<<"$line"
	printf '%-5s %10s %10s %10s %11s %12s %10s %6s\n' "$r" "$f" "$p" "$o" "$fo" "$fp" "$po" "$(cut -d' ' -f1 /proc/loadavg)"
	echo "$fo $fp $po" >>"$tmp/rows"
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" <<'EOF'
import statistics, sys
rows = [[float(x) for x in l.split()] for l in open(sys.argv[1])]
for i, label in enumerate(("fleet / one process", "fleet / its parts", "its parts / one process")):
    xs = sorted(r[i] for r in rows)
    print("%-26s median %.3f (%.3f-%.3f, %d rounds)" % (label, statistics.median(xs), xs[0], xs[-1], len(xs)))
EOF
