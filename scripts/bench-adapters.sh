#!/usr/bin/env bash
# Client cost per operation of the mongodb, dynamodb, influx and hbase
# adapters against their real servers: CPU-microseconds per operation of
# the benchtop process (user + system from /usr/bin/time, GC and the
# drivers' goroutines included) in short headless runs, and allocs/op and
# cpu-us/op per operation type from each adapter's BenchmarkOps. Starts
# each server with its .ci/servers script, one at a time, and stops it
# before the next. Prints figures; asserts nothing.
#
#   bash scripts/bench-adapters.sh [ROUNDS] [ADAPTERS...]   # default 3; mongodb dynamodb influx hbase
#
# A run: workload A (50 % reads of all fields, 50 % one-field updates,
# zipfian) on RECORDS records, 16 threads, OPS operations, after a load
# and a warm-up run (cold servers run 2-3x slower). influx has no key-value
# operations: its run is the timeseries workload (16 writers, batches of
# 5000 points) of TSOPS records, and its benchmarks are one batch write
# (BenchmarkWriteLines, per batch of 5000 lines) and the workload's own
# share of one record (BenchmarkRecord, no server).
#
# Environment: OPS (default 20000), TSOPS (default 1000000), RECORDS
# (default 1000), THREADS (default 16), BENCHTIME (go test -benchtime,
# default 1000x; SCANTIME for scans, default 50x: FerretDB sorts a scan's
# whole collection itself), BIN (a benchtop binary to run instead of this
# tree's; the benchmarks are always this tree's), RUNS=0 or BENCH=0 to
# skip the runs or the benchmarks, and the servers' own port variables
# (BENCHTOP_MONGODB_PORT, BENCHTOP_DYNAMODB_PORT, BENCHTOP_INFLUX_PORT and
# BENCHTOP_INFLUX_RPC, BENCHTOP_HBASE_PORT). Each server is stopped (its
# data removed) when its adapter is done, or when the script ends.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
if (($# > 0)); then
	adapters=("$@")
else
	adapters=(mongodb dynamodb influx hbase)
fi
for a in "${adapters[@]}"; do
	case $a in
	mongodb | dynamodb | influx | hbase) ;;
	*)
		echo "bench-adapters.sh: unknown adapter '$a' (mongodb, dynamodb, influx or hbase)" >&2
		exit 2
		;;
	esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-adapters.sh: ROUNDS must be a number >= 1, not '$rounds'" >&2; exit 2; }
ops=${OPS:-20000}
tsops=${TSOPS:-1000000}
records=${RECORDS:-1000}
threads=${THREADS:-16}
benchtime=${BENCHTIME:-1000x}
scantime=${SCANTIME:-50x}
tmp=$(mktemp -d)
started=()
cleanup() {
	for s in "${started[@]}"; do bash ".ci/servers/$s.sh" stop >/dev/null 2>&1 || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT
if [[ -n ${BIN:-} ]]; then
	cp "$BIN" "$tmp/benchtop" # another build's binary, to compare runs
else
	go build -o "$tmp/benchtop" .
fi

# server NAME: starts .ci/servers/NAME.sh and evaluates its exports.
server() {
	local out
	out=$(bash ".ci/servers/$1.sh" start 2>"$tmp/$1.start.err") || { cat "$tmp/$1.start.err" >&2; return 1; }
	eval "$out"
	started+=("$1")
}
stop() {
	bash ".ci/servers/$1.sh" stop >/dev/null 2>&1 || true
	local s rest=()
	for s in "${started[@]}"; do [[ $s == "$1" ]] || rest+=("$s"); done
	started=("${rest[@]}")
}

rows=()
row() { rows+=("$(printf '%-10s %-24s %-10s %9s %11s  %s' "$@")"); }

# timed ADAPTER OPS ARGS...: one headless run under /usr/bin/time; prints
# "cpu_us_per_op ops_per_sec".
timed() {
	local a=$1 n=$2
	shift 2
	/usr/bin/time -f '%U %S' -o "$tmp/time.txt" "$tmp/benchtop" run "$a" "$@" -threads "$threads" --headless \
		</dev/null >"$tmp/run.txt" 2>&1 || { tail -20 "$tmp/run.txt" >&2; return 1; }
	local user sys tput
	read -r user sys <"$tmp/time.txt"
	tput=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), \([0-9]*\).*/\1/p' "$tmp/run.txt")
	awk -v u="$user" -v s="$sys" -v n="$n" -v t="$tput" 'BEGIN { printf "%.2f %s\n", (u + s) * 1e6 / n, t }'
}

