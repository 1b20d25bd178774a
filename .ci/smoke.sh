#!/usr/bin/env bash
# Headless smoke run: a short YCSB run on the memory store with every
# export, whose report and files are checked.
set -euo pipefail
BIN=${1:?usage: smoke.sh BENCHTOP_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$(dirname "$0")/.."

fail() { echo "smoke: FAIL: $*"; echo "--- stdout"; cat "$tmp/out.txt"; echo "--- stderr"; cat "$tmp/err.txt"; exit 1; }

# Exact counts: every operation done and reported once.
"$BIN" run memory -P workloads/workloada -p recordcount=20000 -p operationcount=400000 \
	-threads 4 >"$tmp/out.txt" 2>"$tmp/err.txt" </dev/null
grep -q '^\[OVERALL\], RunTime(ms), [0-9]' "$tmp/out.txt" || fail "no [OVERALL] RunTime"
grep -q '^\[OVERALL\], Throughput(ops/sec), [0-9]' "$tmp/out.txt" || fail "no throughput"
reads=$(sed -n 's/^\[READ\], Return=OK, //p' "$tmp/out.txt")
updates=$(sed -n 's/^\[UPDATE\], Return=OK, //p' "$tmp/out.txt")
[[ $((reads + updates)) -eq 400000 ]] || fail "READ+UPDATE OK = $reads+$updates, want 400000"
grep -q '^\[READ\], 99thPercentileLatency(us), [0-9]' "$tmp/out.txt" || fail "no READ p99"
grep -q '^# \[LOAD\], Operations, 20000' "$tmp/out.txt" || fail "no load phase of 20000 records"
core_tput=$(sed -n 's/^\[OVERALL\], Throughput(ops\/sec), //p' "$tmp/out.txt")
# YCSB 0.17.0's lines, and nothing a YCSB parser would misread.
grep -q '^\[TOTAL_GCs\], Count, [0-9]' "$tmp/out.txt" || fail "no GC lines"
grep -q '^\[CLEANUP\], Operations, 4$' "$tmp/out.txt" || fail "no [CLEANUP] of the 4 workers"
! grep -q '50thPercentileLatency' "$tmp/out.txt" || fail "YCSB's default percentiles are 95,99"
! grep -v '^#' "$tmp/out.txt" | grep -qv '^\[[^]]*\], [^,]*, [^, ]*$' || fail "a line that is neither # nor [SECTION], name, value"

# YCSB's exporter to exportfile, a threshold crossed: exit status 99.
set +e
"$BIN" run memory -P workloads/workloada -p recordcount=1000 --duration 1s --threshold 'ops>1e12' \
	-p exportfile="$tmp/export.json" -p exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter \
	>"$tmp/thr.out" 2>"$tmp/thr.err" </dev/null
code=$?
set -e
[[ $code -eq 99 ]] || fail "a crossed threshold exited $code, want 99"
grep -q '^# FAIL  ops>1e12' "$tmp/thr.out" || fail "no verdict table"
python3 - "$tmp/export.json" <<'PY' || fail "exportfile is not YCSB's JSON array"
import json, sys
a = json.load(open(sys.argv[1]))
assert {"metric": "OVERALL", "measurement": "RunTime(ms)"}.items() <= next(m for m in a if m["metric"] == "OVERALL").items(), a[:3]
PY

# Timed run with scheduled changes and every export.
"$BIN" run memory -P workloads/workloada -p recordcount=20000 -p operationcount=0 -p maxexecutiontime=3 \
	-threads 4 -s --json "$tmp/s.json" --timeseries "$tmp/t.csv" --hdr-log "$tmp/h.hlog" --html "$tmp/live.html" \
	--at 1s:threads=2 --at 2s:partitions=4 >"$tmp/out.txt" 2>"$tmp/err.txt" </dev/null
grep -q '^\[OVERALL\], RunTime(ms), [0-9]' "$tmp/out.txt" || fail "no [OVERALL] RunTime in the timed run"
grep -q 'sec: .* operations; .* current ops/sec' "$tmp/err.txt" || fail "no -s status lines"
grep -q '"segments"' "$tmp/s.json" || fail "JSON has no segments"
python3 - "$tmp/s.json" <<'PY' || fail "JSON summary content"
import json, sys
s = json.load(open(sys.argv[1]))
segs = s["segments"]
assert len(segs) >= 2, segs
for k in ("threads", "partitions", "target", "ops_per_sec", "p50_us", "p95_us", "p99_us", "errors"):
    assert k in segs[0], k
assert any(g["threads"] == 2 for g in segs), "no segment with 2 threads"
PY
[[ $(wc -l <"$tmp/t.csv") -ge 2 ]] || fail "time series has no rows"
grep -q '^#\[StartTime' "$tmp/h.hlog" || fail "HDR log has no header"
grep -q 'Tag=READ,' "$tmp/h.hlog" || fail "HDR log has no READ intervals"
# The HTML report: benchtop report on the exports writes what --html wrote.
grep -q 'id="segments"' "$tmp/live.html" || fail "HTML report has no segments table"
grep -q 'threads 4→2' "$tmp/live.html" || fail "HTML report lacks the threads change"
"$BIN" report "$tmp/s.json" --hdr-log "$tmp/h.hlog" --timeseries "$tmp/t.csv" -o "$tmp/later.html" \
	>>"$tmp/out.txt" 2>>"$tmp/err.txt" || fail "benchtop report exited non-zero"
cmp -s "$tmp/live.html" "$tmp/later.html" || fail "benchtop report on the exports differs from the --html page"

# The partitioned stream: live repartitioning loses, duplicates and reorders nothing.
# The last segment holds 2 s: after 6 -> 2 the epoch barrier drains the old
# partitions' backlog first, which took the whole of a 1 s segment when CI's
# lanes shared the cores (102 operations, no row consumed).
"$BIN" run memory -p workload=stream -p partitions=4 --at 1s:partitions=6 --at 2s:partitions=2 -p maxexecutiontime=4 \
	--json "$tmp/stream.json" --headless >"$tmp/out.txt" 2>"$tmp/err.txt" </dev/null || fail "stream run exited non-zero"
for k in RowsLost RowsDuplicated RowsOutOfOrder; do
	grep -q "^\[STREAM\], $k, 0$" "$tmp/out.txt" || fail "stream: $k is not 0"
done
python3 - "$tmp/stream.json" <<'PY' || fail "stream JSON"
import json, sys
s = json.load(open(sys.argv[1]))
st = s["stream"]
assert st["lost"] == 0 and st["duplicated"] == 0 and st["out_of_order"] == 0, st
assert st["produced"] == st["consumed"] > 0, st
assert all("rows_per_sec" in g and "mb_per_sec" in g for g in s["segments"]), s["segments"]
# Each segment's rows are its own (read from running counters at every
# change), so every segment that ran consumed rows.
assert all(g["rows_per_sec"] > 0 for g in s["segments"] if g["duration_s"] > 0.3), s["segments"]
PY

# Bad input: one line, exit 2.
set +e
"$BIN" run memory -threads 0 >"$tmp/bad.out" 2>"$tmp/bad.err"
code=$?
set -e
[[ $code -eq 2 ]] || fail "-threads 0 exited $code, want 2"
[[ $(wc -l <"$tmp/bad.err") -eq 1 ]] || fail "-threads 0 printed more than one line"

# Empty flag values and a binary property file: one line, exit 2.
head -c 4096 /dev/urandom >"$tmp/random.bin"
for args in "--threads=" "-threads=" "--target=" "--json=" "-P $tmp/random.bin" "-P /dev/zero"; do
	set +e
	# shellcheck disable=SC2086
	timeout 30 "$BIN" run memory $args >"$tmp/bad.out" 2>"$tmp/bad.err" </dev/null
	code=$?
	set -e
	[[ $code -eq 2 ]] || fail "$args exited $code, want 2"
	[[ $(wc -l <"$tmp/bad.err") -eq 1 && ! -s $tmp/bad.out ]] || fail "$args: want one line on stderr, nothing on stdout"
done

# SIGTERM early in a run and during an adapter's connect: caught (one
# line, or the report), exit 143, and no empty or half-written export.
sigterm_at() { # delay args...
	local delay=$1; shift
	local d="$tmp/sig"; rm -rf "$d"; mkdir "$d"
	"$BIN" "$@" --json "$d/x.json" --timeseries "$d/x.csv" --hdr-log "$d/x.hlog" >"$tmp/sig.out" 2>"$tmp/sig.err" </dev/null &
	local pid=$!
	# From when the process catches SIGTERM (internal/sigfirst, in its
	# init): before that the kernel's default ends it, as it would any
	# program, and a loaded machine can take more than the delay to get
	# there. SigCgt's bit 15 (0x4000) is SIGTERM caught.
	local cgt
	for _ in $(seq 500); do
		cgt=$(awk '/^SigCgt/ { print $2 }' "/proc/$pid/status" 2>/dev/null) || true
		[[ -n $cgt ]] && ((0x$cgt & 0x4000)) && break
		sleep 0.01
	done
	sleep "$delay"
	kill -TERM $pid
	set +e
	wait $pid
	code=$?
	set -e
	[[ $code -eq 143 ]] || fail "SIGTERM at ${delay}s into $*: exit $code, want 143"
	[[ -s $tmp/sig.err || -s $tmp/sig.out ]] || fail "SIGTERM at ${delay}s into $*: killed without a word"
	if find "$d" -mindepth 1 \( -size 0 -o -name '*.tmp' \) | grep -q .; then
		fail "SIGTERM at ${delay}s into $*: empty or temporary export files: $(ls -la "$d")"
	fi
}
sigterm_at 0.08 run memory --headless -p recordcount=1000
sigterm_at 1.5 run mongodb -p mongodb.url=mongodb://127.0.0.1:1/ycsb
[[ $(wc -l <"$tmp/sig.err") -eq 1 ]] || fail "SIGTERM during the connect: want one line, got $(cat "$tmp/sig.err")"
[[ -z $(ls -A "$tmp/sig") ]] || fail "SIGTERM during the connect created files: $(ls -A "$tmp/sig")"

# SIGINT mid-run: report printed, exit 130.
"$BIN" run memory -p recordcount=1000 --headless >"$tmp/int.out" 2>"$tmp/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
set +e
wait $pid
code=$?
set -e
[[ $code -eq 130 ]] || fail "SIGINT exit $code, want 130"
grep -q '^\[OVERALL\], RunTime' "$tmp/int.out" || fail "no report after SIGINT"
echo "smoke: PASS (workload A on memory: $core_tput ops/s)"
