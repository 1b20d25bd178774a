#!/usr/bin/env bash
# The lab test (scripts/netlab.sh): two client machines at a shaped rate.
#
#   bash .ci/netlab-test.sh BENCHTOP_BINARY
#
# 1. netlab.sh up 2 RATE: two namespaces, tbf qdiscs on both ends of each
#    veth pair.
# 2. A raw TCP transfer from machine 1 to the root side (bash /dev/tcp into
#    a Python sink): its rate is within ±15 % of RATE.
# 3. Redis Streams on the lab's server address (10.77.0.1, not 0.0.0.0):
#    a stream run from machine 1 alone, whose NIC (its eth0 counters, each
#    way) carries RATE within ±15 %; then from both machines at once, which
#    carry at least 1.6x one machine's rows/s. Machine 1 alone warns
#    "client NIC saturated" (host.nicspeed=RATE). No run loses, duplicates
#    or reorders a row.
# 4. netlab.sh down: no namespace, bridge or veth is left.
# 5. scripts/reproduce-tunnel.sh, shortened (Redis, one machine at 4
#    partitions, one fleet run of both at 8, 6 s each): its table has both
#    rows, every row delivered once, and its lab is gone afterwards.
#
# The lab's names, network and every port are the scripts' environment
# overrides, not their defaults (NETLAB_PREFIX=btci-, NETLAB_NET=10.78.0,
# NETLAB_TEST_* below), so that the overrides are what CI runs, and a lab
# of one's own on the box is left alone.
#
# RATE is 20mbit (NETLAB_TEST_RATE): at 100mbit two machines would need
# ~70,000 rows/s of Redis Streams, which a 2-core box running Redis and two
# benchtops cannot do, and the test would measure the CPU, not the NIC.
# Root only; elsewhere it skips with a line saying why. Takes ~80 s.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(realpath "${1:?usage: $0 BENCHTOP_BINARY}")
RATE=${NETLAB_TEST_RATE:-20mbit}
PORT=${NETLAB_TEST_REDIS_PORT:-7079}
export NETLAB_PREFIX=${NETLAB_TEST_PREFIX:-btci-}
export NETLAB_NET=${NETLAB_TEST_NET:-10.78.0}
TUNNEL_REDIS=${NETLAB_TEST_TUNNEL_REDIS_PORT:-7189}
TUNNEL_AGENTS=${NETLAB_TEST_TUNNEL_AGENT_PORT:-7190}
M=${NETLAB_PREFIX}m   # machine N's namespace: ${M}N
V=${NETLAB_PREFIX}v   # the root side of its veth pair: ${V}N
BR=${NETLAB_PREFIX}br0
# 15 s runs: the saturation warning needs 3 intervals in a row above 90 %
# of the link, and a shaped link at 96 % on average dips below 90 % now
# and then; in 10 s runs it was said for only 4 intervals in 2 of 3 runs,
# and once not at all (CI).
SECS=${NETLAB_TEST_SECONDS:-15}
say() { echo "netlab-test: $*"; }
fail() {
	say "FAIL: $*"
	exit 1
}

if [[ $(id -u) -ne 0 ]]; then
	say "skipped: the lab needs root (network namespaces, veth pairs, tc)"
	exit 0
fi
if ! ip netns list >/dev/null 2>&1; then
	say "skipped: network namespaces are not available here"
	exit 0
fi
command -v redis-server >/dev/null || fail "redis-server is missing (bash .ci/servers/redis.sh start installs it)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-netlab-test.XXXXXX")
REDIS_PID=
cleanup() {
	[[ -n $REDIS_PID ]] && kill "$REDIS_PID" 2>/dev/null
	scripts/netlab.sh down >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

eval "$(scripts/netlab.sh up 2 "$RATE")"
rate_bps=$(awk -v r="$RATE" 'BEGIN { n = r + 0; u = substr(r, length(r) - 3); m = (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : 1e9; print n * m / 8 }')

# 1. The namespaces and their qdiscs.
[[ $(ip netns list | grep -c "^${M}[12] ") -eq 2 ]] || fail "want namespaces ${M}1 and ${M}2: $(ip netns list | tr '\n' ' ')"
for n in 1 2; do
	tc qdisc show dev "$V$n" | grep -q 'tbf.*rate' || fail "no tbf qdisc on $V$n"
	ip netns exec "$M$n" tc qdisc show dev eth0 | grep -q 'tbf.*rate' || fail "no tbf qdisc on $M$n's eth0"
done
say "2 machines up at $RATE, tbf on both ends of each veth pair"

# 2. A raw transfer: 4 s worth of bytes from machine 1 to the root side.
cat >"$WORK/sink.py" <<'EOF'
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1)
open(sys.argv[3], "w").close()  # listening
c, _ = s.accept()
n, t0 = 0, None
while True:
    b = c.recv(1 << 20)
    if not b:
        break
    if t0 is None:
        t0 = time.monotonic()
    n += len(b)
