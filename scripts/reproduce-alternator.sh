#!/usr/bin/env bash
# reproduce-alternator.sh: the published ScyllaDB Alternator arithmetic on one box.
#
#   scripts/reproduce-alternator.sh [AGENTS [THREADS [TOTAL [SECONDS]]]]
#   scripts/reproduce-alternator.sh                 # 15 agents x 50 threads, 300 ops/s in all, 30 s
#   scripts/reproduce-alternator.sh 3 5 60 8        # a small check
#
# The published run: YCSB workload A (workloads/alternator-a-uniform) from
# 15 client VMs x 50 threads at a fixed total of 120,000 ops/s, so that
# each client's own YCSB report shows 8,000 ops/s and the result is the
# fleet's. Here the clients are AGENTS local `benchtop agent` processes
# and one coordinator (`benchtop run ... --agents`) splits the TOTAL
# target among them. dynalite (a node.js DynamoDB API) stands in for
# Alternator, so the absolute rate is scaled down (by 400 with the
# defaults: 20 ops/s a client, what dynalite and 15 clients held on a
# shared 2-core box, where 750 and 1,500 in all did not). What this shows
# is the arithmetic: the fleet's throughput is AGENTS x one client's, and
# the fleet's p99 is the exact merge of every client's histogram, not an
# average of their p99s.
#
# It starts its own dynalite (.ci/servers/dynamodb.sh on ALT_DYNAMODB_PORT,
# default 8100) unless BENCHTOP_DYNAMODB_ENDPOINT names one, starts the
# agents on 127.0.0.1:ALT_AGENT_PORT.. (default 7270..) with a throwaway
# token, loads ALT_RECORDS records (default 10000) through the fleet, runs
# a warm-up of ALT_WARMUP seconds (default 5; 0: none) and then the
# measured run, and prints one client's YCSB lines beside the fleet's
# merged ones, the clients' spread and four checks:
#   target      the fleet ran TOTAL ops/s, at most ALT_TOLERANCE % (5) short
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
# Exit status 0 when every check holds, 1 otherwise, 2 for bad arguments.
#
# Environment: BENCHTOP (the binary; default built from this checkout),
# ALT_TABLE (usertable), ALT_OUT (a folder to keep the outputs in; default
# a temporary one, removed). Everything it started (agents, dynalite) is
# stopped on exit, Ctrl-C and TERM included.
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

port_open() { (: </dev/tcp/127.0.0.1/"$1") 2>/dev/null; }

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
	port_open "$DPORT" && die "127.0.0.1:$DPORT is in use: set ALT_DYNAMODB_PORT, or BENCHTOP_DYNAMODB_ENDPOINT to use that server"
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
	port_open "$port" && die "127.0.0.1:$port is in use: set ALT_AGENT_PORT"
	"$BIN" agent --listen "127.0.0.1:$port" --token-file "$TOKEN" >"$WORK/$name.log" 2>&1 &
	AGENT_PIDS+=($!)
	LIST+="${LIST:+,}$name=127.0.0.1:$port"
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
say "$AGENTS agents up on 127.0.0.1:$APORT..$((APORT + AGENTS - 1)); dynalite at $ENDPOINT"

COMMON=(dynamodb -P workloads/alternator-a-uniform -p "dynamodb.endpoint=$ENDPOINT" -p "table=$TABLE"
	-p "recordcount=$RECORDS" --agents "$LIST" --token-file "$TOKEN" --headless)

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

say "loading $RECORDS records through the fleet"
step load "$BIN" load "${COMMON[@]}" -threads 4 -target 0 --json "$WORK/load.json"
if ((WARMUP > 0)); then
	say "warming up for $WARMUP s"
	step warmup "$BIN" run "${COMMON[@]}" -threads "$THREADS" -target "$TOTAL" -p "maxexecutiontime=$WARMUP"
fi
CMD=("$BIN" run "${COMMON[@]}" -threads "$THREADS" -target "$TOTAL" -p "maxexecutiontime=$SECS"
	--json "$WORK/run.json" --hdr-log "$WORK/run.hlog")
say "running workload A: $AGENTS agents x $THREADS threads, $TOTAL ops/s in all, $SECS s"
step run "${CMD[@]}"
if [[ -n $MERGE ]]; then
	"$MERGE" -q 99 "$WORK/run.hlog" >"$WORK/hlogmerge.tsv" || die "hlogmerge could not read $WORK/run.hlog"
fi

status=0
python3 - "$WORK" "$AGENTS" "$THREADS" "$TOTAL" "$SECS" "$TOL" "$ENDPOINT" <<'EOF' || status=$?
import json, os, re, sys

work, agents, threads, total, secs, tol, endpoint = sys.argv[1:8]
agents, threads, total, secs, tol = int(agents), int(threads), int(total), int(secs), float(tol)
doc = json.load(open(os.path.join(work, "run.json")))
fleet_report = open(os.path.join(work, "run.out")).read()


def ycsb(report, section, metric):
    m = re.search(r"^\[" + re.escape(section) + r"\], " + re.escape(metric) + r", (\S+)$", report, re.M)
    return float(m.group(1)) if m else None


runs = [a for a in doc["agents"] if a["state"] == "done"]
if len(runs) != agents:
    print(f"check: {agents - len(runs)} of {agents} agents did not finish: FAIL")
    sys.exit(1)
