#!/usr/bin/env bash
# End-to-end test of the live screen in a real terminal (tmux): the TUI
# opens on the memory store, shows the controls, latency, CPU and NIC with a
# non-zero rate, reacts to + and ] on screen, and q ends the run with the
# YCSB report on stdout and exit status 0; the : prompt sets exact values
# and refuses bad ones inline.
set -euo pipefail

cd "$(dirname "$0")/.."

name=tui-e2e
session="benchtop-e2e-$$"
source .ci/tmux-lib.sh
need_tmux
tmp=$(mktemp -d)
cleanup() {
	tmux kill-session -t "$session" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# value LABEL: the number after "LABEL " on screen.
value() {
	screen | grep -Eo -- "$1 [0-9]+" | head -n1 | grep -Eo '[0-9]+$' || true
}

# BENCHTOP_E2E_RACE=1 builds with the race detector: the keys then drive the
# engine's controls from the UI goroutines while the workers run, and any
# data race report fails the test.
if [[ ${BENCHTOP_E2E_RACE:-} == 1 ]]; then
	go build -race -o "$tmp/benchtop" .
else
	go build -o "$tmp/benchtop" .
fi

# UTF-8 for the box drawing, 120x40, the report to the pane after exit.
export LANG=C.UTF-8 LC_ALL=C.UTF-8
tmux -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color \"$tmp/benchtop\" -p maxexecutiontime=120 --log \"$tmp/stderr\" 2>>\"$tmp/stderr\" ; echo EXIT=\$? ; sleep 600"

wait_for 'Threads [0-9]+' 10 || fail "no first frame within 10 s"
# The first intervals may still be loading: wait for the run and a rate.
wait_for '[1-9][0-9.]*[KMG]? ops/s' 15 || fail "no non-zero ops/s on screen"
for word in Threads Partitions p99 CPU NIC; do
	screen | grep -q -- "$word" || fail "'$word' is not on screen"
done

threads=$(value Threads)
partitions=$(value Partitions)
[[ -n $threads && -n $partitions ]] || fail "cannot read Threads and Partitions"
echo "tui-e2e: Threads $threads, Partitions $partitions"

want_t=$((threads + 1))
want_p=$((partitions + 1))
# press KEY REGEX WHAT: press a key and wait for its effect. On a saturated
# machine a key was seen lost about once in five runs (not understood yet:
# see the note of the TUI issue); one more press is allowed, and said.
press() {
	tmux send-keys -t "$session" -l "$1"
	wait_for "$2" 8 && return 0
	echo "tui-e2e: WARN: $3 did not change within 8 s of '$1'; pressing it once more"
	tmux send-keys -t "$session" -l "$1"
	wait_for "$2" 10
}
press '+' "Threads $want_t( |$)" Threads || fail "Threads did not go from $threads to $want_t"
press ']' "Partitions $want_p( |$)" Partitions || fail "Partitions did not go from $partitions to $want_p"
echo "tui-e2e: Threads $want_t, Partitions $want_p after + and ]"

# The : prompt: an exact value, and a bad one refused inline with the
# command line's message.
tmux send-keys -t "$session" -l ':threads 0'
wait_for 'threads "0": expected a whole number from 1 to [0-9]+' 8 || fail "no inline error for ': threads 0'"
tmux send-keys -t "$session" BSpace
tmux send-keys -t "$session" -l '7'
wait_for '✓ enter applies' 8 || fail "': threads 7' not accepted as typed"
tmux send-keys -t "$session" Enter
# A value set shows once a snapshot reports it. Under the race detector on
# a host the other lanes fill, the screen once drew fewer than 3 snapshots
# in 10 s ("Target unlimited→50.0K": asked, accepted, not yet reported), so
# these waits allow 30 s; they end as soon as the value shows.
wait_for 'Threads 7( |$)' 30 || fail "': threads 7' did not set Threads 7"
tmux send-keys -t "$session" -l ':target 50k'
tmux send-keys -t "$session" Enter
wait_for 'Target 50.0K ops/s' 30 || fail "': target 50k' did not set Target 50.0K ops/s"
echo "tui-e2e: the prompt set Threads 7 and Target 50.0K, refused threads 0"

tmux send-keys -t "$session" -l 'q'
wait_for '^EXIT=' 20 || fail "benchtop did not exit within 20 s of q"
screen | grep -q '\[OVERALL\]' || fail "no [OVERALL] report after q"
screen | grep -q '^EXIT=0' || fail "exit status: $(screen | grep '^EXIT=')"

if grep -q "DATA RACE" "$tmp/stderr" 2>/dev/null; then
	cat "$tmp/stderr"
	fail "the race detector reported a data race"
fi
echo "tui-e2e: PASS${BENCHTOP_E2E_RACE:+ (race detector on)}"
