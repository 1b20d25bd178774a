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
#   BENCHTOP_INFLUX_PORT   loopback HTTP port (default 8086); the state folder
#                          ${TMPDIR:-/tmp}/benchtop-influx-PORT is keyed by it
#   BENCHTOP_INFLUX_RPC    loopback port of the internal RPC (backup) service
#                          (default the HTTP port + 2: 8088 for 8086)
#   BENCHTOP_INFLUX_AUTH   1: HTTP basic auth on, with an admin user made at
#                          start; start then exports BENCHTOP_INFLUX_AUTH_URL,
#                          _USER and _PASSWORD instead of BENCHTOP_INFLUX_URL,
#                          so that it runs beside an open instance (give it
#                          ports of its own)
set -euo pipefail
SRV_NAME=influx
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_INFLUX_PORT:-8086}
srv_port BENCHTOP_INFLUX_PORT "$PORT"
RPC_PORT=${BENCHTOP_INFLUX_RPC:-$((PORT + 2))}
srv_port BENCHTOP_INFLUX_RPC "$RPC_PORT"
HOST=$SRV_HOST
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/influxd.pid
LOG_FILE=$RUN_DIR/influxd.log
CONF=$RUN_DIR/influxdb.conf
MARKS=(influxd "$CONF")
AUTH=${BENCHTOP_INFLUX_AUTH:-}
AUTH_FILE=$RUN_DIR/admin.password
AUTH_USER=benchtop_admin

# ping succeeds when /ping answers 204.
ping() {
	local code status
	if command -v curl >/dev/null; then
		code=$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://$HOST:$PORT/ping" 2>/dev/null) || return 1
		[[ $code == 204 ]]
		return
	fi
	# Without curl: a bare HTTP/1.0 request over bash's /dev/tcp.
	exec 3<>"/dev/tcp/$HOST/$PORT" 2>/dev/null || return 1
	printf 'GET /ping HTTP/1.0\r\nHost: %s\r\n\r\n' "$HOST" >&3
	IFS= read -r -t 2 status <&3 || {
		exec 3>&-
		return 1
	}
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
  auth-enabled = $([[ $AUTH == 1 ]] && echo true || echo false)
  bind-address = "$HOST:$PORT"
  log-enabled = false
  pprof-enabled = false

[continuous_queries]
  enabled = false

[subscriber]
  enabled = false
EOF
}

print_env() {
	echo "# InfluxDB $(influxd version 2>/dev/null | awk '{print $2}') on $HOST:$PORT (RPC $HOST:$RPC_PORT), pid file $PID_FILE, log $LOG_FILE"
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
	local pass
	pass="bt$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
	(umask 077 && echo "$pass" >"$AUTH_FILE")
	# The meta store may answer /ping before it takes a user: try for 15 s,
	# and say what the server answered when it never does.
	local i out=""
	for ((i = 0; i < 30; i++)); do
		if out=$(curl -sS -m 10 -XPOST "http://$HOST:$PORT/query" \
			--data-urlencode "q=CREATE USER $AUTH_USER WITH PASSWORD '$pass' WITH ALL PRIVILEGES" 2>&1) &&
			[[ $out != *'"error"'* ]]; then
			return 0
		fi
		sleep 0.5
	done
	die "could not create the admin user on $HOST:$PORT: ${out:-no answer}"
}

start() {
	local pid p
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	for p in "$PORT" "$RPC_PORT"; do
		port_open "$p" && die "$HOST:$p is already in use by another process; set BENCHTOP_INFLUX_PORT / BENCHTOP_INFLUX_RPC"
	done
	srv_apt_install influxdb influxd
	# Not running: whatever a killed earlier run left in this port's state
	# folder (a meta store with its admin user) is stale.
	rm -rf -- "$RUN_DIR/meta" "$RUN_DIR/data" "$RUN_DIR/wal"
	write_config
	srv_launch "$PID_FILE" "$LOG_FILE" influxd -config "$CONF"
	srv_wait_up "$SRV_PID" "$LOG_FILE" 30 "InfluxDB on $HOST:$PORT" ping
	make_admin
	print_env
}

stop() {
	srv_stop "$PID_FILE" InfluxDB TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
