#!/usr/bin/env bash
# Starts or stops an OpenSSH server (Debian's openssh-server) on 127.0.0.1
# for benchtop's ssh launcher tests (--ssh runs `benchtop agent --stdio`
# through ssh): its own port, a throwaway host key, a test client key in
# its own authorized_keys, and an ssh_config that reaches it under two
# host aliases (bt-agent1, bt-agent2) with the host key pinned.
#
#   bash .ci/servers/sshd.sh start   # install if needed, start, print export lines
#   bash .ci/servers/sshd.sh stop    # stop it and remove its folder
#
# stdout of start carries only `#` comments and `export` lines:
#   BENCHTOP_SSHD_ADDR    127.0.0.1:PORT
#   BENCHTOP_SSH_CONFIG   the ssh_config file (ssh -F) for the aliases
#   BENCHTOP_SSH_HOSTS    the aliases, comma-separated, as --ssh takes them
#
# Environment:
#   BENCHTOP_SSHD_PORT    loopback port (default 2202)
#
# It logs in as the user running it (root in CI): sshd must run as root
# to switch to that user, so as anyone else it says so and fails.
set -euo pipefail

PORT=${BENCHTOP_SSHD_PORT:-2202}
HOST=127.0.0.1 # loopback only, ever
RUN_DIR=${TMPDIR:-/tmp}/benchtop-sshd-$PORT
PID_FILE=$RUN_DIR/sshd.pid
LOG_FILE=$RUN_DIR/sshd.log

log() { echo "sshd.sh: $*" >&2; }
die() { log "$*"; exit 1; }

case $PORT in
'' | *[!0-9]*) die "BENCHTOP_SSHD_PORT must be a port number, not '$PORT'" ;;
esac

sshd_bin() { command -v sshd 2>/dev/null || { [[ -x /usr/sbin/sshd ]] && echo /usr/sbin/sshd; }; }

install() {
	if [[ -n $(sshd_bin) ]]; then
		return 0
	fi
	command -v apt-get >/dev/null || die "sshd is missing and apt-get is not available to install it"
	log "installing openssh-server from Debian's packages"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openssh-server; } >&2 ||
		die "apt-get install openssh-server failed"
	# The package may start the system's own sshd: ours runs on its own port.
	[[ -n $(sshd_bin) ]] || die "sshd is still missing after the install"
}

running() {
	[[ -f $PID_FILE ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	[[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "sshd" || return 1
	echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

print_env() {
	echo "# OpenSSH sshd on $HOST:$PORT for $(id -un), folder $RUN_DIR, log $LOG_FILE"
	echo "export BENCHTOP_SSHD_ADDR=$HOST:$PORT"
	echo "export BENCHTOP_SSH_CONFIG=$RUN_DIR/ssh_config"
	echo "export BENCHTOP_SSH_HOSTS=bt-agent1,bt-agent2"
}

start() {
	if running >/dev/null; then
		log "already running (pid $(running))"
		print_env
		return 0
	fi
	[[ $(id -u) == 0 ]] || die "sshd needs root to log users in; run as root (CI does)"
	install
	if port_open; then
		die "$HOST:$PORT is already in use by another process; set BENCHTOP_SSHD_PORT"
	fi
	rm -rf "$RUN_DIR"
	mkdir -p "$RUN_DIR"
	chmod 700 "$RUN_DIR"
	ssh-keygen -q -t ed25519 -N '' -f "$RUN_DIR/host_key" -C benchtop-test-host >&2
	ssh-keygen -q -t ed25519 -N '' -f "$RUN_DIR/client_key" -C benchtop-test-client >&2
	cp "$RUN_DIR/client_key.pub" "$RUN_DIR/authorized_keys"
	chmod 600 "$RUN_DIR/authorized_keys"
	mkdir -p /run/sshd 2>/dev/null || true # privilege separation folder
	cat >"$RUN_DIR/sshd_config" <<EOF
ListenAddress $HOST
Port $PORT
HostKey $RUN_DIR/host_key
PidFile $PID_FILE
AuthorizedKeysFile $RUN_DIR/authorized_keys
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
UsePAM no
StrictModes no
AllowUsers $(id -un)
PermitUserEnvironment no
X11Forwarding no
AllowTcpForwarding no
PrintMotd no
LogLevel VERBOSE
EOF
	{
		echo "$HOST $(cut -d' ' -f1,2 "$RUN_DIR/host_key.pub")"
		echo "[$HOST]:$PORT $(cut -d' ' -f1,2 "$RUN_DIR/host_key.pub")"
	} >"$RUN_DIR/known_hosts"
	cat >"$RUN_DIR/ssh_config" <<EOF
Host bt-agent1 bt-agent2
	HostName $HOST
	Port $PORT
	User $(id -un)
	IdentityFile $RUN_DIR/client_key
	IdentitiesOnly yes
	UserKnownHostsFile $RUN_DIR/known_hosts
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
EOF
	"$(sshd_bin)" -f "$RUN_DIR/sshd_config" -E "$LOG_FILE" >&2 || die "sshd did not start ($LOG_FILE)"
	local i
	for ((i = 0; i < 100; i++)); do # 10 s
		if port_open && running >/dev/null; then
			log "sshd is up on $HOST:$PORT (pid $(running))"
			print_env
			return 0
		fi
		sleep 0.1
	done
	tail -n 20 "$LOG_FILE" >&2 || true
	die "sshd did not answer on $HOST:$PORT within 10s ($LOG_FILE)"
}

stop() {
	local pid
	if pid=$(running); then
		kill "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 50; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		log "stopped sshd (pid $pid)"
	else
		log "not running"
	fi
	rm -rf "$RUN_DIR"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
