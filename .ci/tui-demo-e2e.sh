#!/usr/bin/env bash
# End-to-end test of `benchtop demo` in a real terminal (tmux), on the
# built binary: the demo plays on the model server (sim) by itself, each of
# its 7 steps shows its caption in turn (read from the screen, at 120x40,
# and at 80x24 wrapped onto two lines), then the end card replaces the
# main view with the model's capacity and the segments table; q ends it
# with the YCSB report and exit status 0. A store the demo does not play
# on is refused in one line, status 2. It takes about 80 s (the demo's
# 70 s).
set -euo pipefail

cd "$(dirname "$0")/.."

name=tui-demo-e2e
session="benchtop-demo-e2e-$$"
tmux_server=$session # a server of its own (see tmux-lib.sh)
source .ci/tmux-lib.sh
need_tmux
tmp=$(mktemp -d)
cleanup() {
	tmx kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/benchtop" .
cd "$tmp"
export LANG=C.UTF-8 LC_ALL=C.UTF-8

# A store the demo does not play on: one line, status 2, no screen.
if ./benchtop demo redis </dev/null >bad.out 2>bad.err; then
	echo "$name: FAIL: benchtop demo redis succeeded"
	exit 1
else
	code=$?
fi
[[ $code == 2 && $(wc -l <bad.err) == 1 ]] && grep -q 'the demo plays on sim (a model server, the default) or memory' bad.err ||
	{ cat bad.err; echo "$name: FAIL: benchtop demo redis: status $code, not one clear line"; exit 1; }

tmx -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color ./benchtop demo --log demo.log 2>>demo.err; echo EXIT=\$?; sleep 600"

# step N TEXT: the caption of step N (of 7) appears, with TEXT. A step holds
# 10 s; a loaded machine may be late by a few.
step() {
	wait_for "▶ step $1 of 7: $2" 30 || fail "no caption for step $1 ('$2')"
	echo "$name: step $1 of 7 on screen"
}
step 1 "1 thread on a model server of 10,000 ops/s \(20 servers × 2 ms\)"
screen | grep -q 'sim' || fail "the header does not name the sim adapter"
step 2 "threads 1 → 8: 8 of the 20 servers busy"
step 3 "threads 8 → 20, one per server: the capacity"
step 4 "threads 20 → 64, more than the servers"
# At 80x24 the caption wraps onto a second line under the step's number.
tmx resize-window -t "$session" -x 80 -y 24
wait_for '^ +.*\(the knee\)' 10 || fail "at 80x24 the caption of step 4 is not wrapped onto a second line"
screen | grep -q '▶ step 4 of 7: threads 20 → 64' || fail "at 80x24 the caption of step 4 lost its first line"
tmx resize-window -t "$session" -x 120 -y 40
step 5 "target 8,000 ops/s \(80 % of capacity\)"
step 6 "target 11,000 ops/s, above capacity"
step 7 "target → unlimited"

# The end card: the run is over, the segments table replaces the chart.
wait_for 'That was the demo\.' 30 || fail "no end card after the last step"
for want in "The model's capacity was 10,000 ops/s \(20 servers × 2 ms\)" 'Segments · ' '▶ the end' 'finished'; do
	screen | grep -Eq -- "$want" || fail "the end card lacks '$want'"
done
rows=$(screen | grep -Ec '^│ +[0-9]+ +[0-9]+:[0-9]+ ' || true)
[[ $rows -ge 7 ]] || fail "the end card's segments table has $rows rows, want the 7 segments"
tmx resize-window -t "$session" -x 80 -y 24
wait_for 'That was the demo\.' 10 || fail "no end card at 80x24"
echo "$name: end card with $rows segments"

tmx send-keys -t "$session" q
wait_for '^EXIT=' 20 || fail "q did not end the demo"
screen | grep -q '^EXIT=0$' || fail "the demo did not exit with status 0"
screen | grep -q '^\[OVERALL\], Throughput' || fail "no YCSB report after the demo"
echo "$name: ok"
