#!/usr/bin/env bash
# reproduce-tunnel.sh: the Tablestore tunnel benchmark's curve on one box.
#
#   sudo scripts/reproduce-tunnel.sh            # 100mbit lab, Redis Streams and Kafka
#   sudo TUNNEL_RATE=1gbit TUNNEL_SERVERS=kafka scripts/reproduce-tunnel.sh
#
# The published lesson: rows/s grows with partitions until the client
# machine's NIC saturates (one machine, 64 partitions); then a second
# client machine doubles it (two machines, 64 and 128 partitions). Here the
# client machines are network namespaces of scripts/netlab.sh with their
# links shaped to TUNNEL_RATE (default 100mbit: 2 cores cannot push 1 Gbit/s
# of rows through a real server), the stream servers run outside them on
# the lab's server address, and every scenario is a benchtop run of
# workloads/stream-tunnel:
#
#   one machine:  partitions 1, 4, 8, 32, 64
#   two machines: partitions 64 and 128
#
# With one machine it runs, inside the namespace,
#   benchtop run SERVER -P workloads/stream-tunnel -p host.nicspeed=RATE -p partitions=P ...
# With two, netlab starts an agent of this benchtop in each namespace and
# the script runs one fleet run from the root namespace:
#   benchtop run SERVER ... -p partitions=P --agents M1:PORT,M2:PORT --token-file F
# which divides the P partitions between the agents (each produces and
# consumes P/2 of a stream of its own) and merges their figures: the
# fleet's rows/s, MB/s, CPU and memory are the agents' sums, its verdict
# (lost, duplicated, out of order) over every row. A benchtop without
# agents falls back to two independent runs at once, one per machine with
# half the partitions each, figures added; the table's note says which.
#
# It prints the table (scenario, machines, partitions, stable rows/s, peak
# rows/s, ms per 1,000 rows, client CPU cores, memory, MB/s of rows) plus
# three columns that say what set the limit: the busier direction of the
# machines' NICs (from their eth0 counters, in the steady part of each run)
# against the link, the stream server's CPU (from /proc), and the whole
# box's CPU (benchtop's host sample).
#
# Environment: TUNNEL_RATE (100mbit), TUNNEL_STEP (seconds per scenario,
# 12), TUNNEL_SERVERS ("redis kafka"), TUNNEL_THREADS (producer threads per
# machine, 4), TUNNEL_PARTITIONS (one machine's scenarios, "1 4 8 32 64"),
# TUNNEL_FLEET_PARTITIONS (two machines', "64 128"), TUNNEL_WARMUP (the
# warm-up run's seconds, 8; 0: none), BENCHTOP (the binary; default: built
# from this checkout), TUNNEL_OUT (where the JSON and logs stay; default a
# temporary folder, removed). Ports and addresses: TUNNEL_REDIS_PORT
# (7179), TUNNEL_KAFKA_PORT (9192; its controller the next one),
# TUNNEL_AGENT_PORT (the lab agents', 7170); the lab's network, names and
# state are netlab.sh's NETLAB_NET (10.77.0), NETLAB_PREFIX (benchtop-) and
# NETLAB_STATE. The defaults collide with none of the CI servers
# (.ci/servers/*.sh; .ci/netlab-test.sh's Redis is on 7079), so a second
# user on the box sets their own ports, NETLAB_NET and NETLAB_PREFIX.
# Root only (the lab). Takes about (5 + 2) x TUNNEL_STEP + 30 s per server.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RATE=${TUNNEL_RATE:-100mbit}
STEP=${TUNNEL_STEP:-12}
SERVERS=${TUNNEL_SERVERS:-redis kafka}
THREADS=${TUNNEL_THREADS:-4}
ONE_PARTS=${TUNNEL_PARTITIONS:-1 4 8 32 64}
TWO_PARTS=${TUNNEL_FLEET_PARTITIONS-64 128}
WARMUP=${TUNNEL_WARMUP:-8}
REDIS_PORT=${TUNNEL_REDIS_PORT:-7179}
KAFKA_PORT=${TUNNEL_KAFKA_PORT:-9192}
export NETLAB_AGENT_PORT=${TUNNEL_AGENT_PORT:-${NETLAB_AGENT_PORT:-7170}}
say() { echo "reproduce-tunnel: $*" >&2; }
die() {
	say "$*"
	exit 1
}

