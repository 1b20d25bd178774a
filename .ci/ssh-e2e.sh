#!/usr/bin/env bash
# End-to-end test of the SSH viewers with Debian's OpenSSH client, in tmux:
# a run on the memory store serves its live screen on 127.0.0.1; one
# viewer with a key of its own (read-only) and one with a key listed in
# --ssh-authorized-keys both capture the screen; `+` from the read-only
# viewer changes nothing (its screen says so and Threads stays), `+` from
# the authorized one raises Threads; the header counts the viewers; q
# leaves a session without stopping the run; the host key is generated
# once and reused.
set -euo pipefail

cd "$(dirname "$0")/.."
PORT=${BENCHTOP_SSH_PORT:-2223}

need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "ssh-e2e: installing $2"
	if [[ $(id -u) -eq 0 ]]; then SUDO=""; else SUDO="sudo"; fi
	$SUDO apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$2" >/dev/null
}
need tmux tmux
need ssh openssh-client

tmp=$(mktemp -d)
sess="benchtop-ssh-$$"
cleanup() {
	for s in run ro ctl; do tmux kill-session -t "$sess-$s" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	for s in run ro ctl; do
		echo "--- $s"
		tmux capture-pane -p -t "$sess-$s" 2>/dev/null || true
	done
	echo "--- stderr"
	cat "$tmp/stderr" 2>/dev/null || true
	echo "ssh-e2e: FAIL: $*"
	exit 1
}
screen() { tmux capture-pane -p -t "$sess-$1"; }
wait_for() { # SESSION REGEX [SECONDS]
	local i
	for ((i = 0; i < ${3:-10} * 5; i++)); do
		screen "$1" | grep -Eq -- "$2" && return 0
		sleep 0.2
	done
	return 1
}
threads() { screen "$1" | grep -Eo 'Threads [0-9]+' | head -n1 | grep -Eo '[0-9]+$'; }

go build -o "$tmp/benchtop" .
ssh-keygen -q -t ed25519 -N "" -C viewer -f "$tmp/viewer"
ssh-keygen -q -t ed25519 -N "" -C controller -f "$tmp/controller"
cp "$tmp/controller.pub" "$tmp/authorized_keys"
export LANG=C.UTF-8 LC_ALL=C.UTF-8 XDG_STATE_HOME="$tmp/state"

# The run: headless, so that every screen on it is an SSH viewer's.
tmux -u new-session -d -s "$sess-run" -x 120 -y 10 \
	"XDG_STATE_HOME=\"$tmp/state\" \"$tmp/benchtop\" run memory --headless -threads 2 -p maxexecutiontime=120 --serve-ssh 127.0.0.1:$PORT --ssh-authorized-keys \"$tmp/authorized_keys\" --log \"$tmp/lib.log\" >\"$tmp/stdout\" 2>\"$tmp/stderr\"; echo EXIT=\$?; sleep 600"
for ((i = 0; i < 50; i++)); do
	grep -q "SSH viewers" "$tmp/stderr" 2>/dev/null && break
	sleep 0.2
done
grep -q "SSH viewers: ssh -p $PORT 127.0.0.1" "$tmp/stderr" || fail "no SSH note on stderr"
hostkey="$tmp/state/benchtop/ssh_host_ed25519"
[[ -s $hostkey ]] || fail "no host key in the state folder"
sum1=$(sha256sum "$hostkey")

sshcmd() { # KEY
	echo "ssh -tt -p $PORT -i $1 -o IdentitiesOnly=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=$tmp/known_hosts -o LogLevel=ERROR -o PasswordAuthentication=no 127.0.0.1"
}
tmux -u new-session -d -s "$sess-ro" -x 100 -y 30 "TERM=xterm-256color $(sshcmd "$tmp/viewer"); echo SSH-EXIT=\$?; sleep 600"
wait_for ro 'Threads [0-9]+' 15 || fail "the read-only viewer has no screen"
wait_for ro 'read-only' 5 || fail "the read-only viewer is not told it is read-only"
tmux -u new-session -d -s "$sess-ctl" -x 120 -y 40 "TERM=xterm-256color $(sshcmd "$tmp/controller"); echo SSH-EXIT=\$?; sleep 600"
wait_for ctl 'Threads [0-9]+' 15 || fail "the authorized viewer has no screen"
wait_for ctl '2 viewers' 5 || fail "the header does not count 2 viewers"
screen ctl | grep -q 'read-only' && fail "the authorized viewer is read-only"

before=$(threads ro)
tmux send-keys -t "$sess-ro" -l '+'
wait_for ro 'read-only viewer: \+ changes nothing' 8 || fail "+ from the read-only viewer was not refused on its screen"
sleep 2.5 # two intervals: a change would show by now
after=$(threads ctl)
[[ $before == "$after" ]] || fail "+ from the read-only viewer changed Threads $before -> $after"
echo "ssh-e2e: read-only + refused, Threads stays $after"

want=$((after + 1))
tmux send-keys -t "$sess-ctl" -l '+'
wait_for ctl "Threads $want( |$)" 10 || fail "+ from the authorized viewer did not raise Threads to $want"
wait_for ro "Threads $want( |$)" 10 || fail "the read-only viewer does not see Threads $want"
echo "ssh-e2e: authorized + raised Threads to $want, seen by both"

echo "ssh-e2e: read-only viewer's screen:"; screen ro | head -n 2
echo "ssh-e2e: authorized viewer's screen:"; screen ctl | head -n 2
tmux send-keys -t "$sess-ro" -l 'q'
wait_for ro '^SSH-EXIT=' 10 || fail "q did not end the read-only session"
wait_for ctl '1 viewer( |$)' 10 || fail "the header does not count the viewer leaving"
screen run | grep -q '^EXIT=' && fail "a viewer leaving stopped the run"
tmux send-keys -t "$sess-ctl" -l 'q'
wait_for ctl '^SSH-EXIT=' 10 || fail "q did not end the authorized session"

# A password is refused: no key offered, no way in.
if ssh -p "$PORT" -o PubkeyAuthentication=no -o PreferredAuthentications=password,keyboard-interactive \
	-o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR 127.0.0.1 true 2>/dev/null; then
	fail "a session without a key got in"
fi

# The run goes on; stop it and check the host key is reused next time.
pkill_run() { tmux send-keys -t "$sess-run" C-c; }
pkill_run
wait_for run 'EXIT=130' 20 || fail "the run did not end on ^C"
grep -q '\[OVERALL\]' "$tmp/stdout" || fail "no report"
tmux kill-session -t "$sess-run"
tmux -u new-session -d -s "$sess-run" -x 120 -y 10 \
	"XDG_STATE_HOME=\"$tmp/state\" \"$tmp/benchtop\" run memory --headless -p maxexecutiontime=3 --serve-ssh 127.0.0.1:$PORT >/dev/null 2>&1; echo EXIT=\$?; sleep 600"
wait_for run '^EXIT=0' 20 || fail "second run failed"
[[ $(sha256sum "$hostkey") == "$sum1" ]] || fail "the host key was not reused"
grep -qi 'redis\|wish\|ssh:' "$tmp/stderr" && fail "library output on stderr: $(grep -i 'redis\|wish\|ssh:' "$tmp/stderr")"
echo "ssh-e2e: PASS"
