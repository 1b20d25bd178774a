#!/usr/bin/env bash
# netlab.sh: client "machines" with their own NIC limits on one host, for
# benchmarks that must show a client NIC saturating (the tunnel curve) and
# the fix (more client machines) without more machines.
#
#   sudo scripts/netlab.sh up K [RATE] [--agents]   # K machines, each link shaped to RATE
#   sudo scripts/netlab.sh status                   # namespaces, addresses, qdiscs, agents
#   sudo scripts/netlab.sh down                     # remove everything it made
#   sudo scripts/netlab.sh with K [RATE] [--agents] -- CMD...
#                                                   # up, run CMD, down (also on Ctrl-C)
#
# Machine N is the network namespace benchtop-mN. Its one interface, eth0
# (10.77.0.(10+N)/24), is a veth pair whose other end, benchtop-vN, is a
# port of the bridge benchtop-br0 (10.77.0.1/24) in the root namespace:
# servers meant for the lab listen on 10.77.0.1 (not on 0.0.0.0), and
# `ip netns exec benchtop-mN CMD` runs a client on machine N. Both ends of
# every veth pair are shaped with tc (tbf) to RATE, so each machine can
# send RATE and receive RATE (a full-duplex NIC), whatever its veth says
# (10000 Mbit/s): tell benchtop with -p host.nicspeed=RATE.
#
# RATE is tc's: 1gbit (default), 100mbit (a scaled-down lab for boxes of a
# few cores, which cannot push 1 Gbit/s through a real server), 20mbit, ...
#
# The addresses are private ones, and that is safe only because they exist
# solely on the bridge and in the namespaces this script creates on this
# host: the namespaces have no default route, nothing is forwarded or
# NATed, and no packet for 10.77.0.0/24 is routed off the host. The script
# refuses to start when 10.77.0.0/24 (or NETLAB_NET) is in use already.
#
# --agents starts `benchtop agent --listen 10.77.0.(10+N):PORT --token-file F`
# inside each namespace, when `benchtop agent --help` works (the agent
# arrives with the fleet branch); otherwise it says so and starts none.
#
# up prints `export` lines for the other scripts (eval "$(netlab.sh up 2)"):
#   BENCHTOP_LAB_SERVER    the root side's address (10.77.0.1)
#   BENCHTOP_LAB_MACHINES  benchtop-m1,benchtop-m2,...
#   BENCHTOP_LAB_RATE      RATE as given; BENCHTOP_LAB_NICSPEED: the same for -p host.nicspeed
#   BENCHTOP_LAB_BRIDGE    the bridge (PREFIXbr0), whose address servers listen on
#   BENCHTOP_LAB_AGENTS    HOST:PORT,... and BENCHTOP_LAB_TOKEN_FILE (with --agents)
#
# Environment: NETLAB_NET (the /24's first three bytes, default 10.77.0),
# NETLAB_PREFIX (the names' prefix, default benchtop-: namespaces PREFIXmN,
# bridge PREFIXbr0, veth ends PREFIXvN; 2 to 12 of a-z 0-9 -, ending in
# -), NETLAB_AGENT_PORT (default 7070), BENCHTOP (the binary, default
# `benchtop` on PATH, else ./benchtop), NETLAB_STATE (default
# ${TMPDIR:-/tmp}/PREFIXnetlab). Two labs with their own NETLAB_PREFIX and
# NETLAB_NET live side by side on one host. Root only: namespaces, veth
# pairs and qdiscs need CAP_NET_ADMIN.
set -euo pipefail

NET=${NETLAB_NET:-10.77.0}
PREFIX=${NETLAB_PREFIX:-benchtop-}
AGENT_PORT=${NETLAB_AGENT_PORT:-7070}
STATE=${NETLAB_STATE:-${TMPDIR:-/tmp}/${PREFIX}netlab}
BRIDGE=${PREFIX}br0
NS_PREFIX=${PREFIX}m
VETH_PREFIX=${PREFIX}v # the root side of machine N's veth pair: PREFIXvN
MAX_MACHINES=32