[[ $(id -u) -eq 0 ]] || die "needs root: the client machines are network namespaces (scripts/netlab.sh); run it with sudo"
[[ $STEP =~ ^[0-9]+$ ]] && ((STEP >= 6)) || die "TUNNEL_STEP must be a whole number of seconds, at least 6, not '$STEP'"
for s in $SERVERS; do
	[[ $s == redis || $s == kafka ]] || die "TUNNEL_SERVERS lists redis and kafka, not '$s'"
done
for p in $ONE_PARTS $TWO_PARTS; do
	[[ $p =~ ^[0-9]+$ ]] && ((p >= 1 && p <= 1024)) || die "TUNNEL_PARTITIONS and TUNNEL_FLEET_PARTITIONS list partition counts from 1 to 1024, not '$p'"
done
for p in $TWO_PARTS; do
	((p >= 2)) || die "TUNNEL_FLEET_PARTITIONS: $p partitions cannot be divided between two machines"
done
[[ $WARMUP =~ ^[0-9]+$ ]] && ((WARMUP == 0 || WARMUP >= 6)) || die "TUNNEL_WARMUP must be 0 (no warm-up) or a whole number of seconds, at least 6, not '$WARMUP'"
for v in REDIS_PORT KAFKA_PORT NETLAB_AGENT_PORT; do
	[[ ${!v} =~ ^[0-9]+$ ]] && ((${!v} >= 1 && ${!v} <= 65534)) || die "TUNNEL_${v%_PORT}_PORT must be a port number, not '${!v}'"
done

WORK=${TUNNEL_OUT:-}
KEEP=1
if [[ -z $WORK ]]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-tunnel.XXXXXX")
	KEEP=
fi
mkdir -p "$WORK"
REDIS_PID=
KAFKA_UP=
cleanup() {
	[[ -n $REDIS_PID ]] && kill "$REDIS_PID" 2>/dev/null
	[[ -n $KAFKA_UP ]] && BENCHTOP_KAFKA_PORT=$KAFKA_PORT bash .ci/servers/kafka.sh stop >/dev/null 2>&1
	scripts/netlab.sh down >/dev/null 2>&1 || true
	[[ -n $KEEP ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

BIN=${BENCHTOP:-}
if [[ -z $BIN ]]; then
	say "building benchtop"
	go build -o "$WORK/benchtop" . || die "go build failed"
	BIN=$WORK/benchtop
fi
BIN=$(realpath "$BIN")

# The lab's agents run this build (netlab.sh starts BENCHTOP).
eval "$(BENCHTOP=$BIN scripts/netlab.sh up 2 "$RATE" --agents)"
SERVER_ADDR=$BENCHTOP_LAB_SERVER
IFS=, read -r M1 M2 _ <<<"$BENCHTOP_LAB_MACHINES" # the two machines' namespaces
LINK=$(awk -v r="$RATE" 'BEGIN { n = r + 0; u = substr(r, length(r) - 3); m = (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : 1e9; print n * m / 8 }')
FLEET=
if [[ -n ${BENCHTOP_LAB_AGENTS:-} ]] && "$BIN" run --help 2>&1 | grep -q -- '--agents'; then
	FLEET=1
fi

start_servers() {
	local s
	for s in $SERVERS; do
		case $s in
		redis)
			command -v redis-server >/dev/null || die "redis-server is missing (bash .ci/servers/redis.sh start installs it)"
			redis-server --bind "$SERVER_ADDR" --port "$REDIS_PORT" --save "" --appendonly no --daemonize no \
				--dir "$WORK" --protected-mode no --set-proc-title no >"$WORK/redis.log" 2>&1 &
			REDIS_PID=$!
			;;
		kafka)
			say "starting Kafka on $SERVER_ADDR:$KAFKA_PORT"
			BENCHTOP_KAFKA_HOST=$SERVER_ADDR BENCHTOP_KAFKA_PORT=$KAFKA_PORT bash .ci/servers/kafka.sh start >/dev/null
			KAFKA_UP=1
			;;
		esac
	done
}

# props SERVER: the adapter's address properties.
props() {
	case $1 in
	redis) echo "-p redis.addr=$SERVER_ADDR:$REDIS_PORT" ;;
	kafka) echo "-p kafka.brokers=$SERVER_ADDR:$KAFKA_PORT" ;;
	esac
}

