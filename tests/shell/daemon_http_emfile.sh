#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Issue 27: no busy loop at EMFILE. `bperf daemon`'s fd limit is lowered (prlimit) to its lowest
# free fd, so that no accept can succeed, and 20 connections wait in its backlog: the listener
# stays readable. The daemon must stop watching it (one log line, "paused") and use under 0.5 s
# of CPU in 10 s (utime + stime of /proc/PID/stat; a level-triggered listener would spin a CPU:
# 10 s). The figure is printed. Then the limit is raised again: the waiting connections are
# taken within a second and a scrape is answered.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

require_root
require_cmd curl
require_cmd prlimit
HOSTILE=$(dirname "$BPERF")/.output/tests/http_hostile
[ -x "$HOSTILE" ] || skip "$HOSTILE not built (make tests)"
shared_setup daemon_http_emfile_$$
trap shared_cleanup EXIT

daemon_start d -e page-faults
PORT=${DAEMON_ADDR##*:}
hard=$(awk '/^Max open files/ { print $5 }' /proc/"$DAEMON_PID"/limits)
# the lowest fd number not in use: the kernel's next one
free=$(find /proc/"$DAEMON_PID"/fd -mindepth 1 -printf '%f\n' | sort -n |
	awk '$1 != n { exit } { n++ } END { print n }')
prlimit --pid "$DAEMON_PID" --nofile="$free:$hard" || fail "prlimit failed"
"$HOSTILE" hold "$PORT" 20 127.0.0.2 0 >"$TMP/hold.out" &
BG_PIDS+=($!)
sleep 1
cpu() {
	awk '{ print $14 + $15 }' /proc/"$DAEMON_PID"/stat
}
before=$(cpu)
sleep 10
after=$(cpu)
tick=$(getconf CLK_TCK)
ms=$(((after - before) * 1000 / tick))
echo "daemon CPU at EMFILE, 20 connections waiting: $ms ms in 10 s"
grep -q 'HTTP: cannot accept: Too many open files: paused' "$TMP/d.err" ||
	fail "the pause at EMFILE was not logged: $(tail -n 3 "$TMP/d.err")"
[ "$ms" -lt 500 ] || fail "the daemon spun at EMFILE: $ms ms of CPU in 10 s"

prlimit --pid "$DAEMON_PID" --nofile="$hard:$hard"
sleep 1
fds=$(find /proc/"$DAEMON_PID"/fd -mindepth 1 | wc -l)
[ "$fds" -ge $((free + 20)) ] || fail "the waiting connections were not taken ($fds fds)"
curl -sf -m 5 "http://$DAEMON_ADDR/metrics" | grep -q '^bperf_page_faults_total' ||
	fail "no scrape once fds are free again"
echo "limit raised: the 20 waiting connections taken, a scrape answered"
