# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the tests that run `bperf daemon` under a real Prometheus (tests/shell/daemon_*.sh),
# sourced after lib.sh and shared_lib.sh (shared_setup gives TMP and BG_PIDS, killed on exit).
# Each test runs its own Prometheus: its own config, data directory and port, never the packaged
# service (Debian's postinst would start one on :9090 on a systemd host).

# prom_require: skips unless root with curl, prometheus and python3 (free_port).
prom_require() {
	require_root
	require_cmd curl
	require_cmd prometheus
	require_cmd python3
}

# The Accept header of Prometheus 2.42's scrapes (captured from its requests).
PROM_ACCEPT='application/openmetrics-text;version=1.0.0,'
PROM_ACCEPT+='application/openmetrics-text;version=0.0.1;q=0.75,'
PROM_ACCEPT+='text/plain;version=0.0.4;q=0.5,*/*;q=0.1'

# free_port: a TCP port nobody listens on now (the kernel's choice for port 0).
free_port() {
	python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# daemon_start NAME ARGS...: starts `bperf daemon ARGS` in the background on 127.0.0.1:PORT
# (DAEMON_PORT if set, else the kernel's choice), its stderr in $TMP/NAME.err, and waits for its
# "listening on" line (DAEMON_START_TRIES times 50 ms: 5 s unless set). Sets DAEMON_PID and
# DAEMON_ADDR (ADDR:PORT).
daemon_start() {
	local name=$1 listen=127.0.0.1:${DAEMON_PORT:-0}

	shift
	$DAEMON_WRAP "$BPERF" daemon --listen "$listen" --socket none --bpf-attr-map "$SHARED_MAP" \
		"$@" >"$TMP/$name.out" 2>"$TMP/$name.err" &
	DAEMON_PID=$!
	BG_PIDS+=("$DAEMON_PID")
	DAEMON_ADDR=$(daemon_says "$DAEMON_PID" "$TMP/$name.err" 'listening on ' \
		"${DAEMON_START_TRIES:-100}") ||
		fail "bperf daemon $* did not start listening"
}

# daemon_gauge NAME: the value of an unlabelled sample of the daemon's text exposition.
daemon_gauge() {
	curl -sf "http://$DAEMON_ADDR/metrics" | awk -v n="$1" '$1 == n { print $2 }'
}

# prom_start TARGETS [INTERVAL]: a Prometheus scraping TARGETS (ADDR:PORT, comma-separated: the
# targets of one job, bperf) every INTERVAL (1s), with its config, tsdb and log under $TMP/prom;
# with PROM_RULES set, it loads that rule file and evaluates it every PROM_EVAL_INTERVAL (1s).
# Waits until it is ready. Sets PROM (its URL).
prom_start() {
	local targets=$1 interval=${2:-1s} port

	mkdir -p "$TMP/prom"
	cat >"$TMP/prom/prom.yml" <<EOF
global:
  scrape_interval: $interval
  scrape_timeout: $interval
  evaluation_interval: ${PROM_EVAL_INTERVAL:-1s}
${PROM_RULES:+rule_files: ['$PROM_RULES']}
scrape_configs:
  - job_name: bperf
    static_configs:
      - targets: ['${targets//,/"', '"}']
EOF
	port=$(free_port) || fail "no free port for Prometheus"
	PROM=http://127.0.0.1:$port
	prometheus --config.file="$TMP/prom/prom.yml" --storage.tsdb.path="$TMP/prom/tsdb" \
		--storage.tsdb.retention.time=1h --web.listen-address="127.0.0.1:$port" \
		--log.level=warn >"$TMP/prom/log" 2>&1 &
	BG_PIDS+=($!)
	wait_until 'curl -sf "$PROM/-/ready" >/dev/null' 10 && return 0
	cat "$TMP/prom/log" >&2
	fail "Prometheus did not get ready"
}

# prom_query EXPR [TIME]: the JSON answer of an instant query (at TIME, Unix seconds, if given).
prom_query() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"}
}

# prom_target: "up" when every target is up, else the health of the first that is not ("down",
# "unknown"; "none" without targets) and its last error.
prom_target() {
	curl -sf "$PROM/api/v1/targets" | jq -r '.data.activeTargets |
		(map(select(.health != "up")) | first) as $bad |
		if length == 0 then "none " elif $bad == null then "up "
		else "\($bad.health) \($bad.lastError // "")" end'
}

# prom_wait_up [SECONDS]: until every target's health is up (the first scrape comes ~5 s after
# Prometheus starts: its discovery manager sends target updates every 5 s).
prom_wait_up() {
	local t

	wait_until 't=$(prom_target); [ "${t%% *}" = up ]' "${1:-20}" ||
		fail "Prometheus target not up after ${1:-20} s: $t"
}
