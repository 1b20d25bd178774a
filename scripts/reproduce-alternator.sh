#!/usr/bin/env bash
# reproduce-alternator.sh: the published ScyllaDB Alternator arithmetic on one box.
#
#   scripts/reproduce-alternator.sh [AGENTS [THREADS [TOTAL [SECONDS]]]]
#   scripts/reproduce-alternator.sh                 # 15 agents x 50 threads, 300 ops/s in all, 30 s
#   scripts/reproduce-alternator.sh 3 5 60 8        # a small check, ~1 min
#
# The published comparison: YCSB workload A, uniform and zipfian key choice
# (workloads/alternator-a-uniform, -zipfian), from 15 client VMs x 50
# threads at a fixed total of 120,000 ops/s, so that each client's own YCSB
# report shows 8,000 ops/s and the result is the fleet's. Here the clients
# are AGENTS local `benchtop agent` processes and one coordinator
# (`benchtop run ... --agents`) splits the TOTAL target among them, once per
# distribution. dynalite (a node.js DynamoDB API) stands in for Alternator,
# so the absolute rate is scaled down (by 400 with the defaults: 20 ops/s
# a client, what dynalite and 15 clients held on a shared 2-core box, where
# 750 and 1,500 in all did not). What this shows is the arithmetic: the
# fleet's throughput is AGENTS x one client's, and the fleet's p99 is the
# exact merge of every client's histogram, not an average of their p99s.
#
# It starts its own dynalite (.ci/servers/dynamodb.sh on ALT_DYNAMODB_PORT,
# default 8100) unless BENCHTOP_DYNAMODB_ENDPOINT names one, starts the
# agents on ALT_AGENT_HOST:ALT_AGENT_PORT.. (default 127.0.0.1:7270..) with
# a throwaway token, loads ALT_RECORDS records (default 10000) through the
# fleet, then for each distribution of ALT_DISTRIBUTIONS (default "uniform
# zipfian") runs a warm-up of ALT_WARMUP seconds (default 5; 0: none) and
# the measured run, and prints one client's YCSB lines beside the fleet's
# merged ones, the clients' spread and four checks
# (scripts/reproduce-alternator-checks.py):
#   target      the fleet ran TOTAL ops/s, at most ALT_TOLERANCE % (5) short.
#               When it did not, a control run asks whether the box could:
#               one client against the null database at the same rate and
#               threads (no server, no network). If that misses the target
#               too, or the clients' CPU was above 90 %, the box missed it
#               (said, not failed); otherwise the fleet did (FAIL)
#   throughput  fleet = AGENTS x one client's, within ALT_TOLERANCE %
#   operations  fleet = the sum of the agents' (exact)
#   p99         the fleet's = the p99 of all agents' HDR histograms added
#               up from the run's HDR log (scripts/hlogmerge; exact), and
#               each agent's histograms in the log give its own report's
#               p99. Shown beside it: the agents' own p99s, min..max, and
#               their average. (Without Go to build hlogmerge the check is
#               only "within min..max", which HDR's rounding of the rank
#               can miss with a few hundred values per agent: the p99 of
#               67 values is the 66th.)
# and last one line per distribution: the published comparison, scaled.
# Exit status 0 when every check holds, 1 otherwise, 2 for bad arguments.
#
# Environment: BENCHTOP (the binary; default built from this checkout),
# ALT_TABLE (usertable), ALT_OUT (a folder to keep the outputs in; default
# a temporary one, removed), and the ports, address and lists above. The
# defaults collide with none of the CI servers (.ci/servers/*.sh: dynalite
# on 8000; the tests' agents on ports the kernel picks). Everything it
# started (agents, dynalite) is stopped on exit, Ctrl-C and TERM included.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "reproduce-alternator: $*" >&2; }
die() {
	say "$*"
	exit 1
}
usage() {
	say "$1"
	say "usage: scripts/reproduce-alternator.sh [AGENTS [THREADS [TOTAL [SECONDS]]]] (defaults 15 50 300 30)"
	exit 2
}

