#!/usr/bin/env bash
# shellcheck disable=SC2015 # ok always succeeds: `A && ok ... || fail ...` is an if-else here
# Checks a server script's start/stop contract on two ports of its own:
#
#   bash .ci/servers/selftest.sh NAME PORT_A PORT_B   # NAME: mongodb dynamodb influx redis nats postgres mariadb
#
# - start prints only `#` comments and `export` lines, and the server answers;
# - a second start is a no-op: same output, same pid;
# - a second instance on PORT_B starts beside the first;
# - stop of A stops A only (B keeps its pid and answers) and removes A's folder;
# - a second stop of A succeeds and changes nothing;
# - stop never kills a process that is not its server, even when the pid
#   file names it (a recycled pid, or the same server on the other port);
# - stop of B leaves nothing behind.
# Exit status 0 when every check passed, 1 otherwise (each failure is named).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SRV_NAME=selftest
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$here/lib.sh"

[[ $# == 3 ]] || {
	echo "usage: $0 mongodb|dynamodb|influx|redis|nats|postgres|mariadb PORT_A PORT_B" >&2
	exit 2
}
name=$1 a=$2 b=$3
case $name in
mongodb | dynamodb | influx | redis | nats | postgres | mariadb) ;;
*)
	echo "selftest.sh: unknown server '$name' (mongodb, dynamodb, influx, redis, nats, postgres or mariadb)" >&2
	exit 2
	;;
esac
var=BENCHTOP_${name^^}_PORT
srv_port PORT_A "$a"
srv_port PORT_B "$b"
# Ports derived from the main one (PostgreSQL's, InfluxDB's RPC) must differ
# between the two instances: let the scripts derive them.
unset BENCHTOP_MONGODB_PG_PORT BENCHTOP_INFLUX_RPC

