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

if ! command -v tmux >/dev/null 2>&1; then
	echo "tui-baseline-e2e: installing tmux"
	if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
	$SUDO apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq tmux >/dev/null
fi

tmp=$(mktemp -d)
session="benchtop-baseline-e2e-$$"
# A server of its own: other tmux users on the machine neither see nor
# stop it.
tm() { tmux -L "$session" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

screen() { tm capture-pane -p -t "$session" -S -200; }

fail() {
	echo "--- screen"
	screen || true
	echo "---"
	echo "tui-baseline-e2e: FAIL: $*"
	exit 1
}

# wait_for REGEX [SECONDS]: poll the screen until it matches.
wait_for() {
	local re=$1 limit=${2:-10} i
	for ((i = 0; i < limit * 5; i++)); do
		if screen | grep -Eq -- "$re"; then
			return 0
		fi
		sleep 0.2
	done
	return 1
}

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
tm -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color ./benchtop run --baseline nope.json 2>bad.err; echo EXIT=\$?; sleep 600"
wait_for '^EXIT=' 10 || fail "a bad --baseline did not end"
screen | grep -q '^EXIT=2$' || fail "a bad --baseline: not exit status 2"
[[ $(wc -l <bad.err) == 1 ]] && grep -q -- '--baseline nope.json: no such file' bad.err ||
	fail "a bad --baseline: not one clear line: $(cat bad.err)"
tm kill-session -t "$session"

# The live run against it.
tm -u new-session -d -s "$session" -x 120 -y 40 \
	"TERM=xterm-256color ./benchtop run -p maxexecutiontime=120 -threads 1 --at 2s:threads=2 --baseline base.json --baseline base.csv --json run.json --html run.html --log log.txt 2>>stderr.txt; echo EXIT=\$?; sleep 600"

wait_for 'Threads [0-9]+' 10 || fail "no first frame within 10 s"
wait_for '── baseline: base\.json · [0-9,]+ ops/s' 15 || fail "no baseline legend with its ops/s at 120x40"
# The run phase (after the memory store's load) against the baseline's.
wait_for 'this run [0-9,]+ \([+−][0-9.]+ %\)' 40 || fail "no comparison with this run's mean at 120x40"
# The legend is in the baseline's faint colour (the dark theme's 60 in 256
# colours), and so are cells of its line on the chart.
faint_lines() { tm capture-pane -p -e -t "$session" | grep -c $'\e\\[38;5;60m' || true; }
for ((i = 0; i < 50; i++)); do
	(($(faint_lines) >= 3)) && break
	sleep 0.2
done
(($(faint_lines) >= 3)) || fail "the baseline's faint colour is on $(faint_lines) lines (want the legend and its line on the chart)"
echo "tui-baseline-e2e: 120x40 legend: $(screen | grep -Eo '── baseline: .*\)' | head -n1)"

tm send-keys -t "$session" Tab
wait_for 'Δ ops/s' 10 || fail "no Δ ops/s column in the segments view at 120x40"
wait_for '[+−][0-9.]+ %' 10 || fail "no difference against the baseline in the segments table"
tm send-keys -t "$session" Tab
wait_for '── baseline: base\.json' 10 || fail "back to the main view: no baseline legend"

tm resize-window -t "$session" -x 80 -y 24
wait_for 'baseline: base\.json' 10 || fail "no baseline label at 80x24"
(($(tm capture-pane -p -t "$session" | wc -L) <= 80)) || fail "a line wider than 80 at 80x24"
echo "tui-baseline-e2e: 80x24 legend: $(screen | grep -Eo 'baseline: base\.json.*' | head -n1)"
tm resize-window -t "$session" -x 120 -y 40

tm send-keys -t "$session" q
wait_for '^EXIT=' 15 || fail "q did not end the run"
screen | grep -q '^EXIT=0$' || fail "exit status not 0"
screen | grep -Eq '^# baseline: base\.json: throughput [0-9,]+ → [0-9,]+ ops/s' || fail "no '# baseline:' line after the report"
grep -q 'id="chart-compare-throughput"' run.html || fail "the --html page has no comparison chart"
grep -q 'baseline: base.json' run.html || fail "the --html page does not name the baseline"
grep -q '"baseline": {' run.json || fail "the JSON summary does not name the baseline"
echo "tui-baseline-e2e: ok"
