#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 27: the scraper first. `bperf daemon` serves a real Prometheus (127.0.0.1, every second)
# while tests/helpers/http_hostile holds 1,000 silent connections and 100 that send a request a
# byte a second, from 127.0.0.2-127.0.0.201, reconnecting whenever the daemon closes one (its
# read deadline, 5 s). Over 60 s, Prometheus's own raw samples must show about 60 scrapes, every
# one up, each under 100 ms (scrape_duration_seconds; the max is printed), while the daemon held
# over 1,000 connections (its fds, counted mid-run). Then the per-peer limit: 300 connections
# from one address get as many as the daemon's fd limit allows (half the fds / 16, 4 to 256: see
# bperf-daemon.1), the rest are closed at once and logged.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

prom_require
require_cmd jq
HOSTILE=$(dirname "$BPERF")/.output/tests/http_hostile
[ -x "$HOSTILE" ] || skip "$HOSTILE not built (make tests)"
shared_setup daemon_http_hostile_$$
trap shared_cleanup EXIT
WINDOW=60

daemon_start d -e page-faults
PORT=${DAEMON_ADDR##*:}
"$HOSTILE" load "$PORT" 1000 100 $((WINDOW + 12)) >"$TMP/load.out" &
LOAD_PID=$!
BG_PIDS+=("$LOAD_PID")
prom_start "$DAEMON_ADDR" 1s
prom_wait_up 20
start=$(date +%s)
sleep $((WINDOW / 2 - 5))
# the most fds over 5 s (the hostile connections are closed and opened again in bursts)
fds=0
for _ in $(seq 10); do
	n=$(find /proc/"$DAEMON_PID"/fd -mindepth 1 | wc -l)
	[ "$n" -gt "$fds" ] && fds=$n
	sleep 0.5
done
echo "daemon fds mid-run: $fds"
[ "$fds" -gt 1000 ] || fail "the daemon held only $fds fds: the hostile load did not reach it"
sleep $((WINDOW - WINDOW / 2 + 1))
end=$((start + WINDOW))
wait "$LOAD_PID"
echo "hostile clients: $(cat "$TMP/load.out")"
min_open=$(awk '{ print $8 }' "$TMP/load.out")
[ "$min_open" -ge 1000 ] || fail "hostile clients held only $min_open connections at times"

prom_query "scrape_duration_seconds{job=\"bperf\"}[${WINDOW}s]" "$end" >"$TMP/dur.json"
prom_query "up{job=\"bperf\"}[${WINDOW}s]" "$end" >"$TMP/up.json"
read -r n max p50 < <(jq -r '.data.result[0].values | map(.[1] | tonumber) | sort |
	"\(length) \(.[-1]) \(.[length / 2 | floor])"' "$TMP/dur.json")
down=$(jq -r '.data.result[0].values | map(select(.[1] != "1")) | length' "$TMP/up.json")
echo "scrapes in ${WINDOW} s: $n, down: $down, scrape_duration_seconds max $max median $p50"
[ "$n" -ge $((WINDOW - 3)) ] || fail "only $n scrapes in $WINDOW s"
assert_eq 0 "$down" "scrapes that failed"
awk -v m="$max" 'BEGIN { exit !(m < 0.1) }' || fail "a scrape took $max s (limit 0.1 s)"

# the per-peer limit, from the daemon's fd limit as it raised it
nofile=$(awk '/^Max open files/ { print $4 }' /proc/"$DAEMON_PID"/limits)
per_peer=$((nofile / 2 / 16))
[ "$per_peer" -lt 4 ] && per_peer=4
[ "$per_peer" -gt 256 ] && per_peer=256
"$HOSTILE" hold "$PORT" 300 127.0.0.250 0 >"$TMP/hold.out" &
BG_PIDS+=($!)
wait_until '[ -s "$TMP/hold.out" ]' 5
assert_eq "open $per_peer closed $((300 - per_peer))" "$(cat "$TMP/hold.out")" \
	"300 connections from one address (fd limit $nofile)"
# one more a second later: its line is not left out even if that second's five were spent
sleep 1.1
curl -s -m 2 --interface 127.0.0.250 "http://$DAEMON_ADDR/metrics" >/dev/null || true
sleep 0.2
grep -q '127.0.0.250: HTTP: .* connections from this peer, the limit' "$TMP/d.err" ||
	fail "the per-peer limit not logged: $(grep -v 'read deadline' "$TMP/d.err" | tail -n 5)"
curl -sf "http://$DAEMON_ADDR/metrics" >/dev/null || fail "no scrape beside a peer at its limit"
echo "per-peer limit $per_peer held, logged, and the scraper served"