print(n, time.monotonic() - t0)
EOF
python3 "$WORK/sink.py" "$BENCHTOP_LAB_SERVER" "$PORT" "$WORK/sink.ready" >"$WORK/sink.out" &
sink=$!
for _ in $(seq 100); do [[ -e $WORK/sink.ready ]] && break; sleep 0.1; done
bytes=$(awk -v b="$rate_bps" 'BEGIN { printf "%.0f", b * 4 }')
ip netns exec "${M}1" bash -c "exec 3>/dev/tcp/$BENCHTOP_LAB_SERVER/$PORT; head -c $bytes /dev/zero >&3"
wait "$sink"
read -r got secs <"$WORK/sink.out"
raw=$(awk -v n="$got" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
say "raw TCP from ${M}1: $got bytes in ${secs}s = $(awk -v r="$raw" 'BEGIN { printf "%.2f", r / 1e6 }') MB/s (shaped: $(awk -v r="$rate_bps" 'BEGIN { printf "%.2f", r / 1e6 }') MB/s)"
awk -v r="$raw" -v b="$rate_bps" 'BEGIN { exit !(r >= 0.85 * b && r <= 1.15 * b) }' || fail "raw transfer rate $raw B/s is not within 15 % of $rate_bps B/s"

# 3. Redis Streams on the lab address.
redis-server --bind "$BENCHTOP_LAB_SERVER" --port "$PORT" --save "" --appendonly no --daemonize no \
	--dir "$WORK" --protected-mode no --set-proc-title no >"$WORK/redis.log" 2>&1 &
REDIS_PID=$!
for _ in $(seq 50); do (exec 3<>"/dev/tcp/$BENCHTOP_LAB_SERVER/$PORT") 2>/dev/null && break; sleep 0.1; done

# run_on N OUT: a stream run on machine N, writing OUT.json and eth0's byte
# counters over the run's middle third to OUT.nic: its steady rate, the
# process's start-up (slow on a loaded machine) and drain apart.
run_on() {
	local ns=$M$1 out=$2 pid third
	third=$(awk -v s="$SECS" 'BEGIN { print s / 3 }')
	ip netns exec "$ns" "$BIN" run redis -P workloads/stream-tunnel -p "redis.addr=$BENCHTOP_LAB_SERVER:$PORT" \
		-p "host.nicspeed=$BENCHTOP_LAB_NICSPEED" -p partitions=8 -threads 4 -p "maxexecutiontime=$SECS" \
		--headless -s --json "$out.json" >"$out.log" 2>&1 &
	pid=$!
	sleep "$third"
	nic_sample "$ns" >"$out.nic"
	sleep "$third"
	nic_sample "$ns" >>"$out.nic"
	wait "$pid" || { tail -n 20 "$out.log"; fail "the stream run on $ns failed"; }
}
# nic_sample NS: eth0's rx and tx bytes in NS and the time, a line each.
nic_sample() {
	ip netns exec "$1" cat /sys/class/net/eth0/statistics/rx_bytes /sys/class/net/eth0/statistics/tx_bytes
	date +%s.%N
}
field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stream'][sys.argv[2]])" "$1" "$2"; }
# crowded F: the run of F.json had the client host's CPU at 90 % or more
# (the screen's "client CPU saturated") in a segment: other processes
# took the cores the client needed, so its NIC cannot be judged full.
crowded() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if max([s.get('cpu_percent') or 0 for s in d['segments']] + [d.get('mean_client_cpu_percent') or 0]) >= 90 else 1)" "$1"
}
check_clean() {
	local f=$1
	for k in lost duplicated out_of_order; do
		[[ $(field "$f" "$k") == 0 ]] || fail "$f: $k = $(field "$f" "$k"), want 0"
	done
}

run_on 1 "$WORK/one"
check_clean "$WORK/one.json"
one=$(field "$WORK/one.json" rows_per_sec_stable)
read -r rx tx <<<"$(awk 'NR==1{r0=$1} NR==2{t0=$1} NR==3{s0=$1} NR==4{r1=$1} NR==5{t1=$1} NR==6{s1=$1} END { printf "%.0f %.0f", (r1-r0)/(s1-s0), (t1-t0)/(s1-s0) }' "$WORK/one.nic")"
busier=$((rx > tx ? rx : tx))
say "one machine: $(printf %.0f "$one") rows/s stable, $(field "$WORK/one.json" mb_per_sec | cut -c1-4) MB/s of rows; eth0 rx $rx B/s, tx $tx B/s (the run's middle third)"
if ! awk -v r="$busier" -v b="$rate_bps" 'BEGIN { exit !(r >= 0.85 * b && r <= 1.15 * b) }' && crowded "$WORK/one.json"; then
	say "one machine's NIC carried $busier B/s of the shaped $rate_bps B/s with the host's CPU at 90 % or more: too crowded to fill the link; its NIC checks skipped"
	one_crowded=1
