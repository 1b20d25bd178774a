#!/usr/bin/env bash
# Many threads without distortion: the same target on the embedded store
# with 8, 1024 and 4096 threads; prints achieved ops/s, intended and
# service p99, the client's own CPU per operation (utime+stime of the
# process over its operations) and the most OS threads the process had
# (Threads: in /proc/PID/status, polled every 0.2 s). With ROUNDS > 1 the
# thread counts alternate, round after round. Asserts nothing.
#
#   bash scripts/bench-threads.sh [TARGET] [SECONDS] [THREADS...]
#   ROUNDS=3 BENCHTOP=/path/to/benchtop bash scripts/bench-threads.sh ...   (another build, for A/B)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-100000}
secs=${2:-20}
shift 2 || true
threads=("${@:-8 1024 4096}")
rounds=${ROUNDS:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=${BENCHTOP:-}
if [[ -z $bin ]]; then
	go build -o "$tmp/benchtop" .
	bin=$tmp/benchtop
fi
echo "target $target ops/s, $secs s per run; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%5s %8s %12s %14s %14s %12s %11s %6s\n' round threads ops/s intended-p99 service-p99 cpu-us/op os-threads load
for r in $(seq "$rounds"); do
	for n in ${threads[@]}; do
		/usr/bin/time -f '%U %S' -o "$tmp/time.txt" "$bin" run memory -P workloads/workloada -p recordcount=100000 -p operationcount=0 \
			-p maxexecutiontime="$secs" -threads "$n" -target "$target" --headless >"$tmp/out.txt" 2>/dev/null &
		tpid=$!
		peak=0
		while kill -0 "$tpid" 2>/dev/null; do
			pid=$(pgrep -P "$tpid" | head -1 || true)
			if [[ -n $pid ]]; then
				t=$(sed -n 's/^Threads:\t*//p' "/proc/$pid/status" 2>/dev/null || echo 0)
				((${t:-0} > peak)) && peak=$t
			fi
			sleep 0.2
		done
		wait "$tpid" || true
		read -r u s <"$tmp/time.txt"
		total=$(sed -n 's/^\[READ\], Operations, //p;s/^\[UPDATE\], Operations, //p' "$tmp/out.txt" | paste -sd+ | bc)
		ops=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9.]*\).*/\1/p' "$tmp/out.txt")
		ip99=$(sed -n 's/^\[Intended-READ\], 99thPercentileLatency(us), //p' "$tmp/out.txt")
		sp99=$(sed -n 's/^\[READ\], 99thPercentileLatency(us), //p' "$tmp/out.txt")
		# The load phase (100,000 inserts) is in the CPU figure too; it is the
		# same for every thread count.
		cpu=$(echo "scale=2; ($u + $s) * 1000000 / ${total:-1}" | bc)
		printf '%5s %8s %12.0f %11s us %11s us %12s %11s %6s\n' "$r" "$n" "${ops:-0}" "${ip99:-?}" "${sp99:-?}" "$cpu" "$peak" "$(cut -d' ' -f1 /proc/loadavg)"
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