log() { echo "netlab.sh: $*" >&2; }
die() {
	log "$*"
	exit 1
}
usage() {
	echo "usage: $0 up K [RATE] [--agents] | status | down | with K [RATE] [--agents] -- CMD..." >&2
	exit 2
}

need_root() {
	check_names
	[[ $(id -u) -eq 0 ]] || die "needs root: it creates network namespaces, veth pairs and tc qdiscs (run it with sudo)"
	command -v ip >/dev/null && command -v tc >/dev/null || die "needs ip and tc (Debian's iproute2 package)"
	if ! ip netns list >/dev/null 2>&1; then
		die "cannot use network namespaces here (ip netns list failed: no CAP_NET_ADMIN in this container?)"
	fi
}

# check_names refuses a prefix or network that would make bad names or
# addresses (interface names hold 15 characters: PREFIX + "br0", "v32").
check_names() {
	[[ $PREFIX =~ ^[a-z][a-z0-9-]{0,10}-$ ]] || die "NETLAB_PREFIX must be 2 to 12 of a-z, 0-9 and -, starting with a letter and ending in - (default benchtop-), not '$PREFIX'"
	[[ $NET =~ ^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$ ]] || die "NETLAB_NET must be the first three bytes of a /24, such as 10.77.0, not '$NET'"
	[[ $AGENT_PORT =~ ^[0-9]+$ ]] && ((AGENT_PORT >= 1 && AGENT_PORT <= 65535)) || die "NETLAB_AGENT_PORT must be a port number, not '$AGENT_PORT'"
}

server_addr() { echo "$NET.1"; }
machine_addr() { echo "$NET.$((10 + $1))"; }

# machines lists the lab's namespaces, in order.
machines() {
	ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${NS_PREFIX}[0-9]+$" | sort -V || true
}

# check_rate accepts tc rates: a number and kbit, mbit or gbit.
check_rate() {
	[[ $1 =~ ^[0-9]+(\.[0-9]+)?(kbit|mbit|gbit)$ ]] || die "RATE must be a tc rate such as 1gbit, 100mbit or 20mbit, not '$1'"
}

# rate_bytes prints RATE in bytes per second.
rate_bytes() {
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = substr(r, length(r) - 3)
		m = (u == "kbit") ? 1e3 : (u == "mbit") ? 1e6 : 1e9
		printf "%.0f\n", n * m / 8 }'
}

# shape DEV [NS]: a token bucket at RATE on DEV's egress. The bucket holds
# 4 ms of the rate (and at least one 64 kB GSO packet), the queue 20 ms.
shape() {
	local dev=$1 ns=${2:-} bytes burst
	bytes=$(rate_bytes "$RATE")
	burst=$((bytes / 250))
	((burst >= 65536 + 1514)) || burst=$((65536 + 1514))
	local tcq=(tc qdisc replace dev "$dev" root tbf rate "$RATE" burst "$burst" latency 20ms)
	if [[ -n $ns ]]; then
		ip netns exec "$ns" "${tcq[@]}"
	else
		"${tcq[@]}"
	fi
}

check_free() {
	local used
	used=$(ip -o -4 addr show | awk -v net="$NET." -v br="$BRIDGE" '$2 != br && index($4, net) == 1 {print $2}' | head -n 1)
	[[ -z $used ]] || die "$NET.0/24 is in use on $used already: set NETLAB_NET to a free /24 (for example 10.78.0)"
}

find_benchtop() {
	if [[ -n ${BENCHTOP:-} ]]; then
		echo "$BENCHTOP"
	elif command -v benchtop >/dev/null; then
		command -v benchtop
	elif [[ -x ./benchtop ]]; then
		echo "$PWD/benchtop"
	fi
}

