#!/usr/bin/env bash
# End-to-end test of a run that loses its terminal and is attached again,
# in real terminals (tmux, a server of its own): benchtop alone (a run
# with no end) opens the live screen, + sets Threads, then the terminal's
# session is killed (tmux kill-session, as a dropped SSH session does).
# The run must go on without it; `benchtop attach --list` shows it
# detached with its report's path; `benchtop attach PID` from another
# session shows the same run's screen (Threads as set), takes keys (+),
# and q stops the run: the attach exits with the run's status (0), and
# the report file, the JSON (naming it), the CSV and the HDR log are
# there with no temporary file left, the run's own exit status 0 and its
# socket gone.
set -euo pipefail

cd "$(dirname "$0")/.."

name=attach-e2e
tmux_server="benchtop-attach-e2e-$$"
session=run
source .ci/tmux-lib.sh
need_tmux
tmp=$(mktemp -d)
pid=""
cleanup() {
	tmx kill-server 2>/dev/null || true
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/benchtop" .
mkdir -p "$tmp/out" "$tmp/xdg"
chmod 700 "$tmp/xdg"
# The run's socket goes into a runtime folder of this test's own.
export XDG_RUNTIME_DIR=$tmp/xdg
export LANG=C.UTF-8 LC_ALL=C.UTF-8

# value LABEL: the number after "LABEL " on screen.
value() {
	screen | grep -Eo -- "$1 [0-9]+" | head -n1 | grep -Eo '[0-9]+$' || true
}

# The pane's shell does on a hangup what a login shell does (it passes
# SIGHUP on to its job) and then, unlike one, stays to write the job's
# exit status. benchtop alone has no end: only a quit or SIGTERM ends it.
tmx -u new-session -d -s run -x 120 -y 40 "cd '$tmp/out'; trap 'kill -HUP \$pid' HUP
TERM=xterm-256color '$tmp/benchtop' -p recordcount=2000 --json x.json --timeseries x.csv --hdr-log x.hlog --log '$tmp/lib.log' </dev/tty >/dev/tty 2>>'$tmp/stderr' &
pid=\$!; echo \$pid >'$tmp/pid'
wait \$pid; st=\$?
while kill -0 \$pid 2>/dev/null; do wait \$pid; st=\$?; done
echo \$st >'$tmp/exit'"

wait_for 'Threads [0-9]+' 15 || fail "no first frame within 15 s"
wait_for '[1-9][0-9.]*[KMG]? ops/s' 15 || fail "no non-zero ops/s on screen"
pid=$(cat "$tmp/pid")
wait_for "benchtop attach $pid" 5 || fail "the screen does not say how to attach to run $pid"
threads=$(value Threads)
want=$((threads + 1))
tmx send-keys -t run -l '+'
wait_for "Threads $want( |$)" 10 || fail "Threads did not go from $threads to $want"
echo "$name: run $pid on screen, Threads $want"

# The terminal goes: the run must not.
tmx kill-session -t run
sleep 3
kill -0 "$pid" 2>/dev/null || fail "run $pid died with its terminal (exit status $(cat "$tmp/exit" 2>/dev/null))"
[[ ! -e $tmp/exit ]] || fail "run $pid ended with its terminal: exit status $(cat "$tmp/exit")"
list=$("$tmp/benchtop" attach --list)
echo "$list"
grep -Eq "^$pid +.* detached .*benchtop-report-[0-9-]+\.txt" <<<"$list" || fail "attach --list does not show run $pid detached with its report"
report=$(grep -Eo '/[^ ]*benchtop-report-[0-9-]+\.txt' <<<"$list")
echo "$name: run $pid goes on detached; its report will be $report"

# Attach from another terminal: the same run's screen, with its keys.
session=att
tmx -u new-session -d -s att -x 120 -y 40 "TERM=xterm-256color '$tmp/benchtop' attach $pid; echo ATTACH_EXIT=\$?; sleep 600"
wait_for "attached to run $pid" 10 || fail "no attached screen within 10 s"
wait_for "Threads $want( |$)" 10 || fail "the attached screen does not show Threads $want as set before the terminal was lost"
tmx send-keys -t att -l '+'
want=$((want + 1))
wait_for "Threads $want( |$)" 10 || fail "+ on the attached screen did not set Threads $want"
echo "$name: attached: Threads $want after +"

tmx send-keys -t att -l 'q'
wait_for '^ATTACH_EXIT=' 30 || fail "benchtop attach did not end within 30 s of q"
screen | grep -q "run $pid ended with exit status 0" || fail "the attached terminal was not told the run's end"
screen | grep -q '^ATTACH_EXIT=0' || fail "attach's exit status: $(screen | grep '^ATTACH_EXIT=')"
for ((i = 0; i < 50; i++)); do
	[[ -e $tmp/exit ]] && break
	sleep 0.2
done
[[ $(cat "$tmp/exit" 2>/dev/null) == 0 ]] || fail "run $pid's exit status: $(cat "$tmp/exit" 2>/dev/null || echo none)"

ls -A "$tmp/out"
for f in x.json x.csv x.hlog "$(basename "$report")"; do
	[[ -s $tmp/out/$f ]] || fail "$f missing or empty"
done
[[ $(dirname "$report") -ef $tmp/out ]] || fail "the report is not in the exports' folder: $report"
if ls -A "$tmp/out" | grep -q '\.tmp$'; then
	fail "temporary files left: $(ls -A "$tmp/out" | grep '\.tmp$')"
fi
grep -q '^\[OVERALL\], Throughput' "$report" || fail "the report file has no [OVERALL] lines"
grep -q "\"report_file\": \"$report\"" "$tmp/out/x.json" || fail "the JSON summary does not name the report file"
grep -q "wrote $report" "$tmp/stderr" || fail "no 'wrote' line for the report"
[[ -z $(ls -A "$tmp/xdg/benchtop") ]] || fail "the run's socket is left: $(ls -A "$tmp/xdg/benchtop")"
echo "$name: PASS"