one = runs[0]
lines = [("[OVERALL], Throughput(ops/sec)", "OVERALL", "Throughput(ops/sec)", "{:,.1f}"),
         ("[READ], Operations", "READ", "Operations", "{:,.0f}"),
         ("[READ], 99thPercentileLatency(us)", "READ", "99thPercentileLatency(us)", "{:,.0f}"),
         ("[UPDATE], Operations", "UPDATE", "Operations", "{:,.0f}"),
         ("[UPDATE], 99thPercentileLatency(us)", "UPDATE", "99thPercentileLatency(us)", "{:,.0f}")]
fmt = lambda f, v: "-" if v is None else f.format(v)
print(f"# {agents} agents x {threads} threads, fleet target {total:,} ops/s ({total / agents:,.1f} a client), "
      f"{secs} s, workloads/alternator-a-uniform against dynalite ({endpoint})")
print(f"# published: 15 client VMs x 50 threads, 120,000 ops/s in all, each client's report ~8,000 ops/s")
print(f"{'':38} {'one client (' + one['name'] + ')':>22} {'fleet (' + str(agents) + ' merged)':>22}")
for label, sec, metric, f in lines:
    print(f"{label:38} {fmt(f, ycsb(one['report'], sec, metric)):>22} {fmt(f, ycsb(fleet_report, sec, metric)):>22}")

per = {k: [ycsb(a["report"], s, m) for a in runs] for k, s, m in
       [("tp", "OVERALL", "Throughput(ops/sec)"), ("rp99", "READ", "99thPercentileLatency(us)"),
        ("up99", "UPDATE", "99thPercentileLatency(us)")]}
print(f"# the {agents} clients' own reports: throughput {min(per['tp']):,.1f}-{max(per['tp']):,.1f} ops/s, "
      f"READ p99 {min(per['rp99']):,.0f}-{max(per['rp99']):,.0f} us, UPDATE p99 {min(per['up99']):,.0f}-{max(per['up99']):,.0f} us")

fleet_tp = ycsb(fleet_report, "OVERALL", "Throughput(ops/sec)")
print(f"# the clients' own runs took {min(p['runtime_ms'] for a in runs for p in a['phases'] if p['phase'] == 'run') / 1000:.1f}-"
      f"{max(p['runtime_ms'] for a in runs for p in a['phases'] if p['phase'] == 'run') / 1000:.1f} s")
ok = True


def check(name, good, text):
    global ok
    ok = ok and good
    print(f"check: {name}: {text}: {'ok' if good else 'FAIL'}")


held = 100 * fleet_tp / total
check("target", held >= 100 - tol, f"the fleet ran {held:.1f} % of its fixed total {total:,} ops/s (allowed {tol:g} % short)"
      + ("" if held >= 100 - tol else ": the clients or the server could not keep up; lower TOTAL"))
one_tp = ycsb(one["report"], "OVERALL", "Throughput(ops/sec)")
dev = 100 * abs(fleet_tp - agents * one_tp) / (agents * one_tp)
check("throughput", dev <= tol, f"fleet {fleet_tp:,.1f} ops/s = {fleet_tp / one_tp:.2f} x one client's {one_tp:,.1f} "
      f"({dev:.1f} % from {agents} x, allowed {tol:g} %); sum of the clients' {sum(per['tp']):,.1f}")
fleet_ops = sum(ycsb(fleet_report, op, "Operations") or 0 for op in ("READ", "UPDATE", "READ-FAILED", "UPDATE-FAILED"))
agent_ops = sum(p["operations"] for a in runs for p in a["phases"] if p["phase"] == "run")
check("operations", fleet_ops == agent_ops, f"fleet {fleet_ops:,.0f} = the sum of the clients' {agent_ops:,.0f}")

rows = {}
tsv = os.path.join(work, "hlogmerge.tsv")
if os.path.exists(tsv):
    lines_ = [l.rstrip("\n").split("\t") for l in open(tsv)]
    rows = {(r[0], r[1]): dict(zip(lines_[0], r)) for r in lines_[1:]}
for op, key in (("READ", "rp99"), ("UPDATE", "up99")):
    p99 = int(ycsb(fleet_report, op, "99thPercentileLatency(us)"))
    lo, hi = min(per[key]), max(per[key])
    inside = lo <= p99 <= hi
    avg = sum(per[key]) / len(per[key])
    if (op, "agents") in rows:
        m = rows[(op, "agents")]
        exact = int(m["p99_us"]) == p99 and int(m["count"]) == int(ycsb(fleet_report, op, "Return=OK") or 0)
        own = all(rows.get((op, "agent:" + a["name"]), {}).get("p99_us") == str(int(ycsb(a["report"], op, "99thPercentileLatency(us)")))
                  for a in runs)
        check(f"{op} p99", exact and own,
              f"fleet {p99:,} us; the {m['agents']} clients' histograms added up from the HDR log: {int(m['count']):,} values, "
              f"p99 {int(m['p99_us']):,} us (the same: {'yes' if exact else 'no'}; each client's own p99 in the log = its report's: "
              f"{'yes' if own else 'no'}); the clients' own p99s {lo:,.0f}..{hi:,.0f} us (inside: {'yes' if inside else 'no'}), "
              f"their average {avg:,.0f} us")
    else:
        check(f"{op} p99", inside, f"fleet {p99:,} us within the clients' own p99s {lo:,.0f}..{hi:,.0f} us "
              f"(no HDR log merge: a weaker check); their average {avg:,.0f} us")
sys.exit(0 if ok else 1)
EOF
echo "# command (the measured run): ${CMD[*]}" | sed "s#$WORK#\$WORK#g"
[[ -n $KEEP ]] && say "outputs kept in $WORK"
exit $status
