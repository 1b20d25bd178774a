# shellcheck shell=bash
# The screen helpers of the tmux tests (tui-e2e, tui-baseline-e2e,
# tui-redis-e2e), sourced from the repository's root after the test sets
# $name (its FAIL lines' prefix) and $session (its tmux session); with
# $tmux_server set, every tmux call goes to a server of that name (-L),
# which other tmux users on the machine neither see nor stop.

# tmx is tmux, on the test's own server when it has one.
tmx() {
	if [[ -n ${tmux_server:-} ]]; then
		tmux -L "$tmux_server" "$@"
	else
		tmux "$@"
	fi
}

# need_tmux installs tmux from Debian's packages when it is missing.
need_tmux() {
	command -v tmux >/dev/null 2>&1 && return 0
	echo "$name: installing tmux"
	local sudo=""
	[[ $(id -u) -eq 0 ]] || sudo="sudo"
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq tmux >/dev/null
}

# screen prints the pane, with 200 lines of scroll-back.
screen() { tmx capture-pane -p -t "$session" -S -200; }

# fail prints the screen and the reason, and ends the test.
fail() {
	echo "--- screen"
	screen || true
	echo "---"
	echo "$name: FAIL: $*"
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
