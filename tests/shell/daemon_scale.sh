#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon at a server's scale (issue 26): its default events on 10 and then 1,000 cgroups
# (10 pods of 99 containers, and the root), with churn of SCALE_CHURN (100) cgroups made and
# removed a second for SCALE_SECONDS (10) s. Asserts: the series of every scrape number what the
# man page's formula says (2 gauges + events x (C + G) with no CPU x cgroup series); the BPF map
# memory of everything bperf loaded stays within the goals at 256 possible CPUs (4 MiB with 10
# cgroups, 32 MiB with 1,000; the bounds hold for fewer CPUs too: memory grows with them), and
# the daemon's VmRSS grows by at most 4 KiB a cgroup (not with the possible CPUs); the
# counts of 10 of the cgroups (a workload of known page faults and context switches in each)
# equal a direct `bperf stat -a -G` count of the same run, exactly (context switches within 6 on
# this host, whose guest agent switches without the tracepoint); and after the churn the
# leader holds the same registrations as before it, the daemon the same fds, and after SIGTERM
# nothing is left. Run in make check on the host and in the x86 guest booted with
# possible_cpus=256 (tools/check). Prints the figures.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup daemon_scale
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
ROOT=bperf_scale_$$
CHURN=${SCALE_CHURN:-100}
SECONDS_CHURN=${SCALE_SECONDS:-10}
mkdir "$MNT/$ROOT" || skip "cannot create cgroups under $MNT"

remove_tree() {
	[ -d "$MNT/$ROOT" ] && find "$MNT/$ROOT" -depth -mindepth 0 -type d -exec rmdir {} + \
		2>/dev/null
	true
}
trap 'shared_cleanup; remove_tree' EXIT
IN=$(in_cgroup_script "$TMP" "$MNT")
POSSIBLE=$(awk -F- '{ print $NF + 1 }' /sys/devices/system/cpu/possible)
NCPU=$(grep -c '^processor' /proc/cpuinfo)
MAX_MAP_ID=$(bpftool -j map show | jq '[.[].id] | max // 0')

# map_bytes: BPF map memory (bytes_memlock) of every map made since the test started: the
# daemon's leaders, their inner maps and the attr map
map_bytes() {
	bpftool -j map show | jq --argjson m "$MAX_MAP_ID" '[.[] | select(.id > $m) |
		.bytes_memlock // 0 | tonumber] | add // 0'
}

# scrape_to FILE: a scrape of the daemon, checked against the series formula
scrape_to() {
	local g k lines

	daemon_scrape "$PORT" >"$1" || fail "scrape failed"
	g=$(awk '$1 == "bperf_daemon_cgroups" { print $2 + 1 }' "$1")
	# 1 series per CPU and cgroup for software events, 3 for those the PMU may multiplex
	k=$(awk '$1 == "#" && $2 == "TYPE" && $3 ~ /^bperf_cgroup_/ && $4 == "counter"' "$1" |
		wc -l)
	lines=$(grep -vc '^#' "$1")
	assert_eq "$((3 + k * (NCPU + g)))" "$lines" \
		"series of $k families on $NCPU CPUs and $g cgroups (3 + $k x ($NCPU + $g))"
	echo "$lines"
}

# wait_counted N: until bperf_daemon_cgroups is N (60 s)
wait_counted() {
	local n=$1

	wait_until 'daemon_scrape "$PORT" | grep -qx "bperf_daemon_cgroups $n"' 60 && return 0
	fail "bperf_daemon_cgroups is not $n: $(daemon_scrape "$PORT" | grep '^bperf_daemon_')"
}

# measure N BOUND: once N cgroups are counted, a scrape by the formula and the BPF map memory
# within BOUND bytes; prints the figures, sets RSS (the daemon's VmRSS, kB)
measure() {
	local lines bytes

	wait_counted "$1"
	lines=$(scrape_to "$TMP/m$1")
	bytes=$(map_bytes)
	RSS=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$DAEMON_PID/status")
	echo "$1 cgroups, $POSSIBLE possible CPUs: $lines series, $bytes bytes of BPF maps," \
		"VmRSS $RSS kB"
	[ "$bytes" -le "$2" ] || fail "BPF map memory with $1 cgroups: $bytes > $2 bytes"
}

# --- 10 cgroups --------------------------------------------------------------------------------
for p in $(seq -f 'pod%02g' 1 10); do
	mkdir "$MNT/$ROOT/$p"
