#!/usr/bin/env bash
# Starts or stops a Prometheus server (Debian's prometheus, 2.42 in
# bookworm) for benchtop's metrics tests: it scrapes a benchtop run's
# --metrics endpoint every second (deploy/prometheus/prometheus.yml, its
# target set to BENCHTOP_PROMETHEUS_TARGET) and receives --metrics-push
# (remote write at /api/v1/write).
#
#   bash .ci/servers/prometheus.sh start   # install if needed, start, print export lines
#   bash .ci/servers/prometheus.sh stop    # stop it and remove its data
#
# stdout of start carries only `#` comments and `export` lines, so that
#   eval "$(bash .ci/servers/prometheus.sh start)"
# sets BENCHTOP_PROMETHEUS_URL (the HTTP API and the remote-write receiver)
# and BENCHTOP_PROMETHEUS_TARGET (the address a test's benchtop serves
# --metrics on, which this server scrapes); everything else goes to stderr.
#
# Environment:
#   BENCHTOP_PROMETHEUS_PORT    loopback port (default 9090); the state folder
#                               ${TMPDIR:-/tmp}/benchtop-prometheus-PORT (config
#                               and data) is keyed by it
#   BENCHTOP_PROMETHEUS_TARGET  the benchtop endpoint to scrape (default
#                               127.0.0.1:9464)
#
# The package's own service is never used (installing it starts none
# here). The server listens on 127.0.0.1 only, without authentication.
set -euo pipefail
SRV_NAME=prometheus
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=${BENCHTOP_PROMETHEUS_PORT:-9090}
TARGET=${BENCHTOP_PROMETHEUS_TARGET:-127.0.0.1:9464}
srv_port BENCHTOP_PROMETHEUS_PORT "$PORT"
srv_port BENCHTOP_PROMETHEUS_TARGET "${TARGET##*:}"
[[ ${TARGET%:*} == 127.0.0.1 ]] || die "BENCHTOP_PROMETHEUS_TARGET must be 127.0.0.1:PORT, not '$TARGET'"
RUN_DIR=$(srv_state_dir "$PORT")
PID_FILE=$RUN_DIR/prometheus.pid
LOG_FILE=$RUN_DIR/prometheus.log
CONFIG=$RUN_DIR/prometheus.yml
DATA_DIR=$RUN_DIR/data
MARKS=(prometheus "--storage.tsdb.path=$DATA_DIR")
DEPLOY_CONFIG=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/deploy/prometheus/prometheus.yml

print_env() {
	echo "# $(prometheus --version 2>&1 | head -n 1) on $SRV_HOST:$PORT scraping $TARGET every 1s, data $DATA_DIR, pid file $PID_FILE, log $LOG_FILE"
	echo "export BENCHTOP_PROMETHEUS_URL=http://$SRV_HOST:$PORT"
	echo "export BENCHTOP_PROMETHEUS_TARGET=$TARGET"
}

ready() { curl -fsS "http://$SRV_HOST:$PORT/-/ready" >/dev/null 2>&1; }

start() {
	local pid
	if pid=$(srv_pid "$PID_FILE" "${MARKS[@]}"); then
		log "already running (pid $pid)"
		print_env
		return 0
	fi
	port_open "$PORT" && die "$SRV_HOST:$PORT is already in use by another process; set BENCHTOP_PROMETHEUS_PORT"
	srv_apt_install prometheus prometheus
	command -v curl >/dev/null || srv_apt_install curl curl
	mkdir -p "$DATA_DIR"
	# The deploy config, its target made this run's.
	sed "s/127\.0\.0\.1:9464/$TARGET/" "$DEPLOY_CONFIG" >"$CONFIG"
	grep -q "\"$TARGET\"" "$CONFIG" || die "the scrape target of $DEPLOY_CONFIG did not take $TARGET"
	srv_launch "$PID_FILE" "$LOG_FILE" prometheus "--config.file=$CONFIG" "--storage.tsdb.path=$DATA_DIR" \
		"--web.listen-address=$SRV_HOST:$PORT" --web.enable-remote-write-receiver \
		--storage.tsdb.retention.time=1d
	srv_wait_up "$SRV_PID" "$LOG_FILE" 60 "prometheus on $SRV_HOST:$PORT" ready
	print_env
}

stop() {
	srv_stop "$PID_FILE" prometheus TERM "${MARKS[@]}"
	srv_remove_state "$RUN_DIR"
}

srv_main "$@"