# runs ADAPTER OPS WHAT OP ARGS...: ROUNDS timed runs, one row with their
# spread.
runs() {
	local a=$1 n=$2 what=$3 op=$4
	shift 4
	local cpus=() tputs=() c t
	[[ ${RUNS:-1} != 0 ]] || return 0
	for _ in $(seq "$rounds"); do
		read -r c t < <(timed "$a" "$n" "$@")
		cpus+=("$c")
		tputs+=("$t")
	done
	row "$a" "$what" "$op" - "$(printf '%s\n' "${cpus[@]}" | sort -n | sed -n '1p;$p' | paste -sd- -)" \
		"runs: ${cpus[*]} us/op; ${tputs[*]} ops/s; load $(cut -d' ' -f1 /proc/loadavg)"
}

# benchops PKG NAME PATTERN [BENCHTIME]: go test benchmarks, a row per
# sub-benchmark.
benchops() {
	local pkg=$1 name=$2 pattern=$3 bt=${4:-$benchtime} line op allocs cpu
	[[ ${BENCH:-1} != 0 ]] || return 0
	go test -run x -bench "$pattern" -benchmem -benchtime "$bt" -count 1 "./$pkg/" >"$tmp/bench.txt" 2>&1 ||
		{ tail -20 "$tmp/bench.txt" >&2; return 1; }
	local src=${pattern#^}
	src=${src%%/*}
	src=${src%\$}
	while read -r line; do
		op=$(awk '{ sub(/-[0-9]+$/, "", $1); n = split($1, p, "/"); s = p[n]; sub(/^Benchmark/, "", s); print toupper(s) }' <<<"$line")
		allocs=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "allocs/op") print $(i-1) }' <<<"$line")
		cpu=$(awk '{ for (i = 2; i <= NF; i++) if ($i == "cpu-us/op") print $(i-1) }' <<<"$line")
		row "$name" "$src x1" "$op" "$allocs" "${cpu:--}" "load $(cut -d' ' -f1 /proc/loadavg)"
	done < <(grep '^Benchmark' "$tmp/bench.txt")
}

# core ADAPTER PROPS...: load, warm up, timed runs of workload A.
core() {
	local a=$1
	shift
	[[ ${RUNS:-1} != 0 ]] || return 0
	"$tmp/benchtop" load "$a" -P workloads/workloada -p recordcount="$records" "$@" -threads 8 --headless \
		</dev/null >"$tmp/load.txt" 2>&1 || { tail -20 "$tmp/load.txt" >&2; return 1; }
	"$tmp/benchtop" run "$a" -P workloads/workloada -p recordcount="$records" -p operationcount="$ops" "$@" \
		-threads "$threads" --headless </dev/null >/dev/null 2>&1
	runs "$a" "$ops" "run A x$threads" "A mix" -P workloads/workloada -p recordcount="$records" -p operationcount="$ops" "$@"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores, shared by benchtop and the server"
for a in "${adapters[@]}"; do
	case $a in
	mongodb)
		server mongodb
		core mongodb -p mongodb.url="$BENCHTOP_MONGODB_URL"
		benchops adapters/mongodb mongodb '^BenchmarkOps/(Read|Update|Insert)$'
		benchops adapters/mongodb mongodb '^BenchmarkOps/Scan$' "$scantime"
		stop mongodb
		;;
	dynamodb)
		server dynamodb
		core dynamodb -p dynamodb.endpoint="$BENCHTOP_DYNAMODB_ENDPOINT"
		benchops adapters/dynamodb dynamodb '^BenchmarkOps/(Read|Update|Insert)$'
		benchops adapters/dynamodb dynamodb '^BenchmarkOps/Scan$' "$scantime"
		stop dynamodb
		;;
	influx)
		server influx
		ts=(-p workload=timeseries -p operationcount="$tsops" -p influx.url="$BENCHTOP_INFLUX_URL")
		[[ ${RUNS:-1} == 0 ]] || "$tmp/benchtop" run influx "${ts[@]}" -threads "$threads" --headless </dev/null >/dev/null 2>&1
		runs influx "$tsops" "run timeseries x$threads" RECORD "${ts[@]}"
		benchops adapters/influx influx ^BenchmarkWriteLines
		benchops workload/timeseries timeseries ^BenchmarkRecord
		stop influx
		;;
	hbase)
		server hbase
		core hbase -p hbase.thrift.addr="$BENCHTOP_HBASE_THRIFT" -p columnfamily=family
		benchops adapters/hbase hbase '^BenchmarkOps/(Read|Update|Insert)$'
		benchops adapters/hbase hbase '^BenchmarkOps/Scan$' "$scantime"
		stop hbase
		;;
	*)
		echo "bench-adapters.sh: unknown adapter '$a' (mongodb, dynamodb, influx or hbase)" >&2
		exit 2
		;;
	esac
done
printf '%-10s %-24s %-10s %9s %11s  %s\n' adapter source op allocs/op cpu_us/op notes
printf '%s\n' "${rows[@]}"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
