#!/usr/bin/env bash
# benchtop's redis adapter beside go-ycsb's redis binding on one
# redis-server, YCSB workload A (50 % reads of all fields, 50 % one-field
# updates, zipfian), 16 threads, no target: the client's CPU per
# operation (user+sys of the client process, /usr/bin/time) and the
# server's (utime+stime of redis-server from /proc/PID/stat, read before
# and after each run), as ratios benchtop / go-ycsb measured in the same
# rounds. The tools run in turn (benchtop, go-ycsb, then go-ycsb, benchtop
# ...). With STRICT=1, benchtop with redis.strict=true runs too (its Lua
# update and MULTI/EXEC insert: the load that is not YCSB's); with
# BYNAME=1, benchtop with readallfieldsbyname=true (a read of all fields
# as go-ycsb's: HMGET of the 10 names, where YCSB's Java binding and
# benchtop's default send HGETALL). Prints every run, then the medians and
# min-max of the ratios. Asserts nothing.
#
#   GO_YCSB=/path/to/go-ycsb bash scripts/bench-redis-ycsb.sh [ROUNDS] [OPERATIONS]
#
# go-ycsb is not built here: fetch github.com/pingcap/go-ycsb and, in its
# folder, `go build -o /some/where/go-ycsb ./cmd/go-ycsb` (its go.mod is
# the main module). It starts its own server with .ci/servers/redis.sh on
# BENCH_REDIS_PORT (default 26381) and stops it at the end. Each tool
# loads its own 10,000 records first (go-ycsb's keys are
# usertable/user..., benchtop's usertable:user...). Both read all fields
# of a record in one command (go-ycsb HMGET of the 10 names, benchtop
# HGETALL, as YCSB's Java binding) and update with HSET; the run phase's
# server CPU is compared, not the load's (benchtop pipelines
# redis.batchsize records per round trip there, go-ycsb sends them one by
# one).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
ops=${2:-200000}
goycsb=${GO_YCSB:-}
port=${BENCH_REDIS_PORT:-26381}
threads=16
records=10000
if [[ -z $goycsb || ! -x $goycsb ]]; then
	echo "bench-redis-ycsb.sh: set GO_YCSB to a go-ycsb binary (see the header for how to build one)" >&2
	exit 2
fi
for tool in redis-server /usr/bin/time python3; do
	command -v "$tool" >/dev/null || {
		echo "bench-redis-ycsb.sh: $tool is missing" >&2
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
srvpid=$(cat "${TMPDIR:-/tmp}/benchtop-redis-$port/redis.pid")
tck=$(getconf CLK_TCK)

common=(-P workloads/workloada -p recordcount="$records" -p redis.addr="$addr")
"$tmp/benchtop" load redis "${common[@]}" -threads 4 --headless >/dev/null 2>&1
"$goycsb" load redis "${common[@]}" -p threadcount=4 >/dev/null 2>&1
echo "# $(redis-server --version | cut -d' ' -f1-3), $(redis-cli -p "$port" dbsize) keys; $threads threads, $ops operations a run; $(nproc) CPUs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

srv_ticks() { awk '{ print $14 + $15 }' "/proc/$srvpid/stat"; }

# run TOOL: one run phase; prints "client_us_per_op server_us_per_op".
run() {
	local cmd
	case $1 in
	benchtop) cmd=("$tmp/benchtop" run redis "${common[@]}" -p operationcount="$ops" -threads $threads --headless) ;;
	strict) cmd=("$tmp/benchtop" run redis "${common[@]}" -p operationcount="$ops" -p redis.strict=true -threads $threads --headless) ;;
	byname) cmd=("$tmp/benchtop" run redis "${common[@]}" -p operationcount="$ops" -p readallfieldsbyname=true -threads $threads --headless) ;;
	goycsb) cmd=("$goycsb" run redis "${common[@]}" -p operationcount="$ops" -p threadcount=$threads) ;;
	esac
	local s0 s1
	s0=$(srv_ticks)
	/usr/bin/time -f '%U %S' -o "$tmp/time" "${cmd[@]}" >"$tmp/out" 2>&1
	s1=$(srv_ticks)
	read -r u s <"$tmp/time"
	awk -v u="$u" -v s="$s" -v d=$((s1 - s0)) -v t="$tck" -v n="$ops" \
		'BEGIN { printf "%.2f %.2f\n", (u + s) * 1e6 / n, d / t * 1e6 / n }'
}

tools=(benchtop goycsb)
[[ ${STRICT:-0} == 1 ]] && tools+=(strict)
[[ ${BYNAME:-0} == 1 ]] && tools+=(byname)
printf '%-5s %-9s %14s %14s %6s\n' round tool client-us/op server-us/op load
for r in $(seq "$rounds"); do
	order=("${tools[@]}")
	if ((r % 2 == 0)); then
		order=()
		for ((i = ${#tools[@]} - 1; i >= 0; i--)); do order+=("${tools[i]}"); done
	fi
	for t in "${order[@]}"; do
		read -r c s < <(run "$t")
		printf '%-5s %-9s %14s %14s %6s\n' "$r" "$t" "$c" "$s" "$(cut -d' ' -f1 /proc/loadavg)"
		echo "$r $t $c $s" >>"$tmp/rows"
	done
done
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp/rows" <<'EOF'
import statistics, sys
by = {}
for r, t, c, s in (l.split() for l in open(sys.argv[1])):
    by.setdefault(r, {})[t] = (float(c), float(s))
def line(label, xs):
    xs = sorted(xs)
    print("%-44s median %.3f (%.3f-%.3f, %d rounds)" % (label, statistics.median(xs), xs[0], xs[-1], len(xs)))
names = {"benchtop": "benchtop", "strict": "benchtop redis.strict=true", "byname": "benchtop readallfieldsbyname=true"}
for t in ("benchtop", "strict", "byname"):
    rs = [v for v in by.values() if t in v and "goycsb" in v and v["goycsb"][0] > 0 and v["goycsb"][1] > 0]
    if not rs:
        continue
    name = names[t]
    line("client cpu per op, %s / go-ycsb" % name, [v[t][0] / v["goycsb"][0] for v in rs])
    line("server cpu per op, %s / go-ycsb" % name, [v[t][1] / v["goycsb"][1] for v in rs])
EOF
