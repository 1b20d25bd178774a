# shellcheck shell=bash
# The start/wait/stop skeleton shared by the server scripts in .ci/servers/.
# Sourced, never run: each NAME.sh sets SRV_NAME, sources this file, defines
# its own start and stop (and any extra commands) from the pieces below, and
# ends with `srv_main "$@"`, so that every script stays runnable on its own:
#
#   bash .ci/servers/NAME.sh start   # prints only `#` comments and `export` lines
#   bash .ci/servers/NAME.sh stop    # idempotent: stops our server, removes its folder
#
# The pieces:
#   log/die                      one line on stderr, prefixed by the script's name
#   srv_port VAR VALUE           checks that VALUE (from variable VAR) is a port number
#   srv_state_dir PORT           the state folder of this server on PORT (keyed by port)
#   port_open PORT               is something listening on 127.0.0.1:PORT (bash /dev/tcp)
#   srv_pid PIDFILE MARK...      prints the pid in PIDFILE if that process is alive and
#                                every MARK is one of its arguments (not a recycled pid)
#   srv_launch PIDFILE LOG CMD   runs CMD detached (stdin /dev/null, output to LOG),
#                                writes its pid to PIDFILE, sets SRV_PID
#   srv_wait_up PID LOG SECS WHAT CHECK...
#                                polls CHECK every 0.1 s until it succeeds; dies with
#                                the log's tail if PID exits or SECS pass (killing PID)
#   srv_stop PIDFILE WHAT SIG MARK...
#                                sends SIG (TERM usually) to the process srv_pid finds,
#                                waits SRV_GRACE seconds (default 10), then KILL
#   srv_remove_state DIR         removes a state folder (only a benchtop-* one)
#   srv_apt_install PKG BIN...   installs Debian package PKG unless a BIN exists
#
# Everything is on 127.0.0.1, ever. Scripts use `set -euo pipefail` before
# sourcing this file.

SRV_HOST=127.0.0.1 # loopback only, ever
SRV_GRACE=${SRV_GRACE:-10}

log() { echo "${SRV_NAME:-server}.sh: $*" >&2; }
die() {
	log "$*"
	exit 1
}

# srv_port VAR VALUE: VALUE must be a TCP port number (1-65535).
srv_port() {
	local var=$1 value=$2
	case $value in
	'' | *[!0-9]* | 0*) die "$var must be a port number (1-65535), not '$value'" ;;
	esac
	((value <= 65535)) || die "$var must be a port number (1-65535), not '$value'"
}

# srv_state_dir PORT prints this server's state folder for PORT: its pid
# files, log and data live there, so two instances on two ports never share one.
srv_state_dir() {
	echo "${TMPDIR:-/tmp}/benchtop-$SRV_NAME-$1"
}

# port_open PORT succeeds when something accepts connections on 127.0.0.1:PORT.
port_open() { (exec 3<>"/dev/tcp/$SRV_HOST/$1") 2>/dev/null; }

# srv_pid PIDFILE MARK... prints the pid on PIDFILE's first line when that
# process is alive and, for every MARK, one of its arguments is MARK or ends
# in /MARK or =MARK (a program's name, a path, a --flag=value): a recycled
# pid, or the same server on another port, never matches.
srv_pid() {
	local file=$1 pid mark arg found
	local -a args
	shift
	[[ -f $file ]] || return 1
	pid=$(head -n 1 "$file" 2>/dev/null) || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] || return 1
	mapfile -d '' args <"/proc/$pid/cmdline" 2>/dev/null || return 1
	for mark in "$@"; do
		found=
		for arg in "${args[@]}"; do
			case $arg in
			"$mark" | */"$mark" | *="$mark")
				found=1
				break
				;;
			esac
		done
		[[ -n $found ]] || return 1
	done
	echo "$pid"
}