done
mkdir "$MNT/$ROOT/churn"
daemon_start daemon --cgroup-root "$ROOT"
PORT=${DAEMON_ADDR##*:}
measure 12 "$((4 << 20))"
rss10=$RSS

# --- 1,000 cgroups -----------------------------------------------------------------------------
for p in $(seq -f 'pod%02g' 1 10); do
	(cd "$MNT/$ROOT/$p" && seq -f 'c%02g' 1 99 | xargs mkdir)
done
measure 1002 "$((32 << 20))"
# per cgroup the daemon keeps its path, bases and sums of each event, not a value per possible
# CPU (at 256 CPUs that alone would be 256 x 3 events x 24 bytes, 18 KiB)
echo "VmRSS: $(((RSS - rss10) * 1024 / 990)) bytes more a cgroup"
[ $(((RSS - rss10) * 1024 / 990)) -le 4096 ] ||
	fail "the daemon's VmRSS grew $((RSS - rss10)) kB for 990 cgroups: over 4 KiB each"
fds=$(count_fds "$DAEMON_PID")
regs=$(bpftool -j map show | jq --argjson m "$MAX_MAP_ID" \
	'[.[] | select(.id > $m and .name == "cg_index")] | .[0].id')

# --- churn: CHURN cgroups made and removed a second, while 10 cgroups count a workload --------
churn() {
	local end=$((SECONDS + SECONDS_CHURN)) round=0

	while [ "$SECONDS" -lt "$end" ]; do
		(cd "$MNT/$ROOT/churn" && seq -f "r${round}_%03g" 1 "$CHURN" | xargs mkdir)
		sleep 0.5
		(cd "$MNT/$ROOT/churn" && seq -f "r${round}_%03g" 1 "$CHURN" | xargs rmdir)
		sleep 0.5
		round=$((round + 1))
	done
}
CGS=$(seq -f "$ROOT/pod%02g/c07" 1 10 | paste -sd, -)
EVENTS=$(for _ in $(seq 10); do echo -n page-faults,; done)
EVENTS+=$(for _ in $(seq 10); do echo -n context-switches,; done)
scrape_to "$TMP/before" >/dev/null
churn &
churn_pid=$!
BG_PIDS+=("$churn_pid")
work=
for cg in ${CGS//,/ }; do
	work+="$IN $cg $WORKLOADS/pagetouch 200; $IN $cg $WORKLOADS/pingpong 300; "
done
"$BPERF" stat -a -e "${EVENTS%,}" -G "$CGS,$CGS" -x, -o "$TMP/direct" -- sh -c "$work" \
	>/dev/null || fail "direct bperf stat -G of 10 cgroups failed"
scrape_to "$TMP/after" >/dev/null
wait "$churn_pid" || fail "the churn failed"
for ev in page-faults context-switches; do
	n=0
	for cg in ${CGS//,/ }; do
		direct=$(awk -F, -v ev="$ev" -v cg="$cg" '$3 == ev && $4 == cg { print $1 }' \
			"$TMP/direct")
		[[ $direct =~ ^[0-9]+$ ]] || { cat "$TMP/direct" >&2; fail "no direct $ev of $cg"; }
		got=$(($(daemon_own "$TMP/after" "$ev" "/$cg") -
		       $(daemon_own "$TMP/before" "$ev" "/$cg")))
		# a count that differs: what the daemon said too (a cgroup whose bases could not be
		# read is left out until they can, and so are its counts meanwhile)
		[ "$got" = "$direct" ] || [ "$ev" = context-switches ] ||
			tail -n 8 "$TMP/daemon.err" >&2
		assert_count "$ev" "$direct" "$got" "$ev of $cg: the daemon's against direct -G"
		n=$((n + direct))
	done
	echo "$ev: 10 cgroups as direct -G counts them ($n in all) during the churn"
done

# --- after the churn: the same registrations, fds and series as before it ----------------------
wait_counted 1002
assert_eq 1002 "$(bpftool -j map dump id "$(inner_map "$regs" 0)" | jq length)" \
	"cgroups registered in the leader after the churn"
assert_eq "$fds" "$(count_fds "$DAEMON_PID")" "the daemon's open fds after the churn"
lines=$(scrape_to "$TMP/end")
echo "after $SECONDS_CHURN s of churn ($CHURN cgroups a second): 1,002 cgroups, $lines series," \
	"$fds fds, $(map_bytes) bytes of BPF maps"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "the daemon exited $? after SIGTERM"
assert_nothing_left
echo "SIGTERM: nothing left"