# start_agents starts one agent per namespace, if this benchtop has agents.
start_agents() {
	local bin n ns addrs=()
	bin=$(find_benchtop)
	if [[ -z $bin ]] || ! "$bin" agent --help >/dev/null 2>&1; then
		log "no agents started: ${bin:-benchtop} has no working \`agent\` command yet (it comes with the fleet branch); the machines are up without them"
		return 0
	fi
	if [[ ! -s $STATE/token ]]; then
		(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$STATE/token")
	fi
	for ((n = 1; n <= K; n++)); do
		ns=$NS_PREFIX$n
		if pid=$(agent_pid "$n"); then
			addrs+=("$(machine_addr "$n"):$AGENT_PORT")
			continue
		fi
		ip netns exec "$ns" nohup "$bin" agent --listen "$(machine_addr "$n"):$AGENT_PORT" --token-file "$STATE/token" \
			</dev/null >>"$STATE/agent-m$n.log" 2>&1 &
		echo $! >"$STATE/agent-m$n.pid"
		addrs+=("$(machine_addr "$n"):$AGENT_PORT")
	done
	local IFS=,
	AGENTS="${addrs[*]}"
	log "agents on $AGENTS (token $STATE/token, logs $STATE/agent-m*.log)"
}

# agent_pid N prints the pid of machine N's agent if it runs.
agent_pid() {
	local f=$STATE/agent-m$1.pid pid
	[[ -f $f ]] || return 1
	pid=$(<"$f")
	[[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] || return 1
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- " agent --listen $(machine_addr "$1"):" || return 1
	echo "$pid"
}

stop_agents() {
	local f n pid
	for f in "$STATE"/agent-m*.pid; do
		[[ -e $f ]] || continue
		n=${f##*/agent-m}
		n=${n%.pid}
		if pid=$(agent_pid "$n"); then
			kill "$pid" 2>/dev/null || true
			for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			kill -KILL "$pid" 2>/dev/null || true
		fi
		rm -f "$f"
	done
}

up() {
	need_root
	[[ ${K:-} =~ ^[0-9]+$ ]] && ((K >= 1 && K <= MAX_MACHINES)) || die "K must be a number of machines from 1 to $MAX_MACHINES, not '${K:-}'"
	check_rate "$RATE"
	mkdir -p "$STATE"
	# Same lab already up: nothing to do (idempotent). Another: rebuild.
	if [[ -f $STATE/lab ]] && [[ $(<"$STATE/lab") == "$K $RATE $NET" ]] && [[ $(machines | wc -l) -eq $K ]] && ip link show "$BRIDGE" >/dev/null 2>&1; then
		log "lab already up: $K machines at $RATE"
	else
		[[ -z $(machines) ]] && ! ip link show "$BRIDGE" >/dev/null 2>&1 || teardown
		check_free
		trap 'log "interrupted: removing what was made"; teardown; exit 130' INT TERM
		ip link add "$BRIDGE" type bridge
		ip addr add "$(server_addr)/24" dev "$BRIDGE"
		ip link set "$BRIDGE" up
		local n ns
		for ((n = 1; n <= K; n++)); do
			ns=$NS_PREFIX$n
			ip netns add "$ns"
			ip link add "$VETH_PREFIX$n" type veth peer name eth0 netns "$ns"
			ip link set "$VETH_PREFIX$n" master "$BRIDGE" up
			ip -n "$ns" link set lo up
			ip -n "$ns" addr add "$(machine_addr "$n")/24" dev eth0
			ip -n "$ns" link set eth0 up
			shape "$VETH_PREFIX$n" # to the machine (its download)
			shape eth0 "$ns"       # from the machine (its upload)
		done
		echo "$K $RATE $NET" >"$STATE/lab"
		trap - INT TERM
		log "up: $K machines ($NS_PREFIX""1..$K, $(machine_addr 1)..$(machine_addr "$K")) at $RATE each way, server side $(server_addr) on $BRIDGE"
	fi
	AGENTS=
	if [[ ${WITH_AGENTS:-} == 1 ]]; then
		start_agents
	fi
	print_env
}

print_env() {
	local list
	list=$(machines | paste -sd, -)
	echo "# benchtop lab: $K machines at $RATE each way; servers listen on $(server_addr)"
	echo "export BENCHTOP_LAB_SERVER=$(server_addr)"
	echo "export BENCHTOP_LAB_MACHINES=$list"
	echo "export BENCHTOP_LAB_RATE=$RATE"
	echo "export BENCHTOP_LAB_BRIDGE=$BRIDGE"
	echo "export BENCHTOP_LAB_NICSPEED=$RATE"
	if [[ -n ${AGENTS:-} ]]; then
		echo "export BENCHTOP_LAB_AGENTS=$AGENTS"
		echo "export BENCHTOP_LAB_TOKEN_FILE=$STATE/token"
	fi
}

# teardown removes every namespace, the bridge and the agents; the veth
# pairs go with their namespaces. Safe to run twice.
teardown() {
	stop_agents
	local ns
	for ns in $(machines); do
		ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
		# The root side of the veth pair first: the kernel removes it with
		# the namespace, but only some time after `ip netns del` returns.
		ip link del "$VETH_PREFIX${ns#"$NS_PREFIX"}" 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	ip link del "$BRIDGE" 2>/dev/null || true
	# Wait (5 s at most) until the kernel has let go of every lab link.
	local i
	for ((i = 0; i < 50; i++)); do
		ip -o link show | grep -qE "$BRIDGE|$VETH_PREFIX[0-9]" || break
		sleep 0.1
	done
	rm -f "$STATE/lab"
}

down() {
	need_root
	local had
	had=$(machines | wc -l)
	teardown
	rm -rf "${STATE:?}"
	log "down: removed $had machines and $BRIDGE"
}

status() {
	need_root
	local ns n
	if [[ -z $(machines) ]] && ! ip link show "$BRIDGE" >/dev/null 2>&1; then
		echo "no lab (scripts/netlab.sh up K RATE makes one)"
		return 0
	fi
	[[ -f $STATE/lab ]] && echo "lab: $(awk '{print $1 " machines at " $2 " each way, network " $3 ".0/24"}' "$STATE/lab")"
	ip -br addr show "$BRIDGE" 2>/dev/null || echo "$BRIDGE: missing"
	for ns in $(machines); do
		n=${ns#"$NS_PREFIX"}
		echo "$ns: $(ip -n "$ns" -br -4 addr show dev eth0 2>/dev/null | awk '{print $3}')"
		echo "  to it:   $(tc qdisc show dev "$VETH_PREFIX$n" 2>/dev/null | head -n 1)"
		echo "  from it: $(ip netns exec "$ns" tc qdisc show dev eth0 2>/dev/null | head -n 1)"
		if pid=$(agent_pid "$n"); then
			echo "  agent:   pid $pid on $(machine_addr "$n"):$AGENT_PORT"
		fi
	done
}

# with K RATE [--agents] -- CMD...: the lab for the time of CMD, whose
# environment has the export lines; down afterwards, also on Ctrl-C.
with() {
	local env status=0
	env=$(up)
	trap 'teardown; rm -rf "${STATE:?}"; exit 130' INT TERM
	eval "$env"
	"$@" || status=$?
	trap - INT TERM
	teardown
	rm -rf "${STATE:?}"
	log "down"
	return "$status"
}

cmd=${1:-}
shift || true
case $cmd in
up | with)
	K=${1:-}
	shift || true
	RATE=1gbit
	if [[ $# -gt 0 && $1 != --* ]]; then
		RATE=$1
		shift
	fi
	WITH_AGENTS=
	if [[ ${1:-} == --agents ]]; then
		WITH_AGENTS=1
		shift
	fi
	if [[ $cmd == up ]]; then
		[[ $# -eq 0 ]] || usage
		up
	else
		[[ ${1:-} == -- ]] || usage
		shift
		[[ $# -gt 0 ]] || usage
		need_root
		with "$@"
	fi
	;;
down) down ;;
status) status ;;
*) usage ;;
esac
