#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A hostile local user against bperf daemon (issue 27), all at once for HOSTILE_SECONDS (15):
# nobody holds flock(LOCK_EX) of an eventfd, the lock of the one anon inode every BPF fd shares
# (which once stalled every attr map change and every sync, upstream perf's too), and sends
# refused OPENs (root's process) back to back, over 1,000 a second; uid 4243 sends READs of its
# own session back to back; uid 4244 OPENs and CLOSEs sessions of attrs no one else counts, so
# that each loads a new leader (beside the daemon's loop, one at a time on one connection).
# Meanwhile uid 4242 runs bperf stat sessions of `pagetouch 1000` through the daemon, exact (its
# pagetouch 0 + 1000, the least of each 3 as lib.sh explains),
# root runs a shared session of its own, and a real Prometheus scrapes /metrics every second and
# curl every 0.2 s, each answered (up) in under 100 ms. READs of one leader are answered at most
# once a SERVED_SYNC_GAP_MS (10 ms), so 200 of them take 2 s or more, and so do 200 ENABLEs and
# DISABLEs; the daemon's log keeps to its rate (a few lines a second); once
# the clients are gone only the daemon's own slot is registered.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup hostile
prom_require
require_cmd setpriv
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
PROBE=$(dirname "$BPERF")/.output/tests/daemon_probe
[ -x "$PROBE" ] || fail "$PROBE not built: run make tests"
NOBODY_UID=$(id -u nobody 2>/dev/null) || skip "needs user nobody"
SECS=${HOSTILE_SECONDS:-15}
chmod 755 "$TMP"
SOCK=$TMP/sock
printf '[daemon]\n\tsocket = %s\n' "$SOCK" >"$TMP/client.cfg"
chmod 644 "$TMP/client.cfg"
trap shared_cleanup EXIT
trap 'exit 1' INT TERM HUP
# as_uid UID CMD...: CMD as UID, no groups, no capabilities, the socket in its config (an exec:
# $! of one sent to the background is CMD's pid)
printf '#!/bin/sh\nuid=$1\nshift\nPERF_CONFIG=%s exec setpriv --reuid="$uid" --regid="$uid" %s\n' \
	"$TMP/client.cfg" '--clear-groups "$@"' >"$TMP/as_uid"
chmod 755 "$TMP/as_uid"
as_uid() { "$TMP/as_uid" "$@"; }

$DAEMON_WRAP "$BPERF" daemon -v --listen 127.0.0.1:0 --socket "$SOCK" \
	--bpf-attr-map "$SHARED_MAP" -e page-faults 2>"$TMP/daemon.err" &
DPID=$!
BG_PIDS+=("$DPID")
ADDR=$(daemon_addr "$DPID" "$TMP/daemon.err") || fail "the daemon did not start"
daemon_says "$DPID" "$TMP/daemon.err" "serving unprivileged sessions on $SOCK\$" >/dev/null ||
	fail "the daemon's socket did not start"
wait_registered 1
prom_start "$ADDR" 1s
prom_wait_up 20

# uid 4242's count of pagetouch N through the daemon
faults() {
	as_uid 4242 setarch "$(uname -m)" -R "$BPERF" stat --bpf-counters -x, -e page-faults \
		"$WORKLOADS/pagetouch" "$1" 2>&1 >/dev/null | head -n 1 | cut -d, -f1
}
# a loaded machine now and then adds a retried fault to a run, never takes one away (lib.sh)
base=$(least_count faults 0) || exit 1

# ---- the hostile user ------------------------------------------------------------------------
"$TMP/as_uid" "$NOBODY_UID" "$PROBE" - anonlock >"$TMP/lock" &
BG_PIDS+=($!)
wait_until 'grep -q locked "$TMP/lock"' 5 || fail "nobody could not flock an eventfd"
sleep 600 &
VICTIM=$!
BG_PIDS+=("$VICTIM")
"$TMP/as_uid" "$NOBODY_UID" "$PROBE" "$SOCK" refuse "$VICTIM" 100000000 >"$TMP/refused" &
REFUSER=$!
BG_PIDS+=("$REFUSER")
"$TMP/as_uid" 4244 "$PROBE" "$SOCK" loads 100000000 >"$TMP/loads" &
LOADER=$!
BG_PIDS+=("$LOADER")
# what peers cause: -v's lines of granted sessions aside
peer_lines() { grep -vc 'session [0-9]*: slot\|new leader link' "$TMP/daemon.err"; }
log0=$(peer_lines)
t0=$SECONDS
prom_t0=$(date +%s)

