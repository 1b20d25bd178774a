#!/usr/bin/env bash
# Resident memory of a long headless run, sampled from /proc/PID/status
# (VmRSS) every INTERVAL seconds: one line per sample, then the spread of
# the samples after the first minute (which the memory-flatness claim in
# docs/performance.md is about). Prints figures; asserts nothing.
#
#   bash scripts/rss-series.sh [INTERVAL] [-- BENCHTOP ARGS...]
#
# The default run is the 10-minute one of docs/performance.md: workload A on the
# memory store, 100,000 records, 8 threads at 50,000 ops/s.
set -euo pipefail
cd "$(dirname "$0")/.."
interval=${1:-30}
shift || true
[[ ${1:-} == -- ]] && shift
args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
	args=(run memory -P workloads/workloada -p recordcount=100000 -p operationcount=0
		-p maxexecutiontime=600 -threads 8 -target 50000 --headless)
fi
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
go build -o "$tmp/benchtop" .
echo "# benchtop ${args[*]}"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/benchtop" "${args[@]}" >"$tmp/out.txt" 2>"$tmp/err.txt" </dev/null &
pid=$!
start=$(date +%s)
samples=()
echo "elapsed_s rss_mb"
while kill -0 "$pid" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
	[[ -n $rss ]] || break
	t=$(($(date +%s) - start))
	mb=$((rss / 1024))
	echo "$t $mb"
	[[ $t -ge 60 ]] && samples+=("$mb")
	for _ in $(seq "$interval"); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 1
	done
done
wait "$pid" || echo "# exit status $?"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
grep '^\[OVERALL\], Throughput' "$tmp/out.txt" | sed 's/^/# /' || true
if [[ ${#samples[@]} -gt 0 ]]; then
	printf '%s\n' "${samples[@]}" | awk '
		NR == 1 { min = $1; max = $1 }
		{ if ($1 < min) min = $1; if ($1 > max) max = $1; sum += $1 }
		END {
			mean = sum / NR
			printf "# after the first minute: %d samples, min %d MB, max %d MB, mean %.0f MB, spread %+.1f%% / %+.1f%% of the mean\n",
				NR, min, max, mean, (min - mean) / mean * 100, (max - mean) / mean * 100
		}'
fi