# srv_launch PIDFILE LOG CMD... starts CMD in the background, detached from
# our stdout (so that `$(NAME.sh start)` returns), appending its output to
# LOG, and records its pid in PIDFILE and SRV_PID.
srv_launch() {
	local pidfile=$1 logfile=$2
	shift 2
	nohup "$@" </dev/null >>"$logfile" 2>&1 &
	SRV_PID=$!
	echo "$SRV_PID" >"$pidfile"
}

# srv_wait_up PID LOG SECS WHAT CHECK... waits until CHECK succeeds.
srv_wait_up() {
	local pid=$1 logfile=$2 secs=$3 what=$4 i
	shift 4
	for ((i = 0; i < secs * 10; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			local rc=0
			wait "$pid" 2>/dev/null || rc=$?
			if [[ -s $logfile ]]; then
				tail -n 20 "$logfile" >&2 2>/dev/null || true
			else
				echo "($logfile is empty)" >&2
			fi
			die "$what exited at start with status $rc (log above, $logfile)"
		fi
		if "$@"; then
			log "$what is up (pid $pid)"
			return 0
		fi
		sleep 0.1
	done
	tail -n 20 "$logfile" >&2 2>/dev/null || true
	srv_kill "$pid" TERM "$what"
	die "$what did not answer within ${secs}s (log above, $logfile)"
}

# srv_kill PID SIG WHAT sends SIG, waits up to SRV_GRACE seconds for PID to
# exit, then sends KILL.
srv_kill() {
	local pid=$1 sig=$2 what=$3 i
	kill "-$sig" "$pid" 2>/dev/null || return 0
	for ((i = 0; i < SRV_GRACE * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	log "$what (pid $pid) still running ${SRV_GRACE}s after SIG$sig: killing it"
	kill -KILL "$pid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
}

# srv_stop PIDFILE WHAT SIG MARK... stops the process srv_pid PIDFILE MARK...
# finds; a missing, stale or foreign pid is left alone. Always succeeds.
srv_stop() {
	local pidfile=$1 what=$2 sig=$3 pid
	shift 3
	if pid=$(srv_pid "$pidfile" "$@"); then
		srv_kill "$pid" "$sig" "$what"
		log "stopped $what (pid $pid)"
	else
		log "$what: not running"
	fi
	rm -f "$pidfile"
}

# srv_remove_state DIR removes a state folder made by srv_state_dir.
srv_remove_state() {
	local dir=$1
	case ${dir##*/} in
	benchtop-*) rm -rf -- "$dir" ;;
	*) die "refusing to remove '$dir': not a benchtop state folder" ;;
	esac
}

# srv_apt_install PKG BIN... installs Debian's PKG when none of the BINs
# (commands or paths) exists; the package's own service is never used.
srv_apt_install() {
	local pkg=$1 bin
	shift
	for bin in "$@"; do
		command -v "$bin" >/dev/null 2>&1 && return 0
	done
	command -v apt-get >/dev/null || die "$pkg is missing and apt-get is not available to install it"
	log "installing Debian's $pkg package"
	local apt=(apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$pkg")
	if ! DEBIAN_FRONTEND=noninteractive "${apt[@]}" >&2; then
		apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 || die "apt-get update failed"
		DEBIAN_FRONTEND=noninteractive "${apt[@]}" >&2 || die "apt-get install $pkg failed"
	fi
	for bin in "$@"; do
		command -v "$bin" >/dev/null 2>&1 && return 0
	done
	die "$pkg is installed but none of $* is there"
}

# srv_main CMD dispatches to the script's function of that name: start, stop,
# and whatever else the script lists in SRV_COMMANDS.
srv_main() {
	local cmd=${1:-} c
	for c in start stop ${SRV_COMMANDS:-}; do
		if [[ $cmd == "$c" ]]; then
			"$cmd"
			return
		fi
	done
	echo "usage: $0 start|stop${SRV_COMMANDS:+|${SRV_COMMANDS// /|}}" >&2
	exit 2
}
