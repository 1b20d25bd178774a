#!/usr/bin/env bash
# Measures what the live metrics cost a run: the process's CPU (user+sys,
# from /usr/bin/time) of a paced run on the memory store with --metrics
# scraped every second by a real Prometheus and --metrics-push to it,
# against the same run without, alternating (so that machine drift hits
# both alike). Prints each round's figures and the ratios' median and
# range; asserts nothing. Starts its own Prometheus
# (.ci/servers/prometheus.sh) on PORT (default 9090) scraping
# 127.0.0.1:PORT+374, and stops it at the end.
#
#   bash scripts/bench-metrics.sh [ROUNDS] [SECONDS] [PORT]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
secs=${2:-8}
port=${3:-9090}
target=127.0.0.1:$((port + 374))
tmp=$(mktemp -d)
export BENCHTOP_PROMETHEUS_PORT=$port BENCHTOP_PROMETHEUS_TARGET=$target
trap 'bash .ci/servers/prometheus.sh stop >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
eval "$(bash .ci/servers/prometheus.sh start)"
go build -o "$tmp/benchtop" .
args=(run memory -P workloads/workloada -p recordcount=10000 -p operationcount=0 -threads 2 -target 20000
	--duration "${secs}s" --headless)
with=(--metrics "$target" --metrics-linger 0s --metrics-push "$BENCHTOP_PROMETHEUS_URL/api/v1/write" --metrics-run bench)

cpu() { # cpu seconds of one run of benchtop with "$@"
	/usr/bin/time -f '%U %S' -o "$tmp/t" "$tmp/benchtop" "${args[@]}" "$@" >/dev/null 2>&1
	awk '{ printf "%.3f", $1 + $2 }' "$tmp/t"
}

ratios=()
for i in $(seq "$rounds"); do
	a=$(cpu "${with[@]}")
	b=$(cpu)
	r=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
	ratios+=("$r")
	echo "round $i: with metrics ${a}s, without ${b}s: ratio $r (load $(cut -d' ' -f1 /proc/loadavg))"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
	m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
	printf "CPU with metrics / without: median %.3f (%.3f-%.3f) over %d rounds\n", m, v[1], v[NR], NR }'
