#!/usr/bin/env bash
# End-to-end test of an outage under the live screen (tmux, 120x40): a run
# against a Redis server of its own, which is killed (kill -9) mid-run. No
# line of a library (go-redis's "redis: ... connection pool: failed to
# dial ...") may reach the screen, during the outage or after it; the
# screen shows the cause (connection refused) with its kind (unavailable),
# and the verdicts of issue 24: the header's rate is 0 ops/s (successful
# operations) with the failed ones beside it, the header says outage, the
# time axis carries the ! marks of failed operations, and after q the
# report has the outage and benchtop exits 1.
#
#   bash .ci/tui-redis-e2e.sh     # starts its own Redis on BENCHTOP_REDIS_PORT (default 6879)
#   tmux_server=NAME bash .ci/tui-redis-e2e.sh   # on a tmux server of that name (-L)
set -euo pipefail

cd "$(dirname "$0")/.."
export BENCHTOP_REDIS_PORT=${BENCHTOP_REDIS_PORT:-6879}

name=tui-redis-e2e
session="benchtop-redis-e2e-$$"
tmux_server=${tmux_server:-}
source .ci/tmux-lib.sh
tmp=$(mktemp -d)
cleanup() {
	tmx kill-session -t "$session" 2>/dev/null || true
	bash .ci/servers/redis.sh stop >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# foreign: lines of a library on screen (go-redis prefixes its own).
foreign() { screen | grep -E 'redis: [0-9/]|connection pool|failed to dial after|^redis: ' || true; }

eval "$(bash .ci/servers/redis.sh start)"
go build -o "$tmp/benchtop" .
addr=$BENCHTOP_REDIS_ADDR
"$tmp/benchtop" load redis -p redis.addr="$addr" -p recordcount=2000 --headless >/dev/null 2>"$tmp/load.err" ||
	{ cat "$tmp/load.err"; fail "load failed"; }

export LANG=C.UTF-8 LC_ALL=C.UTF-8
tmx -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color \"$tmp/benchtop\" run redis -p redis.addr=$addr -p recordcount=2000 -threads 2 -p maxexecutiontime=120 2>\"$tmp/stderr\"; echo EXIT=\$?; sleep 600"
wait_for '[1-9][0-9.]*[KM]? ops/s' 20 || fail "no throughput before the outage"

kill -9 "$(cat "${TMPDIR:-/tmp}/benchtop-redis-$BENCHTOP_REDIS_PORT/redis.pid")"
echo "tui-redis-e2e: Redis killed (kill -9) mid-run"
wait_for 'unavailable' 20 || fail "the error kind (unavailable) is not on screen"
wait_for 'connection refused' 20 || fail "the cause (connection refused) is not on screen"
# The verdicts: no goodput, the failures beside it, an outage after 3
# intervals, ! on the time axis where operations failed.
wait_for '✗ outage · nothing succeeded for [0-9]' 20 || fail "the header does not say outage"
wait_for ' 0 ops/s +failed [0-9.]+[KM]?/s' 5 || fail "the header's rate is not 0 ops/s with the failed ones beside it"
screen | grep -E '└[─┴▲!0-9+]*!' >/dev/null || fail "no ! mark of failed operations on the time axis"
# Through the outage, several seconds of go-redis's pool retrying.
for ((i = 0; i < 8; i++)); do
	f=$(foreign)
	[[ -z $f ]] || fail "library output on the screen: $f"
	sleep 1
done
echo "tui-redis-e2e: the cause is shown, no library line in 8 s of outage"

tmx send-keys -t "$session" -l 'q'
wait_for '^EXIT=' 30 || fail "benchtop did not exit within 30 s of q"
screen | grep -q '^EXIT=1' || fail "benchtop did not exit 1 after an outage"
screen | grep -q '^# outage: no operation succeeded from ' || fail "the report has no outage line"
grep -q 'run phase: outage: no operation succeeded' "$tmp/stderr" || fail "no outage line on stderr: $(cat "$tmp/stderr")"
screen | grep -q 'Errors(unavailable)' || fail "the report has no Errors(unavailable) line"
screen | grep -q '# last unavailable: .*connection refused' || fail "the report has no '# last unavailable' cause"
f=$(foreign)
[[ -z $f ]] || fail "library output after the screen: $f"
grep -q 'failed to dial' "$tmp/stderr" && fail "go-redis wrote to stderr"
echo "tui-redis-e2e: PASS"