# counters NS: "rx tx seconds" of NS's eth0 now.
counters() {
	echo "$(ip netns exec "$1" cat /sys/class/net/eth0/statistics/rx_bytes) $(ip netns exec "$1" cat /sys/class/net/eth0/statistics/tx_bytes) $(date +%s.%N)"
}

# server_pid SERVER: the stream server's pid.
server_pid() {
	case $1 in
	redis) echo "$REDIS_PID" ;;
	kafka) head -n 1 "${TMPDIR:-/tmp}/benchtop-kafka-$KAFKA_PORT/kafka.pid" ;;
	esac
}

# cpu_secs PID: the CPU seconds PID used so far (user + system).
cpu_secs() {
	awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13) / hz }' "/proc/$1/stat"
}

# nic_rate BEFORE AFTER: the busier direction in bytes/s.
nic_rate() {
	awk -v a="$1" -v b="$2" 'BEGIN { split(a, x); split(b, y); r = (y[1] - x[1]) / (y[3] - x[3]); t = (y[2] - x[2]) / (y[3] - x[3]); printf "%.0f", (r > t ? r : t) }'
}

# run_one SERVER N P OUT [SECS]: one benchtop on machine N (1 or 2) with P
# partitions; OUT.json, OUT.log, and OUT.nic (its NIC's steady rate).
run_one() {
	local server=$1 ns=$M1 p=$3 out=$4 secs=${5:-$STEP} pid c0 c1 spid s0 s1
	[[ $2 == 2 ]] && ns=$M2
	# shellcheck disable=SC2046
	ip netns exec "$ns" "$BIN" run "$server" -P workloads/stream-tunnel $(props "$server") \
		-p "host.nicspeed=$RATE" -p "partitions=$p" -threads "$THREADS" -p "maxexecutiontime=$secs" \
		--headless -s --json "$out.json" >"$out.log" 2>&1 &
	pid=$!
	spid=$(server_pid "$server")
	sleep 3
	c0=$(counters "$ns")
	s0=$(cpu_secs "$spid")
	sleep $((secs - 4))
	c1=$(counters "$ns")
	s1=$(cpu_secs "$spid")
	awk -v a="$s0" -v b="$s1" -v t0="${c0##* }" -v t1="${c1##* }" 'BEGIN { printf "%.2f", (b - a) / (t1 - t0) }' >"$out.srv"
	wait "$pid" || { tail -n 15 "$out.log" >&2; die "the run on $ns ($server, $p partitions) failed; log $out.log"; }
	nic_rate "$c0" "$c1" >"$out.nic"
}

# run_fleet SERVER P OUT: one fleet run from the root namespace, the two
# lab agents (one per machine) dividing the P partitions between them
# (each agent a stream of its own with P/2); OUT.json, OUT.log, OUT.nic
# (the busier machine's NIC, steady part) and OUT.srv (server CPU).
run_fleet() {
	local server=$1 p=$2 out=$3 pid a0 a1 b0 b1 spid s0 s1 na nb
	# shellcheck disable=SC2046
	"$BIN" run "$server" -P workloads/stream-tunnel $(props "$server") -p "host.nicspeed=$RATE" -p "partitions=$p" \
		-threads "$THREADS" -p "maxexecutiontime=$STEP" --agents "$BENCHTOP_LAB_AGENTS" \
		--token-file "$BENCHTOP_LAB_TOKEN_FILE" --headless -s --json "$out.json" >"$out.log" 2>&1 &
	pid=$!
	spid=$(server_pid "$server")
	sleep 4 # the agents' handshake, then the start-up
	a0=$(counters "$M1")
	b0=$(counters "$M2")
	s0=$(cpu_secs "$spid")
	sleep $((STEP - 4))
	a1=$(counters "$M1")
	b1=$(counters "$M2")
	s1=$(cpu_secs "$spid")
	awk -v a="$s0" -v b="$s1" -v t0="${a0##* }" -v t1="${a1##* }" 'BEGIN { printf "%.2f", (b - a) / (t1 - t0) }' >"$out.srv"
	wait "$pid" || { tail -n 15 "$out.log" >&2; die "the fleet run ($server, $p partitions) failed; log $out.log"; }
	na=$(nic_rate "$a0" "$a1")
	nb=$(nic_rate "$b0" "$b1")
	echo $((na > nb ? na : nb)) >"$out.nic"
}

