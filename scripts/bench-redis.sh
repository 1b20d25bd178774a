#!/usr/bin/env bash
# Client CPU per operation against one redis-server: benchtop's redis
# adapter beside redis-benchmark, for the same single operations (a
# one-field read, HGETALL of a one-field hash, and a one-field write, HSET,
# of 100-byte values), the same number of connections (16), no pipelining,
# uniform keys over 10,000 records. The two tools run alternately, ROUNDS
# times each; each run's client CPU (user+sys of the client process, from
# /usr/bin/time, not wall time) is divided by its operation count. Prints
# every round, then the ratio benchtop/redis-benchmark (median, min-max).
# Asserts nothing.
#
#   bash scripts/bench-redis.sh [ROUNDS] [OPERATIONS] [EXTRA -p FOR BENCHTOP...]
#
# e.g. bash scripts/bench-redis.sh 5 200000 -p redis.client=rueidis
#
# It starts its own server with .ci/servers/redis.sh on
# BENCH_REDIS_PORT (default 26380) and stops it at the end. benchtop runs
# with redis.strict=false, so that an update is a plain HSET as
# redis-benchmark's is (the default, strict, update is a Lua script that
# refuses a missing record).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
ops=${2:-200000}
shift 2 || shift $# || true
extra=("$@")
port=${BENCH_REDIS_PORT:-26380}
conns=16
records=10000
size=100

for tool in redis-benchmark /usr/bin/time; do
	command -v "$tool" >/dev/null || {
		echo "bench-redis.sh: $tool is missing (apt-get install redis-tools time)" >&2
		exit 2
	}
done

tmp=$(mktemp -d)
cleanup() {
	BENCHTOP_REDIS_PORT=$port bash .ci/servers/redis.sh stop 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/benchtop" .
eval "$(BENCHTOP_REDIS_PORT=$port bash .ci/servers/redis.sh start)"
addr=127.0.0.1:$port

bt=("$tmp/benchtop")
common=(-p workload=core -p recordcount="$records" -p fieldcount=1 -p fieldlength="$size"
	-p requestdistribution=uniform -p redis.addr="$addr" -p redis.strict=false "${extra[@]}")
value=$(head -c $size /dev/zero | tr '\0' v)

# benchtop's records (keys usertable:user<hash>) and redis-benchmark's
# (usertable:rb:<12 digits>, 0-9999), each one field of $size bytes.
"${bt[@]}" load redis "${common[@]}" -threads 4 --headless >/dev/null 2>&1
redis-benchmark -p "$port" -c $conns -n $((records * 20)) -r $records -q \
	HSET usertable:rb:__rand_int__ field0 "$value" >/dev/null
keys=$(redis-cli -p "$port" dbsize)
echo "# $(redis-server --version | cut -d' ' -f1-3); $keys keys ($records records each tool), $conns connections, $ops operations a run"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

# cpu_us FILE: the user+sys seconds /usr/bin/time wrote, in µs per operation.
cpu_us() { awk -v n="$ops" '{ printf "%.2f", ($1 + $2) * 1e6 / n }' "$1"; }

run_bench() { # op
	local cmd
	case $1 in
	read) cmd=(HGETALL usertable:rb:__rand_int__) ;;
	update) cmd=(HSET usertable:rb:__rand_int__ field0 "$value") ;;
	esac
	/usr/bin/time -f '%U %S' -o "$tmp/time" redis-benchmark -p "$port" -c $conns -n "$ops" -P 1 \
		-r $records -q "${cmd[@]}" >"$tmp/out" 2>&1
	cpu_us "$tmp/time"
}

run_benchtop() { # op
	local mix
	case $1 in
	read) mix=(-p readproportion=1 -p updateproportion=0) ;;
	update) mix=(-p readproportion=0 -p updateproportion=1) ;;
	esac
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${bt[@]}" run redis "${common[@]}" "${mix[@]}" \
		-p operationcount="$ops" -threads $conns --headless >"$tmp/out" 2>&1
	if ! grep -q "Return=OK, $ops\$" "$tmp/out"; then
		echo "bench-redis.sh: benchtop did not complete $ops operations:" >&2
		grep -E 'Return=|error' "$tmp/out" >&2 || tail -5 "$tmp/out" >&2
		exit 1
	fi
	cpu_us "$tmp/time"
}

printf '%-7s %5s %22s %16s %8s\n' op round redis-benchmark-us/op benchtop-us/op ratio
for op in read update; do
	: >"$tmp/ratios-$op"
	for i in $(seq "$rounds"); do
		# Alternate which tool goes first, so that neither always runs on
		# a machine the other has just warmed (or loaded).
		if ((i % 2)); then
			rb=$(run_bench $op)
			bo=$(run_benchtop $op)
		else
			bo=$(run_benchtop $op)
			rb=$(run_bench $op)
		fi
		r=$(awk -v a="$bo" -v b="$rb" 'BEGIN { printf "%.3f", a / b }')
		echo "$r $rb $bo" >>"$tmp/ratios-$op"
		printf '%-7s %5s %22s %16s %8s\n' $op "$i" "$rb" "$bo" "$r"
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for op in read update; do
	sort -n "$tmp/ratios-$op" | awk -v op=$op '
		{ r[NR] = $1; rb += $2; bo += $3 }
		END {
			m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
			printf "%-7s ratio benchtop/redis-benchmark: median %.3f (%.3f-%.3f over %d rounds); mean us/op %.2f vs %.2f\n",
				op, m, r[1], r[NR], NR, bo / NR, rb / NR
		}'
done