AGENTS=${1:-15}
THREADS=${2:-50}
TOTAL=${3:-300}
SECS=${4:-30}
(($# <= 4)) || usage "at most four arguments, not $#"
[[ $AGENTS =~ ^[0-9]+$ ]] && ((AGENTS >= 1 && AGENTS <= 30)) || usage "AGENTS must be a whole number from 1 to 30, not '$AGENTS'"
[[ $THREADS =~ ^[0-9]+$ ]] && ((THREADS >= 1 && THREADS <= 1000)) || usage "THREADS must be a whole number from 1 to 1000, not '$THREADS'"
[[ $TOTAL =~ ^[0-9]+$ ]] && ((TOTAL >= AGENTS)) || usage "TOTAL (the fleet's target, ops/s) must be a whole number, at least AGENTS ($AGENTS), not '$TOTAL'"
[[ $SECS =~ ^[0-9]+$ ]] && ((SECS >= 3)) || usage "SECONDS must be a whole number, at least 3, not '$SECS'"
RECORDS=${ALT_RECORDS:-10000}
WARMUP=${ALT_WARMUP:-5}
TOL=${ALT_TOLERANCE:-5}
TABLE=${ALT_TABLE:-usertable}
DPORT=${ALT_DYNAMODB_PORT:-8100}
APORT=${ALT_AGENT_PORT:-7270}
AHOST=${ALT_AGENT_HOST:-127.0.0.1}
DISTS=${ALT_DISTRIBUTIONS:-uniform zipfian}
for d in $DISTS; do
	[[ $d == uniform || $d == zipfian ]] || usage "ALT_DISTRIBUTIONS lists uniform and zipfian (the published comparison's), not '$d'"
done
[[ -n ${DISTS// /} ]] || usage "ALT_DISTRIBUTIONS is empty (allowed: uniform, zipfian or both)"
[[ $AHOST =~ ^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$ ]] || usage "ALT_AGENT_HOST must be an IPv4 address of this host (default 127.0.0.1), not '$AHOST'"
[[ $RECORDS =~ ^[0-9]+$ ]] && ((RECORDS >= AGENTS)) || usage "ALT_RECORDS must be a whole number, at least AGENTS, not '$RECORDS'"
[[ $WARMUP =~ ^[0-9]+$ ]] || usage "ALT_WARMUP must be a whole number of seconds, not '$WARMUP'"
[[ $TOL =~ ^[0-9]+([.][0-9]+)?$ ]] || usage "ALT_TOLERANCE must be a percentage, not '$TOL'"
[[ $DPORT =~ ^[0-9]+$ && $APORT =~ ^[0-9]+$ ]] || usage "ALT_DYNAMODB_PORT and ALT_AGENT_PORT must be port numbers"
((APORT + AGENTS - 1 <= 65535)) || usage "ALT_AGENT_PORT $APORT leaves no room for $AGENTS agents"
command -v python3 >/dev/null || die "python3 is needed to read the JSON summary"

WORK=${ALT_OUT:-}
KEEP=1
if [[ -z $WORK ]]; then
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/benchtop-alternator.XXXXXX")
	KEEP=
fi
mkdir -p "$WORK"
AGENT_PIDS=()
DYNALITE_UP=
CHILD=
cleanup() {
	local pid
	if [[ -n $CHILD ]]; then
		kill "$CHILD" 2>/dev/null || true
		wait "$CHILD" 2>/dev/null || true
	fi
	for pid in "${AGENT_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${AGENT_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	if [[ -n $DYNALITE_UP ]]; then
		BENCHTOP_DYNAMODB_PORT=$DPORT bash .ci/servers/dynamodb.sh stop >/dev/null 2>&1 || true
	fi
	[[ -n $KEEP ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

port_open() { (: </dev/tcp/"$1"/"$2") 2>/dev/null; }

BIN=${BENCHTOP:-}
MERGE=
if [[ -z $BIN ]]; then
	say "building benchtop and scripts/hlogmerge"
	go build -o "$WORK/benchtop" . || die "go build failed"
	BIN=$WORK/benchtop
fi
BIN=$(realpath "$BIN")
if command -v go >/dev/null && go build -o "$WORK/hlogmerge" ./scripts/hlogmerge 2>"$WORK/hlogmerge.build"; then
	MERGE=$WORK/hlogmerge
else
	say "cannot build scripts/hlogmerge (no Go toolchain?): the p99 check falls back to the agents' min..max"
fi

ENDPOINT=${BENCHTOP_DYNAMODB_ENDPOINT:-}
if [[ -z $ENDPOINT ]]; then
	port_open 127.0.0.1 "$DPORT" && die "127.0.0.1:$DPORT is in use: set ALT_DYNAMODB_PORT, or BENCHTOP_DYNAMODB_ENDPOINT to use that server"
	say "starting dynalite on 127.0.0.1:$DPORT"
	DYNALITE_UP=1
	env=$(BENCHTOP_DYNAMODB_PORT=$DPORT bash .ci/servers/dynamodb.sh start 2>"$WORK/dynalite.start") ||
		die "dynalite did not start: $(tail -n 3 "$WORK/dynalite.start")"
	ENDPOINT=$(sed -n 's/^export BENCHTOP_DYNAMODB_ENDPOINT=//p' <<<"$env")
	[[ -n $ENDPOINT ]] || die "dynalite started but printed no endpoint"
fi

# The token: random, in a file only this user reads, removed with $WORK.
TOKEN=$WORK/token
(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$TOKEN")

LIST=
for ((i = 1; i <= AGENTS; i++)); do
	port=$((APORT + i - 1))
	name=$(printf 'c%02d' "$i")
	port_open "$AHOST" "$port" && die "$AHOST:$port is in use: set ALT_AGENT_PORT"
	"$BIN" agent --listen "$AHOST:$port" --token-file "$TOKEN" >"$WORK/$name.log" 2>&1 &
	AGENT_PIDS+=($!)
	LIST+="${LIST:+,}$name=$AHOST:$port"
done
for ((i = 1; i <= AGENTS; i++)); do
	name=$(printf 'c%02d' "$i")
	for ((t = 0; t < 100; t++)); do
		grep -q 'listening on' "$WORK/$name.log" && break
		kill -0 "${AGENT_PIDS[i - 1]}" 2>/dev/null || die "agent $name exited: $(tail -n 2 "$WORK/$name.log")"
		sleep 0.1
	done
	grep -q 'listening on' "$WORK/$name.log" || die "agent $name did not listen within 10 s: $(tail -n 2 "$WORK/$name.log")"
done
say "$AGENTS agents up on $AHOST:$APORT..$((APORT + AGENTS - 1)); dynalite at $ENDPOINT"

# common DIST: the coordinator's arguments for workload A with DIST's key
# choice (no argument contains a space).
common() {
	echo dynamodb -P "workloads/alternator-a-$1" -p "dynamodb.endpoint=$ENDPOINT" -p "table=$TABLE" \
		-p "recordcount=$RECORDS" --agents "$LIST" --token-file "$TOKEN" --headless
}

# step NAME COMMAND...: runs a coordinator, its output in $WORK/NAME.out
# and .err. In the background and waited for, so that a signal to this
# script is handled at once (the trap stops it with the rest).
step() {
	local name=$1 rc=0
	shift
	"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
	CHILD=$!
	wait "$CHILD" || rc=$?
	CHILD=
	((rc < 128)) || exit "$rc" # interrupted
	((rc == 0)) || die "the $name failed (exit $rc): $(tail -n 5 "$WORK/$name.err")"
}
CHECKS=$PWD/scripts/reproduce-alternator-checks.py

say "loading $RECORDS records through the fleet"
# shellcheck disable=SC2046 # common's words split on purpose
step load "$BIN" load $(common "${DISTS%% *}") -threads 4 -target 0 --json "$WORK/load.json"

status=0
SUMMARY=()
for dist in $DISTS; do
	OUT=$WORK/$dist
	mkdir -p "$OUT"
	if ((WARMUP > 0)); then
		say "$dist: warming up for $WARMUP s"
		# shellcheck disable=SC2046
		step "$dist/warmup" "$BIN" run $(common "$dist") -threads "$THREADS" -target "$TOTAL" -p "maxexecutiontime=$WARMUP"
	fi
	# shellcheck disable=SC2207
	CMD=("$BIN" run $(common "$dist") -threads "$THREADS" -target "$TOTAL" -p "maxexecutiontime=$SECS"
		--json "$OUT/run.json" --hdr-log "$OUT/run.hlog")
	say "$dist: running workload A: $AGENTS agents x $THREADS threads, $TOTAL ops/s in all, $SECS s"
	step "$dist/run" "${CMD[@]}"
	if [[ -n $MERGE ]]; then
		"$MERGE" -q 99 "$OUT/run.hlog" >"$OUT/hlogmerge.tsv" || die "hlogmerge could not read $OUT/run.hlog"
	fi
	args=("$OUT" "$dist" "$AGENTS" "$THREADS" "$TOTAL" "$SECS" "$TOL" "$ENDPOINT")
	rc=0
	python3 "$CHECKS" check "${args[@]}" || rc=$?
	if ((rc == 3)); then
		# Only the target was missed: could the box have run it at all?
		say "$dist: a control run: one client, $((AGENTS * THREADS)) threads, $TOTAL ops/s, against the null database"
		step "$dist/control" "$BIN" run null -P "workloads/alternator-a-$dist" -p "recordcount=$RECORDS" -p operationcount=0 \
			-p "maxexecutiontime=$SECS" -threads $((AGENTS * THREADS)) -target "$TOTAL" --headless --json "$OUT/control.json"
		rc=0
		python3 "$CHECKS" control "${args[@]}" || rc=$?
		((rc == 3)) && rc=0 # the box missed it, not the fleet
	fi
	((rc == 0)) || status=1
	SUMMARY+=("$(cat "$OUT/summary.txt")")
	echo "# command (the measured run): ${CMD[*]}" | sed "s#$WORK#\$WORK#g"
	echo
done
echo "# the published comparison, scaled: workload A, $AGENTS clients x $THREADS threads, $TOTAL ops/s in all, $SECS s"
printf '%-13s %12s %10s %16s %16s  %s\n' distribution "fleet ops/s" "of target" "READ p99 (us)" "UPDATE p99 (us)" checks
printf '%s\n' "${SUMMARY[@]}"
[[ -n $KEEP ]] && say "outputs kept in $WORK"
exit $status