failures=0
ok() { echo "ok   $name: $*"; }
fail() {
	echo "FAIL $name: $*"
	failures=$((failures + 1))
}
script() { env "$var=$1" bash "$here/$name.sh" "$2"; }
state() { SRV_NAME=$name srv_state_dir "$1"; }
# main_pid PORT prints the pid in the first pid file of the state folder
# (FerretDB's for mongodb: its PostgreSQL keeps its own in pg/), or of its
# data folder (postgres: postmaster.pid).
main_pid() {
	local f
	for f in "$(state "$1")"/*.pid "$(state "$1")"/data/*.pid; do
		[[ -f $f ]] && head -n 1 "$f" && return 0
	done
	return 1
}

# answers PORT: the server speaks on PORT (a protocol probe where it is text).
answers() {
	local port=$1 line
	case $name in
	redis)
		exec 3<>"/dev/tcp/$SRV_HOST/$port" 2>/dev/null || return 1
		printf 'PING\r\n' >&3
		IFS= read -r -t 5 line <&3
		exec 3>&-
		[[ $line == +PONG* ]]
		;;
	nats)
		exec 3<>"/dev/tcp/$SRV_HOST/$port" 2>/dev/null || return 1
		IFS= read -r -t 5 line <&3
		exec 3>&-
		[[ $line == "INFO {"* ]]
		;;
	influx | dynamodb)
		exec 3<>"/dev/tcp/$SRV_HOST/$port" 2>/dev/null || return 1
		printf 'GET /ping HTTP/1.0\r\nHost: %s\r\n\r\n' "$SRV_HOST" >&3
		IFS= read -r -t 5 line <&3
		exec 3>&-
		[[ $line == HTTP/1.* ]]
		;;
	*) port_open "$port" ;; # mongodb: binary wire protocol
	esac
}

check_stdout() {
	local out=$1 what=$2 line
	[[ -n $out ]] || {
		fail "$what printed nothing on stdout"
		return
	}
	while IFS= read -r line; do
		[[ $line == '#'* || $line == 'export '* ]] || fail "$what printed a line that is neither a # comment nor an export: $line"
	done <<<"$out"
}

for p in "$a" "$b"; do
	if port_open "$p"; then
		echo "selftest.sh: $SRV_HOST:$p is in use; choose free ports" >&2
		exit 2
	fi
done

trap 'script "$a" stop >/dev/null 2>&1; script "$b" stop >/dev/null 2>&1' EXIT

out1=$(script "$a" start) || fail "start on $a exited $?"
check_stdout "$out1" "start on $a"
answers "$a" && ok "answers on $a" || fail "does not answer on $a after start"
pid_a=$(main_pid "$a") || fail "no pid file in $(state "$a")"

out2=$(script "$a" start) || fail "second start on $a exited $?"
[[ $out2 == "$out1" ]] && ok "second start on $a prints the same lines" || fail "second start on $a printed: $out2"
[[ -n ${pid_a:-} && $(main_pid "$a") == "$pid_a" ]] && ok "second start on $a keeps pid $pid_a" || fail "second start on $a changed the pid"

out3=$(script "$b" start) || fail "start on $b exited $?"
check_stdout "$out3" "start on $b"
pid_b=$(main_pid "$b") || fail "no pid file in $(state "$b")"
[[ ${pid_b:-x} != "${pid_a:-y}" ]] || fail "both instances report pid $pid_a"

script "$a" stop >/dev/null || fail "stop on $a exited $?"
! port_open "$a" && ok "stop on $a closed $a" || fail "$a still open after stop"
[[ ! -e $(state "$a") ]] && ok "stop on $a removed $(state "$a")" || fail "$(state "$a") left behind"
answers "$b" && ok "$b still answers after stop on $a" || fail "$b does not answer after stop on $a"
[[ -n ${pid_b:-} && $(main_pid "$b") == "$pid_b" ]] && kill -0 "${pid_b:-none}" 2>/dev/null &&
	ok "$b keeps pid $pid_b" || fail "$b lost its process (pid ${pid_b:-?})"

script "$a" stop >/dev/null 2>&1 && ok "second stop on $a succeeds" || fail "second stop on $a exited $?"
answers "$b" || fail "$b does not answer after the second stop on $a"

# A's pid file names a live process that is not A's server: a recycled pid
# (a sleep), then B's server (the same program on another port).
plant() {
	local f rel
	mkdir -p "$(state "$a")"
	for f in "$(state "$b")"/*.pid "$(state "$b")"/data/*.pid; do
		[[ -f $f ]] || continue
		rel=${f#"$(state "$b")"/}
		mkdir -p "$(dirname "$(state "$a")/$rel")"
		echo "$1" >"$(state "$a")/$rel"
	done
}
sleep 60 &
decoy=$!
plant "$decoy"
script "$a" stop >/dev/null 2>&1 || fail "stop on $a with a recycled pid exited $?"
kill -0 "$decoy" 2>/dev/null && ok "stop on $a leaves a recycled pid alone" || fail "stop on $a killed an unrelated process (pid $decoy)"
kill "$decoy" 2>/dev/null
wait "$decoy" 2>/dev/null
plant "${pid_b:-none}"
script "$a" stop >/dev/null 2>&1 || fail "stop on $a with B's pid exited $?"
kill -0 "${pid_b:-none}" 2>/dev/null && answers "$b" && ok "stop on $a leaves $b's server alone when given its pid" ||
	fail "stop on $a killed the server on $b (pid ${pid_b:-?})"

script "$b" stop >/dev/null || fail "stop on $b exited $?"
! port_open "$b" && [[ ! -e $(state "$b") ]] && ok "stop on $b leaves nothing" || fail "$b still open or $(state "$b") left behind"
kill -0 "${pid_b:-none}" 2>/dev/null && fail "pid $pid_b still alive after stop on $b"

trap - EXIT
if ((failures > 0)); then
	echo "$name: $failures check(s) failed"
	exit 1
fi
echo "$name: all checks passed"
