#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon's /metrics with hostile cgroup names, read by the two programs that matter:
# promtool (the text format 0.0.4, linted: no output, exit 0) and a real Prometheus 2.42 scraping
# OpenMetrics (target up, `unit` "seconds" in its metadata, which only the OpenMetrics parser
# keeps, and every cgroup label back exactly as the API gives it, decoded with jq). The names hold
# a quote, a backslash, a TAB, a byte 0xff (not UTF-8: exported as the text \xff, since one
# invalid byte would make Prometheus drop the whole scrape) and UTF-8; a newline cannot be in a
# cgroup name (the kernel refuses it: checked). Skips where promtool, prometheus or curl is
# missing (the QEMU guests). The CPU x cgroup series of two of the cgroups
# (daemon.cgroup-cpu-series) are linted too, and the gzipped body (what Prometheus asks for) is
# the same exposition.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

prom_require
require_cmd promtool
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
shared_setup daemon_format_$$

ROOT=bperf_fmt_$$
NAMES=('q"uote' 'back\slash' $'tab\tx' $'ff\xff' $'caf\xc3\xa9' plain)

cleanup() {
	shared_cleanup
	for n in "${NAMES[@]}"; do
		[ -d "$MNT/$ROOT/$n" ] && rmdir "$MNT/$ROOT/$n"
	done
	[ -d "$MNT/$ROOT" ] && rmdir "$MNT/$ROOT"
}
trap cleanup EXIT

mkdir "$MNT/$ROOT" || skip "cannot create cgroups under $MNT"
for n in "${NAMES[@]}"; do
	mkdir "$MNT/$ROOT/$n" || fail "mkdir $MNT/$ROOT/$n"
done
if mkdir "$MNT/$ROOT/new"$'\n'"line" 2>/dev/null; then
	rmdir "$MNT/$ROOT/new"$'\n'"line"
	fail "the kernel took a cgroup name with a newline: the exporter's LF escape needs a test"
fi

printf '[daemon]\n\tcgroup-cpu-series = /%s/plain,/%s/q\\"uote\n' "$ROOT" "$ROOT" >"$TMP/config"
PERF_CONFIG=$TMP/config daemon_start daemon -e page-faults,context-switches,cpu-clock \
	--cgroup-root "$ROOT"
grep -q 'per-cgroup counting is not available' "$TMP/daemon.err" &&
	fail "the daemon exports no per-cgroup series: $(cat "$TMP/daemon.err")"
want=$((${#NAMES[@]} + 1))	# the root and its children
wait_until '[ "$(daemon_gauge bperf_daemon_cgroups)" = "$want" ]' 2
assert_eq "$want" "$(daemon_gauge bperf_daemon_cgroups)" "bperf_daemon_cgroups"

# The text format: promtool has nothing to say, and the labels are escaped as 0.0.4 wants.
curl -sf -D "$TMP/text.head" "http://$DAEMON_ADDR/metrics" >"$TMP/text" || fail "GET /metrics"
grep -qi '^Content-Type: text/plain; version=0.0.4; charset=utf-8' "$TMP/text.head" ||
	fail "text Content-Type: $(cat "$TMP/text.head")"
promtool check metrics <"$TMP/text" >"$TMP/promtool.out" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ -s "$TMP/promtool.out" ]; then
	fail "promtool check metrics (exit $rc): $(cat "$TMP/promtool.out")"
fi
for label in "/$ROOT" "/$ROOT/q\\\"uote" "/$ROOT/back\\\\slash" "/$ROOT/tab"$'\t'"x" \
	     "/$ROOT/ff\\\\xff" "/$ROOT/caf"$'\xc3\xa9' "/$ROOT/plain"; do
	grep -qF "bperf_cgroup_page_faults_total{cgroup=\"$label\"} " "$TMP/text" ||
		fail "no page-faults series with cgroup=\"$label\" in the text format"
done
for label in "/$ROOT/plain" "/$ROOT/q\\\"uote"; do
	grep -qF "bperf_cgroup_cpu_page_faults_total{cgroup=\"$label\",cpu=\"" "$TMP/text" ||
		fail "no CPU x cgroup page-faults series with cgroup=\"$label\""
done
ncpu=$(grep -c '^bperf_page_faults_total{cpu=' "$TMP/text")
assert_eq "$ncpu" "$(grep -c '^bperf_cgroup_cpu_page_faults_total{cgroup="[^"]*plain",cpu="' \
	"$TMP/text")" "CPU x cgroup series of /$ROOT/plain: one per online CPU"
curl -sf -D "$TMP/gz.head" -H 'Accept-Encoding: gzip' "http://$DAEMON_ADDR/metrics" \
	>"$TMP/text.gz" || fail "GET /metrics (gzip)"
grep -qi '^Content-Encoding: gzip' "$TMP/gz.head" ||
	fail "gzip asked, not sent: $(cat "$TMP/gz.head")"
gzip -dc <"$TMP/text.gz" >"$TMP/text.gunzip" || fail "the gzipped body is not gzip"
assert_eq "$(grep -v '^[^#]' "$TMP/text" | md5sum)" \
	"$(grep -v '^[^#]' "$TMP/text.gunzip" | md5sum)" \
	"the gzipped body's comments (HELP and TYPE lines)"
promtool check metrics <"$TMP/text.gunzip" >"$TMP/promtool.out" 2>&1 &&
	[ ! -s "$TMP/promtool.out" ] ||
	fail "promtool check metrics, gzipped body: $(cat "$TMP/promtool.out")"
grep -q $'\xff' "$TMP/text" && fail "a byte 0xff in the exposition"

# OpenMetrics as Prometheus asks for it
curl -sf -D "$TMP/om.head" -H "Accept: $PROM_ACCEPT" "http://$DAEMON_ADDR/metrics" >"$TMP/om" ||
	fail "GET /metrics (OpenMetrics)"
grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0; charset=utf-8' \
	"$TMP/om.head" || fail "OpenMetrics Content-Type: $(cat "$TMP/om.head")"
assert_eq "# EOF" "$(tail -n1 "$TMP/om")" "the OpenMetrics exposition's last line"

prom_start "$DAEMON_ADDR"
prom_wait_up 20
read -r health err <<<"$(prom_target)"
assert_eq "up" "$health" "target health (last error: $err)"

# The cgroup labels as Prometheus stored them, against the names made above. bash cannot hand
# jq a byte 0xff (jq would read U+FFFD): the exported spelling of that one is the text "\xff".
got=$(prom_query "count by (cgroup) (bperf_cgroup_page_faults_total{cgroup=~\"/$ROOT.*\"})" |
	jq -c '[.data.result[].metric.cgroup] | sort')
exp=$(jq -cn --arg r "/$ROOT" '[$r, $r + "/q\"uote", $r + "/back\\slash", $r + "/tab\tx",
	$r + "/ff\\xff", $r + "/café", $r + "/plain"] | sort')
assert_eq "$exp" "$got" "cgroup labels in Prometheus"
unit=$(curl -sfG "$PROM/api/v1/targets/metadata" --data-urlencode \
	'metric=bperf_cpu_clock_seconds' | jq -r '.data[0].unit')
assert_eq "seconds" "$unit" "bperf_cpu_clock_seconds's unit (kept by the OpenMetrics parser only)"
# SIGTERM: the daemon stops cleanly and leaves nothing loaded
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "bperf daemon exited $? on SIGTERM"
assert_nothing_left
echo "promtool: clean; Prometheus 2.42: up over OpenMetrics, ${#NAMES[@]} hostile names exact"