else
	awk -v r="$busier" -v b="$rate_bps" 'BEGIN { exit !(r >= 0.85 * b && r <= 1.15 * b) }' ||
		fail "one machine's NIC carried $busier B/s, not within 15 % of the shaped $rate_bps B/s"
	grep -q "client NIC saturated: eth0 .* of its $(awk -v r="$rate_bps" 'BEGIN { printf "%d", r * 8 / 1e6 }') Mbit/s link" "$WORK/one.log" ||
		fail "one machine's status lines never said its NIC was saturated (host.nicspeed=$RATE)"
	say "one machine: $(grep -o 'client NIC saturated[^]]*' "$WORK/one.log" | tail -n 1)"
fi

run_on 1 "$WORK/two-1" &
p1=$!
run_on 2 "$WORK/two-2" &
p2=$!
wait "$p1" || fail "machine 1's run failed"
wait "$p2" || fail "machine 2's run failed"
check_clean "$WORK/two-1.json"
check_clean "$WORK/two-2.json"
two=$(awk -v a="$(field "$WORK/two-1.json" rows_per_sec_stable)" -v b="$(field "$WORK/two-2.json" rows_per_sec_stable)" 'BEGIN { print a + b }')
say "two machines: $(printf %.0f "$two") rows/s stable together ($(awk -v a="$two" -v b="$one" 'BEGIN { printf "%.2f", a / b }')x one machine)"
if awk -v a="$two" -v b="$one" 'BEGIN { exit !(a >= 1.6 * b) }'; then
	:
elif [[ -n ${one_crowded:-} ]] || crowded "$WORK/two-1.json" || crowded "$WORK/two-2.json"; then
	say "two machines carried $two rows/s against one machine's $one with the host's CPU at 90 % or more: too crowded to compare; skipped"
else
	fail "two machines carried $two rows/s, less than 1.6x one machine's $one"
fi

# 4. Down, and nothing left.
kill "$REDIS_PID" 2>/dev/null
wait "$REDIS_PID" 2>/dev/null || true
REDIS_PID=
scripts/netlab.sh down
left=$( (ip netns list | grep "^$M"; ip -o link show | grep -E "$BR|$V[0-9]") || true)
[[ -z $left ]] || fail "left behind after down: $left"
say "ok: nothing left after down"

# 5. The reproduction, shortened, on ports and a lab of the overrides.
TUNNEL_SERVERS=redis TUNNEL_RATE=$RATE TUNNEL_STEP=6 TUNNEL_WARMUP=0 TUNNEL_PARTITIONS=4 TUNNEL_FLEET_PARTITIONS=8 \
	TUNNEL_REDIS_PORT=$TUNNEL_REDIS TUNNEL_AGENT_PORT=$TUNNEL_AGENTS TUNNEL_OUT="$WORK/tunnel" BENCHTOP=$BIN \
	scripts/reproduce-tunnel.sh >"$WORK/tunnel.txt" 2>"$WORK/tunnel.err" || { tail -n 20 "$WORK/tunnel.err"; fail "reproduce-tunnel.sh failed"; }
grep -qE '^redis +1 +4 ' "$WORK/tunnel.txt" && grep -qE '^redis +2 +8 ' "$WORK/tunnel.txt" ||
	fail "reproduce-tunnel.sh's table lacks a row: $(cat "$WORK/tunnel.txt")"
! grep -q 'LOST/DUP/ORDER' "$WORK/tunnel.txt" || fail "reproduce-tunnel.sh lost, duplicated or reordered rows: $(cat "$WORK/tunnel.txt")"
grep -q "redis.addr=$BENCHTOP_LAB_SERVER:$TUNNEL_REDIS" "$WORK/tunnel/redis-1m-4.log" ||
	fail "reproduce-tunnel.sh did not run on TUNNEL_REDIS_PORT=$TUNNEL_REDIS"
left=$( (ip netns list | grep "^$M"; ip -o link show | grep -E "$BR|$V[0-9]") || true)
[[ -z $left ]] || fail "left behind after reproduce-tunnel.sh: $left"
say "reproduce-tunnel.sh on Redis $BENCHTOP_LAB_SERVER:$TUNNEL_REDIS, agents on port $TUNNEL_AGENTS:"
sed 's/^/  /' "$WORK/tunnel.txt"
