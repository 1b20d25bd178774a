#!/usr/bin/env bash
# What SSH viewers cost: benchtop's own CPU (from /proc/PID/stat, in % of
# one core) over a window with no viewer, then with N viewers (Debian's
# OpenSSH client, `ssh -tt` in tmux at 120x40), REPS times each, on a run
# held at a fixed target so that the run itself costs the same throughout.
#
#   bash scripts/ssh-viewers-cpu.sh            # 10 viewers, 20 s windows, 3 reps
#   VIEWERS=10 WINDOW=20 REPS=3 TARGET=2000 PORT=2224 bash scripts/ssh-viewers-cpu.sh
#
# Prints one line per window and the added cost per repetition.
set -euo pipefail
cd "$(dirname "$0")/.."
VIEWERS=${VIEWERS:-10}
WINDOW=${WINDOW:-20}
REPS=${REPS:-3}
TARGET=${TARGET:-2000}
PORT=${PORT:-2224}

tmp=$(mktemp -d)
cleanup() {
	for ((i = 0; i < VIEWERS; i++)); do tmux kill-session -t "btv-$$-$i" 2>/dev/null || true; done
	[[ -n ${pid:-} ]] && kill "$pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
go build -o "$tmp/benchtop" .
ssh-keygen -q -t ed25519 -N "" -f "$tmp/key"

XDG_STATE_HOME="$tmp/state" "$tmp/benchtop" run memory --headless -threads 4 -target "$TARGET" \
	-p maxexecutiontime=$(((WINDOW * 2 + 10) * REPS + 30)) --serve-ssh 127.0.0.1:$PORT >/dev/null 2>"$tmp/stderr" &
pid=$!
sleep 3
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# cpu SECONDS: benchtop's CPU over the next SECONDS, % of one core.
cpu() {
	local t0 t1 s0 s1
	t0=$(ticks)
	s0=$(date +%s.%N)
	sleep "$1"
	t1=$(ticks)
	s1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v s="$s0" -v e="$s1" -v hz="$hz" 'BEGIN { printf "%.1f", (b - a) / hz / (e - s) * 100 }'
}
export LANG=C.UTF-8 LC_ALL=C.UTF-8
for ((r = 1; r <= REPS; r++)); do
	base=$(cpu "$WINDOW")
	for ((i = 0; i < VIEWERS; i++)); do
		tmux -u new-session -d -s "btv-$$-$i" -x 120 -y 40 \
			"TERM=xterm-256color ssh -tt -p $PORT -i $tmp/key -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR 127.0.0.1"
	done
	sleep 4 # sessions open and draw their first frames
	for ((i = 0; i < VIEWERS; i++)); do
		tmux capture-pane -p -t "btv-$$-$i" | grep -q 'Threads' || { echo "viewer $i has no screen" >&2; exit 1; }
	done
	with=$(cpu "$WINDOW")
	for ((i = 0; i < VIEWERS; i++)); do tmux kill-session -t "btv-$$-$i" 2>/dev/null || true; done
	sleep 2
	awk -v r="$r" -v b="$base" -v w="$with" -v n="$VIEWERS" 'BEGIN { printf "rep %d: no viewer %5.1f %%  %d viewers %5.1f %%  added %5.1f %% of one core\n", r, b, n, w, w - b }'
done