# row SCENARIO MACHINES P NOTE FILES...: one table line from the runs'
# JSON (figures added up over machines) into $WORK/table.tsv.
row() {
	local scenario=$1 machines=$2 p=$3 note=$4
	shift 4
	python3 - "$scenario" "$machines" "$p" "$note" "$LINK" "$@" >>"$WORK/table.tsv" <<'EOF'
import json, sys
scenario, machines, parts, note, link = sys.argv[1:6]
runs = sys.argv[6:]
stable = peak = cpu = rss = mbs = nic = srv = 0.0
box = 0.0
for base in runs:
    d = json.load(open(base + ".json"))
    st = d["stream"]
    # The configuration held longest: a run's first interval can be a
    # scenario of its own (start-up), which is not the steady state.
    sc = max(st["scenarios"], key=lambda x: x["duration_s"]) if st.get("scenarios") else st
    stable += sc["rows_per_sec_stable"]
    peak += sc["rows_per_sec_peak"]
    cpu += sc["cpu_cores"]
    rss += sc["rss_bytes"] / 1e6
    mbs += sc["mb_per_sec"]
    nic = max(nic, float(open(base + ".nic").read()))
    srv = max(srv, float(open(base + ".srv").read()))  # one server: the runs saw the same
    if st["lost"] or st["duplicated"] or st["out_of_order"]:
        note += " LOST/DUP/ORDER!"
    box = max(box, max((s.get("cpu_percent", 0) for s in d.get("segments", [])), default=0))
ms = 1e6 / stable if stable > 0 else 0
print("\t".join([scenario, machines, parts, f"{stable:,.0f}", f"{peak:,.0f}", f"{ms:.2f}", f"{cpu:.2f}",
                 f"{rss:.0f}", f"{mbs:.2f}", f"{nic / 1e6:.2f} ({100 * nic / float(link):.0f} %)", f"{srv:.2f}" if srv >= 0 else "-", f"{box:.0f}", note]))
EOF
}

start_servers
for s in $SERVERS; do
	if ((WARMUP > 0)); then
		say "$s: warming up (one short run, not recorded)"
		run_one "$s" 1 8 "$WORK/$s-warm" "$WARMUP"
	fi
	for p in $ONE_PARTS; do
		say "$s: one machine, $p partitions"
		run_one "$s" 1 "$p" "$WORK/$s-1m-$p"
		row "$s" 1 "$p" "" "$WORK/$s-1m-$p"
	done
	for p in $TWO_PARTS; do
		if [[ -n $FLEET ]]; then
			say "$s: two machines, one fleet run (--agents), $p partitions divided"
			run_fleet "$s" "$p" "$WORK/$s-2m-$p"
			row "$s" 2 "$p" "one fleet run, $((p / 2)) partitions per agent" "$WORK/$s-2m-$p"
		else
			say "$s: two machines, $p partitions (two independent runs of $((p / 2)) partitions, added)"
			run_one "$s" 1 $((p / 2)) "$WORK/$s-2m-$p-a" &
			a=$!
			run_one "$s" 2 $((p / 2)) "$WORK/$s-2m-$p-b" &
			b=$!
			wait "$a" && wait "$b" || die "a two-machine run ($s, $p partitions) failed"
			row "$s" 2 "$p" "2 runs x $((p / 2)) partitions, added" "$WORK/$s-2m-$p-a" "$WORK/$s-2m-$p-b"
		fi
	done
done

echo "# The tunnel curve on $(nproc) cores, client links shaped to $RATE ($(awk -v l="$LINK" 'BEGIN { printf "%.1f", l / 1e6 }') MB/s each way), ${STEP}s per scenario, $THREADS producer threads per machine"
{
	printf 'scenario\tmachines\tpartitions\tstable rows/s\tpeak rows/s\tms/1000 rows\tclient CPU cores\tmemory MB\tMB/s\tNIC MB/s (of link)\tserver CPU cores\tbox CPU %%\tnote\n'
	cat "$WORK/table.tsv"
} | column -t -s $'\t'
[[ -n $KEEP ]] && say "runs kept in $WORK"
true
