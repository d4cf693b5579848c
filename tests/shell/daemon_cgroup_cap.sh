#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon past a leader's cap of 65,536 cgroups (LEADER_MAX_CGROUPS): with 65,540 cgroups
# below its root (the root included), 65,536 are counted, bperf_daemon_cgroups_dropped is 4,
# one line says so the first time and no more, and the daemon goes on serving; once 10 counted
# cgroups are removed, the dropped ones are counted in their place (dropped 0). SIGTERM leaves
# nothing. Host only (a minute or so: 65,540 mkdirs and rmdirs); skipped in the guests.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

CAP=65536
shared_setup daemon_cgroup_cap
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
[ -z "${KERNEL_CASES_ONLY:-}" ] || skip "host only: 65,540 cgroups are slow in a guest"
ROOT=bperf_cap_$$
mkdir "$MNT/$ROOT" || skip "cannot create cgroups under $MNT"
remove_tree() {
	[ -d "$MNT/$ROOT" ] && (cd "$MNT/$ROOT" && find . -mindepth 1 -maxdepth 1 -type d -print0 |
		xargs -0 -r rmdir 2>/dev/null; cd / && rmdir "$MNT/$ROOT" 2>/dev/null)
	true
}
trap 'shared_cleanup; remove_tree' EXIT
# 65,539 below the root: 65,540 with it
(cd "$MNT/$ROOT" && seq -f 'c%05g' 1 $((CAP + 3)) | xargs mkdir) || skip "cannot make $CAP cgroups"

# gauges: "counted dropped" of a scrape
gauges() {
	daemon_scrape "$PORT" | awk '$1 == "bperf_daemon_cgroups" { c = $2 }
		$1 == "bperf_daemon_cgroups_dropped" { d = $2 } END { print c + 0, d + 0 }'
}

# wait_gauges "C D": until the gauges are C and D (120 s)
wait_gauges() {
	local want=$1

	wait_until '[ "$(gauges)" = "$want" ]' 120 || fail "the gauges are $(gauges), not $want"
}

# it opens 65,536 cgroups' counters before it listens: a minute on a slow machine (2 in CI)
DAEMON_START_TRIES=2400 daemon_start daemon -e page-faults --cgroup-root "$ROOT"
PORT=${DAEMON_ADDR##*:}
wait_gauges "$CAP 4"
assert_eq 1 "$(grep -c 'cannot count cgroup' "$TMP/daemon.err")" \
	"lines about the cgroups left out"
grep 'cannot count cgroup' "$TMP/daemon.err"
echo "$((CAP + 4)) cgroups: $(gauges) counted and dropped"

# room again: 10 counted cgroups go, the 4 dropped ones take their place
(cd "$MNT/$ROOT" && seq -f 'c%05g' 1 10 | xargs rmdir)
wait_gauges "$((CAP - 6)) 0"
assert_eq 1 "$(grep -c 'cannot count cgroup' "$TMP/daemon.err")" \
	"lines about the cgroups left out (still one)"
echo "10 removed: $(gauges) counted and dropped"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "the daemon exited $? after SIGTERM"
assert_nothing_left
echo "SIGTERM: nothing left"