# ---- everyone else -------------------------------------------------------------------------
(
	end=$((SECONDS + SECS))
	while [ "$SECONDS" -lt "$end" ]; do
		curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "http://$ADDR/metrics"
		sleep 0.2
	done
) >"$TMP/scrapes" &
SCRAPER=$!
BG_PIDS+=("$SCRAPER")
start=$(date +%s%N)
reads=$(as_uid 4243 "$PROBE" "$SOCK" reads 200 | tail -n 1)
took=$((($(date +%s%N) - start) / 1000000))
assert_eq "reads 200 err 0" "$reads" "uid 4243's 200 READs"
[ "$took" -ge 1990 ] ||
	fail "200 READs of one leader answered in $took ms: more than one sync per 10 ms"
start=$(date +%s%N)
toggles=$(as_uid 4243 "$PROBE" "$SOCK" toggles 200 | tail -n 1)
toggled=$((($(date +%s%N) - start) / 1000000))
assert_eq "toggles 200 err 0" "$toggles" "uid 4243's 200 ENABLEs and DISABLEs"
[ "$toggled" -ge 1990 ] ||
	fail "200 ENABLEs and DISABLEs of one leader answered in $toggled ms: more than one sync" \
		"per 10 ms"
root_err=$(timeout 20 "$BPERF" stat --bpf-counters --bpf-attr-map "$SHARED_MAP" -x, \
	-e context-switches true 2>&1 >/dev/null) || fail "root's shared session: $root_err"
sessions=0
while [ "$SECONDS" -lt $((t0 + SECS)) ]; do
	n=$(least_count faults 1000) || exit 1
	assert_eq $((base + 1000)) "$n" \
		"uid 4242's pagetouch 1000 (the least of 3) with the hostile user at work"
	sessions=$((sessions + 3))
done
wait "$SCRAPER"
elapsed=$((SECONDS - t0))
prom_end=$(date +%s)
kill "$REFUSER" "$LOADER"
wait "$REFUSER" 2>/dev/null
wait "$LOADER" 2>/dev/null

read -r _ loads _ busy _ load_err < <(tail -n 1 "$TMP/loads") ||
	fail "uid 4244's loads: $(cat "$TMP/loads")"
assert_eq 0 "$load_err" "uid 4244's loads' error"
[ "$loads" -ge "$elapsed" ] || fail "uid 4244 loaded $loads leaders in $elapsed s"

refused=$(grep -c '^err' "$TMP/refused" || true)
[ "$refused" -ge $((1000 * SECS)) ] ||
	fail "nobody's refused OPENs: $refused in $elapsed s, fewer than 1,000 a second"
nr=$(wc -l <"$TMP/scrapes")
[ "$nr" -ge $((SECS * 3)) ] || fail "only $nr scrapes in $SECS s"
awk '$1 != 200 || $2 >= 0.1 { bad = bad " " $0 } END { if (bad) { print bad; exit 1 } }' \
	"$TMP/scrapes" || fail "scrapes failed or took 100 ms or more: $(cat "$TMP/scrapes")"
slowest=$(sort -k2 -n "$TMP/scrapes" | tail -n 1 | cut -d' ' -f2)
# Prometheus's own scrapes, every second: all up, each under 100 ms
window=$((prom_end - prom_t0))
prom_query "scrape_duration_seconds{job=\"bperf\"}[${window}s]" "$prom_end" >"$TMP/dur.json"
prom_query "up{job=\"bperf\"}[${window}s]" "$prom_end" >"$TMP/up.json"
read -r prom_n prom_max < <(jq -r '.data.result[0].values | map(.[1] | tonumber) | sort |
	"\(length) \(.[-1])"' "$TMP/dur.json")
down=$(jq -r '.data.result[0].values | map(select(.[1] != "1")) | length' "$TMP/up.json")
[ "$prom_n" -ge $((window - 3)) ] || fail "Prometheus scraped $prom_n times in $window s"
assert_eq 0 "$down" "Prometheus's scrapes that failed"
awk -v m="$prom_max" 'BEGIN { exit !(m < 0.1) }' ||
	fail "a Prometheus scrape took $prom_max s (limit 0.1 s)"
lines=$(($(peer_lines) - log0))
[ "$lines" -le $((5 * elapsed + 10)) ] ||
	fail "the daemon logged $lines lines in $elapsed s: $(tail -n 5 "$TMP/daemon.err")"
wait_registered 1
kill "$DPID"
wait "$DPID" || fail "the daemon exited $?"
echo "ok: $sessions exact sessions, $refused refused OPENs, $loads leaders loaded ($busy" \
	"OPENs over the rate), $nr curl scrapes (slowest $slowest s), $prom_n Prometheus" \
	"scrapes (slowest $prom_max s), 200 READs in $took ms, 200 ENABLEs and DISABLEs in" \
	"$toggled ms," \
	"$lines log lines in $elapsed s"
