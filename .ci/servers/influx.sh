#!/usr/bin/env bash
# Starts or stops an InfluxDB 1.x server for benchtop's influx adapter and
# timeseries workload tests.
#
# It runs Debian's influxdb package (InfluxDB 1.6), installed with apt-get
# when influxd is missing. Nothing else starts it: the package's service is
# not used. This script writes its own config, which binds HTTP and the
# internal RPC address to 127.0.0.1 only, keeps meta, data and WAL under a
# temporary folder, and turns off usage reporting and the _internal monitor
# store (which would otherwise write into the server we measure).
#
#   bash .ci/servers/influx.sh start   # prints export lines (eval-safe)
#   bash .ci/servers/influx.sh stop    # kills it and removes the data
#
# stdout carries only `export ...` lines and `#` comments, so
#   eval "$(bash .ci/servers/influx.sh start)"
# works; progress and server output go to stderr or the log file.
#
# Environment:
#   BENCHTOP_INFLUX_PORT   loopback HTTP port (default 8086)
#   BENCHTOP_INFLUX_RPC    loopback port of the internal RPC (backup) service
#                          (default 8088)
#   BENCHTOP_INFLUX_AUTH   1: HTTP basic auth on, with an admin user made at
#                          start; start then exports BENCHTOP_INFLUX_AUTH_URL,
#                          _USER and _PASSWORD instead of BENCHTOP_INFLUX_URL,
#                          so that it runs beside an open instance (give it
#                          ports of its own)
set -euo pipefail

PORT=${BENCHTOP_INFLUX_PORT:-8086}
RPC_PORT=${BENCHTOP_INFLUX_RPC:-8088}
HOST=127.0.0.1 # loopback only, ever
RUN_DIR=${TMPDIR:-/tmp}/benchtop-influx-$PORT
PID_FILE=$RUN_DIR/influxd.pid
LOG_FILE=$RUN_DIR/influxd.log
CONF=$RUN_DIR/influxdb.conf
AUTH=${BENCHTOP_INFLUX_AUTH:-}
AUTH_FILE=$RUN_DIR/admin.password
AUTH_USER=benchtop_admin

log() { echo "influx.sh: $*" >&2; }
die() { log "$*"; exit 1; }

for p in "$PORT" "$RPC_PORT"; do
	case $p in
	'' | *[!0-9]*) die "BENCHTOP_INFLUX_PORT and BENCHTOP_INFLUX_RPC must be port numbers, not '$p'" ;;
	esac
done

install() {
	if command -v influxd >/dev/null; then
		return 0
	fi
	command -v apt-get >/dev/null || die "influxd is missing and apt-get is not available to install it"
	log "installing Debian's influxdb package"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y --no-install-recommends influxdb >&2; then
		apt-get update >&2 || die "apt-get update failed"
		apt-get install -y --no-install-recommends influxdb >&2 || die "apt-get install influxdb failed"
	fi
	command -v influxd >/dev/null || die "influxd is still missing after installing influxdb"
}

# running prints the pid of our live server, if any.
running() {
	[[ -f $PID_FILE ]] || return 1
	local pid
	pid=$(cat "$PID_FILE")
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	# Check it is still our influxd, not a recycled pid.
	[[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q "influxd.*$CONF" || return 1
	echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# ping succeeds when /ping answers 204.
ping() {
	local code
	if command -v curl >/dev/null; then
		code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$HOST:$PORT/ping" 2>/dev/null) || return 1
		[[ $code == 204 ]]
		return
	fi
	# Without curl: a bare HTTP/1.0 request over bash's /dev/tcp.
	exec 3<>"/dev/tcp/$HOST/$PORT" 2>/dev/null || return 1
	printf 'GET /ping HTTP/1.0\r\nHost: %s\r\n\r\n' "$HOST" >&3
	local status
	IFS= read -r -t 2 status <&3 || { exec 3>&-; return 1; }
	exec 3>&-
	[[ $status == *" 204 "* ]]
}

write_config() {
	mkdir -p "$RUN_DIR/meta" "$RUN_DIR/data" "$RUN_DIR/wal"
	cat >"$CONF" <<EOF
# Written by .ci/servers/influx.sh for benchtop's tests; removed by stop.
reporting-enabled = false
bind-address = "$HOST:$RPC_PORT"

[meta]
  dir = "$RUN_DIR/meta"

[data]
  dir = "$RUN_DIR/data"
  wal-dir = "$RUN_DIR/wal"
  query-log-enabled = false

[monitor]
  store-enabled = false

[http]
  enabled = true
  bind-address = "$HOST:$PORT"
  log-enabled = false
  pprof-enabled = false
  auth-enabled = $([[ $AUTH == 1 ]] && echo true || echo false)

[continuous_queries]
  enabled = false

[subscriber]
  enabled = false
EOF
}

print_env() {
	echo "# InfluxDB $(influxd version 2>/dev/null | awk '{print $2}') on $HOST:$PORT, pid file $PID_FILE, log $LOG_FILE"
	if [[ $AUTH == 1 ]]; then
		echo "export BENCHTOP_INFLUX_AUTH_URL=http://$HOST:$PORT"
		echo "export BENCHTOP_INFLUX_AUTH_USER=$AUTH_USER"
		echo "export BENCHTOP_INFLUX_AUTH_PASSWORD=$(cat "$AUTH_FILE")"
	else
		echo "export BENCHTOP_INFLUX_URL=http://$HOST:$PORT"
	fi
}

# make_admin creates the admin user (InfluxDB 1.x lets the first one be
# made without credentials when auth is on).
make_admin() {
	[[ $AUTH == 1 ]] || return 0
	command -v curl >/dev/null || die "BENCHTOP_INFLUX_AUTH=1 needs curl"
	local pass="bt$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
	(umask 077 && echo "$pass" >"$AUTH_FILE")
	curl -sf -m 10 -XPOST "http://$HOST:$PORT/query" \
		--data-urlencode "q=CREATE USER $AUTH_USER WITH PASSWORD '$pass' WITH ALL PRIVILEGES" >/dev/null ||
		die "could not create the admin user"
}

start() {
	if running >/dev/null; then
		log "already running (pid $(running))"
		print_env
		return 0
	fi
	for p in "$PORT" "$RPC_PORT"; do
		if port_open "$p"; then
			die "$HOST:$p is already in use by another process; set BENCHTOP_INFLUX_PORT / BENCHTOP_INFLUX_RPC"
		fi
	done
	install
	write_config
	nohup influxd -config "$CONF" </dev/null >>"$LOG_FILE" 2>&1 &
	local pid=$!
	echo "$pid" >"$PID_FILE"
	local i
	for ((i = 0; i < 300; i++)); do # 30 s at most
		if ! kill -0 "$pid" 2>/dev/null; then
			tail -n 20 "$LOG_FILE" >&2 || true
			die "influxd exited at start (log above, $LOG_FILE)"
		fi
		if ping; then
			log "InfluxDB is up on $HOST:$PORT (pid $pid)"
			make_admin
			print_env
			return 0
		fi
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	die "InfluxDB did not answer /ping on $HOST:$PORT within 30s ($LOG_FILE)"
}

stop() {
	local pid
	if pid=$(running); then
		kill "$pid" 2>/dev/null || true
		local i
		for ((i = 0; i < 100; i++)); do # 10 s, then the hard way
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
		log "stopped InfluxDB (pid $pid)"
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
