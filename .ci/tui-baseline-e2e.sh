#!/usr/bin/env bash
# End-to-end test of --baseline in a real terminal (tmux): a short headless
# run writes a baseline (JSON summary and CSV time series); a live run
# given it shows "baseline: base.json" with its figure under the
# throughput chart, in the baseline's faint colour, at 120x40 and still at
# 80x24, the Δ columns in the segments view; q ends it with the
# "# baseline:" line after the report, the comparison in its --html page
# and the baseline named in its JSON. A bad --baseline file stops before
# the screen opens: one line, exit status 2.
set -euo pipefail

cd "$(dirname "$0")/.."

name=tui-baseline-e2e
session="benchtop-baseline-e2e-$$"
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

# The baseline: 4 s, threads 1 then 2.
./benchtop run -p maxexecutiontime=4 -threads 1 --at 2s:threads=2 --headless \
	--json base.json --timeseries base.csv </dev/null >base.txt 2>base.err ||
	{ cat base.err; echo "tui-baseline-e2e: FAIL: the baseline run failed"; exit 1; }

export LANG=C.UTF-8 LC_ALL=C.UTF-8
# The screen's colour profile comes from termenv, which draws no colour at
# all when CI is set (it takes that for "not a terminal"): the tmux pane is
# a terminal, and this test reads its colours.
unset CI

# A bad file: refused before the screen, one line, status 2.
tmx -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color ./benchtop run --baseline nope.json 2>bad.err; echo EXIT=\$?; sleep 600"
wait_for '^EXIT=' 10 || fail "a bad --baseline did not end"
screen | grep -q '^EXIT=2$' || fail "a bad --baseline: not exit status 2"
[[ $(wc -l <bad.err) == 1 ]] && grep -q -- '--baseline nope.json: no such file' bad.err ||
	fail "a bad --baseline: not one clear line: $(cat bad.err)"
tmx kill-session -t "$session"

# The live run against it.
tmx -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color ./benchtop run -p maxexecutiontime=120 -threads 1 --at 2s:threads=2 --baseline base.json --baseline base.csv --json run.json --html run.html --log log.txt 2>>stderr.txt; echo EXIT=\$?; sleep 600"

wait_for 'Threads [0-9]+' 10 || fail "no first frame within 10 s"
wait_for '── baseline: base\.json · [0-9,]+ ops/s' 15 || fail "no baseline legend with its ops/s at 120x40"
# The run phase (after the memory store's load) against the baseline's.
wait_for 'this run [0-9,]+ \([+−][0-9.]+ %\)' 40 || fail "no comparison with this run's mean at 120x40"
# The legend is in the baseline's faint colour (the dark theme's 60 in 256
# colours), and so are cells of its line on the chart.
faint_lines() { tmx capture-pane -p -e -t "$session" | grep -c $'\e\\[38;5;60m' || true; }
for ((i = 0; i < 50; i++)); do
	(($(faint_lines) >= 3)) && break
	sleep 0.2
done
(($(faint_lines) >= 3)) || fail "the baseline's faint colour is on $(faint_lines) lines (want the legend and its line on the chart)"
echo "tui-baseline-e2e: 120x40 legend: $(screen | grep -Eo '── baseline: .*\)' | head -n1)"

tmx send-keys -t "$session" Tab
wait_for 'Δ ops/s' 10 || fail "no Δ ops/s column in the segments view at 120x40"
wait_for '[+−][0-9.]+ %' 10 || fail "no difference against the baseline in the segments table"
tmx send-keys -t "$session" Tab
wait_for '── baseline: base\.json' 10 || fail "back to the main view: no baseline legend"

tmx resize-window -t "$session" -x 80 -y 24
wait_for 'baseline: base\.json' 10 || fail "no baseline label at 80x24"
(($(tmx capture-pane -p -t "$session" | wc -L) <= 80)) || fail "a line wider than 80 at 80x24"
echo "tui-baseline-e2e: 80x24 legend: $(screen | grep -Eo 'baseline: base\.json.*' | head -n1)"
tmx resize-window -t "$session" -x 120 -y 40

tmx send-keys -t "$session" q
wait_for '^EXIT=' 15 || fail "q did not end the run"
screen | grep -q '^EXIT=0$' || fail "exit status not 0"
screen | grep -Eq '^# baseline: base\.json: throughput [0-9,]+ → [0-9,]+ ops/s' || fail "no '# baseline:' line after the report"
grep -q 'id="chart-compare-throughput"' run.html || fail "the --html page has no comparison chart"
grep -q 'baseline: base.json' run.html || fail "the --html page does not name the baseline"
grep -q '"baseline": {' run.json || fail "the JSON summary does not name the baseline"
echo "tui-baseline-e2e: ok"
