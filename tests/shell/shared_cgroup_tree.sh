#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared counting of nested cgroups: the leader sums each registered cgroup once (cg_index,
# cg_accum) and adds a slice to the cgroup it ran in and to every registered ancestor, as perf's
# cgroup events count their descendants. Cgroups A, A/b, A/b/c and D, pagetouch in each (moving
# itself in, as cgroups.sh does):
# - tree: four concurrent sessions (-G A, A/b, A/b/c, D), each counting page-faults and
#   context-switches directly and shared: every shared count equals the direct one, and A's
#   page faults are its own, A/b's and A/b/c's (N_A + N_B + N_C + 3k, k the start-up faults);
# - namespace: the same below a cgroup namespace rooted at A (names and levels relative to it);
# - pingpong: pingpong in A/b, unpinned (its tasks switch to idle and back on both CPUs), and two
#   pingpongs pinned to one CPU, one in A/b/c and one in D, flipping between the cgroups at every
#   switch: context switches and page faults shared equal direct;
# - one_index: TREE_SESSIONS (default 40; tools/vmtest gives 8: a session starts in seconds under
#   emulation) sessions of one cgroup share one cg_index entry, and each counts the workload;
# - reclaim: a -G session killed with SIGKILL leaves its registration, which the next session
#   frees (cg_index empty), and the freed index, taken again by the next cgroup, starts from
#   zero on every CPU.
# Nothing stays loaded; the cgroups are removed on every exit path.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup "cgroup_tree_$$"
[ -x "$PERF" ] || skip "needs $PERF"
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
PT=$WORKLOADS/pagetouch
PP=$WORKLOADS/pingpong
[ -x "$PT" ] && [ -x "$PP" ] || fail "workloads not built: run make"

A=bperf_cgt_$$_a
B=$A/b
C=$B/c
D=bperf_cgt_$$_d
NS=bperf_cgt_$$_ns

cleanup() {
	stop_waiting KILL
	shared_cleanup
	for cg in "$C" "$B" "$A" "$D" "$NS/b/c" "$NS/b" "$NS"; do
		remove_cgroup "$cg"
	done
}
trap cleanup EXIT

mkdir "$MNT/$A" "$MNT/$B" "$MNT/$C" "$MNT/$D" "$MNT/$NS" "$MNT/$NS/b" "$MNT/$NS/b/c" ||
	skip "cannot create cgroups under $MNT"

# in_cgroup CGROUP CMD...: the shell moves itself into CGROUP, then becomes CMD.
IN=$(in_cgroup_script "$TMP" "$MNT")
NA=700
TREE_SESSIONS=${TREE_SESSIONS:-40}
NB=500
NC=300
ND=200

. "$(dirname "$0")/../side_lib.sh"

# timed NAME FUNCTION: check_retry, and the case's wall time
timed() {
	local start=$SECONDS

	check_retry "$@"
	echo "$1: $((SECONDS - start)) s"
}

# start-up faults k of pagetouch behind the wrapper, from perf (as cgroups.sh)
k=$(least_count cgroup_startup_faults "$IN" "$A" "$PT") && [ "$k" -gt 0 ] ||
	fail "perf counted no start-up faults in $A: '$k'"

# stop_waiting [SIGNAL]: every session started so far ends, its workload released (a case runs
# in a subshell: a failed try leaves its sessions waiting); SIGNAL for those still there after
# 5 s, or at once
stop_waiting() {
	local pid

	touch "$TMP/release"
	for pid in $(cat "$TMP/waiting" 2>/dev/null); do
		[ -n "${1:-}" ] || wait_until '! ours "$pid"' 5 || true
		! ours "$pid" || kill "-${1:-KILL}" "$pid"
	done
	rm -f "$TMP/waiting" "$TMP/release"
}

# ours PID: PID is still one of this test's sessions (not a pid reused since)
ours() {
	grep -qaF -- "$SHARED_MAP" "/proc/$1/cmdline" 2>/dev/null
}

# settle: at the start of each case, nothing of a failed try is left
settle() {
	stop_waiting
	WAITING=()
}

# start_waiting NAME OPTS...: a bperf session in the background (private attr map, -a -x,),
# its workload waiting for $TMP/release; its output in $TMP/NAME. Adds its pid to WAITING.
WAITING=()
start_waiting() {
	local name=$1

	shift
	# setarch execs bperf: $! is bperf's pid, the parent of its workload
	setarch "$(uname -m)" -R "$BPERF" stat --bpf-attr-map "$SHARED_MAP" -a -x, -o "$TMP/$name" \
		"$@" -- sh -c "while [ ! -e $TMP/release ] && [ -d $TMP ]; do sleep 0.02; done" &
	WAITING+=($!)
	echo $! >>"$TMP/waiting"
}

# joined: waits until every WAITING session runs its workload (it has joined its leaders)
joined() {
	local n

	wait_until 'n=$(pgrep -x sh -P "$(IFS=,; echo "${WAITING[*]}")" | wc -l)
		[ "$n" -eq ${#WAITING[@]} ]' 50 || fail "only $n of ${#WAITING[@]} sessions started"
}

# release: ends the WAITING sessions' workloads and waits for the sessions
release() {
	local pid

	touch "$TMP/release"
	for pid in "${WAITING[@]}"; do
		wait "$pid" || fail "a session failed"
	done
	WAITING=()
	rm -f "$TMP/release"
}

# leader_map NAME: the id of map NAME of the (single) leader the attr map names
leader_map() {
	local link prog ids

	link=$(map_link_ids | head -1)
	prog=$(bpftool -j link show id "$link" | jq .prog_id)
	ids=$(bpftool -j prog show id "$prog" | jq -c .map_ids)
	bpftool -j map show | jq --argjson ids "$ids" --arg name "$1" \
		'.[] | select((.id as $i | $ids | index($i)) and .name == $name) | .id'
}

# cg_entries: the registered cgroups' indices, one a line (cg_index's hash: struct leader_cg,
# no BTF, so the value's first 4 bytes, little-endian)
cg_entries() {
	local hash

	hash=$(inner_map "$(leader_map cg_index)" 0)
	[ -n "$hash" ] || return 0
	bpftool -j map dump id "$hash" |
		jq -r '.[].value[0:4] | reverse | map(ltrimstr("0x")) | join("")' |
		while read -r hex; do echo $((16#$hex)); done
}

# Four concurrent sessions, one per cgroup, each with direct and shared events: equal counts,
# and each cgroup's page faults are its own and its descendants'.
tree() {
	local cg

	settle
	for cg in "$A" "$B" "$C" "$D"; do
		start_waiting "tree.${cg//\//_}" -e page-faults,page-faults:b,cs,cs:b \
			-G "$cg,$cg,$cg,$cg"
	done
	joined
	norandom sh -c "$IN $A $PT $NA; $IN $B $PT $NB; $IN $C $PT $NC; $IN $D $PT $ND" ||
		fail "the workloads failed"
	release
	for cg in "$A" "$B" "$C" "$D"; do
		check_pairs "$TMP/tree.${cg//\//_}" "tree: $cg"
	done
	assert_eq $((NA + NB + NC + 3 * k)) \
		"$(csv_cgroup_count "$TMP/tree.${A//\//_}" page-faults:b "$A")" "shared faults in $A (and below)"
	assert_eq $((NB + NC + 2 * k)) "$(csv_cgroup_count "$TMP/tree.${B//\//_}" page-faults:b "$B")" \
		"shared faults in $B (and below)"
	assert_eq $((NC + k)) "$(csv_cgroup_count "$TMP/tree.${C//\//_}" page-faults:b "$C")" \
		"shared faults in $C"
	assert_eq $((ND + k)) "$(csv_cgroup_count "$TMP/tree.${D//\//_}" page-faults:b "$D")" \
		"shared faults in $D"
}
timed tree tree

# The same below a cgroup namespace rooted at $NS, the hierarchy mounted again inside it (as in
# a container): -G names b and b/c are relative to it, the kernel's levels are deeper.
namespace() {
	local ns_run b c

	settle
	ns_run=$(in_namespace_script "$TMP" "$MNT" "$NS")
	norandom "$ns_run" "$BPERF" stat --bpf-attr-map "$SHARED_MAP" -a -x, \
		-o "$TMP/ns" -e page-faults,page-faults:b,cs,cs:b --for-each-cgroup b,b/c \
		-- sh -c "$IN b $PT $NB; $IN b/c $PT $NC" || fail "bperf in a cgroup namespace failed"
	for cg in b b/c; do
		grep ",$cg," "$TMP/ns" >"$TMP/ns.${cg//\//_}"
		check_pairs "$TMP/ns.${cg//\//_}" "namespace: $cg"
	done
	b=$(csv_cgroup_count "$TMP/ns" page-faults:b b)
	c=$(csv_cgroup_count "$TMP/ns" page-faults:b b/c)
	assert_eq "$NB" $((b - c - k)) "faults in b less those in b/c ($b, $c) less k"
	[ "$c" -ge "$NC" ] || fail "faults in b/c: $c, fewer than $NC"
}
if command -v unshare >/dev/null; then
	timed namespace namespace
else
	echo "namespace: skipped (needs unshare)"
fi

# pingpong in a cgroup (what broke a trigger at cgroup switches, design A9): unpinned, so that
# its tasks switch to idle and back on both CPUs; then two pinned to one CPU in two cgroups, so
# that every switch there changes the cgroup. Direct and shared counts are equal.
pingpong() {
	settle
	start_waiting pp.a -e cs,cs:b,page-faults,page-faults:b -G "$B,$B,$B,$B"
	joined
	"$IN" "$B" "$PP" 3000 >/dev/null || fail "pingpong failed"
	release
	check_pairs "$TMP/pp.a" "pingpong unpinned in $B"
	start_waiting pp.b -e cs,cs:b,page-faults,page-faults:b,cs,cs:b,page-faults,page-faults:b \
		-G "$C,$C,$C,$C,$D,$D,$D,$D"
	joined
	taskset -c 0 "$IN" "$C" "$PP" 1000 >/dev/null &
	taskset -c 0 "$IN" "$D" "$PP" 1000 >/dev/null || fail "pingpong failed"
	wait $! || fail "pingpong failed"
	release
	grep ",$C," "$TMP/pp.b" >"$TMP/pp.c"
	grep ",$D," "$TMP/pp.b" >"$TMP/pp.d"
	check_pairs "$TMP/pp.c" "pingpong pinned in $C"
	check_pairs "$TMP/pp.d" "pingpong pinned in $D"
	[ "$(csv_cgroup_count "$TMP/pp.b" cs:b "$D")" -ge 2000 ] || fail "fewer than 2000 switches in $D"
}
timed pingpong pingpong

# TREE_SESSIONS sessions of one cgroup: one cg_index entry, and each counts the workload.
one_index() {
	local i

	settle
	for i in $(seq "$TREE_SESSIONS"); do
		start_waiting "many.$i" --bpf-counters -e page-faults -G "$A"
	done
	joined
	assert_eq 1 "$(cg_entries | wc -l)" "cg_index entries of $TREE_SESSIONS sessions of one cgroup"
	norandom "$IN" "$A" "$PT" "$NA" || fail "pagetouch failed"
	release
	for i in $(seq "$TREE_SESSIONS"); do
		assert_eq $((NA + k)) "$(csv_cgroup_count "$TMP/many.$i" page-faults "$A")" "session $i"
	done
}
timed one_index one_index

sum() {
	awk '{ s += $1 } END { print s + 0 }'
}

# the first member's counter of index $1 on every CPU, one a line: cg_accum has no BTF (its
# value size is the leader's), so the value's first 8 bytes, little-endian
cg_counters() {
	local hex chunk=$(($1 >> 6)) at=$(($1 & 63))

	# in cg_accum's chunk of 64 indices (bpf/leader.h)
	bpftool -j map lookup id "$(inner_map "$(leader_map cg_accum)" "$chunk")" key "$at" 0 0 0 |
		jq -r '.values[].value[0:8] | reverse | map(ltrimstr("0x")) | join("")' |
		while read -r hex; do echo $((16#$hex)); done
}

# A -G session killed with SIGKILL: its slot and registration stay until the next session's
# reclaim, which frees the index; the next cgroup registered takes it, zeroed.
reclaim() {
	local holder killed idx

	settle
	# page-faults:b throughout: the key of reclaim.next's, which --bpf-counters' page-faults is
	# not (perf sets exclude_guest without a modifier): one leader, which leader_map reads
	start_waiting reclaim.holder -e page-faults:b
	holder=("${WAITING[@]}")
	setsid "$BPERF" stat --bpf-attr-map "$SHARED_MAP" -a -e page-faults:b \
		-G "$A" -- sh -c "while :; do sleep 0.02; done" 2>/dev/null &
	killed=$!
	echo "$killed" >>"$TMP/waiting"
	WAITING+=("$killed")
	joined
	WAITING=("${holder[@]}")
	norandom "$IN" "$A" "$PT" "$NA" || fail "pagetouch failed"
	idx=$(cg_entries)
	assert_eq 1 "$(echo "$idx" | wc -l)" "cg_index entries with the -G session"
	[ "$(cg_counters "$idx" | sum)" -gt "$NA" ] ||
		fail "$A's sums before the kill: $(cg_counters "$idx" | paste -sd' ')"
	kill -KILL -- "-$killed"
	wait "$killed" 2>/dev/null
	"$BPERF" stat --bpf-attr-map "$SHARED_MAP" -a -e page-faults:b true \
		2>/dev/null || fail "the next session failed"
	assert_eq 0 "$(cg_entries | wc -l)" "cg_index entries after the next session"
	start_waiting reclaim.next -e page-faults,page-faults:b -G "$D,$D"
	joined
	# its entry may land a moment after its workload shows: read again for up to 2 s
	wait_until '[ "$(cg_entries)" = "$idx" ]' 2
	assert_eq "$idx" "$(cg_entries)" "the index $D got (the freed one)"
	assert_eq 0 "$(cg_counters "$idx" | sum)" "$D's sums before anything ran there"
	norandom "$IN" "$D" "$PT" "$ND" || fail "pagetouch failed"
	release
	check_pairs "$TMP/reclaim.next" "reclaim: $D"
	assert_eq $((ND + k)) "$(csv_cgroup_count "$TMP/reclaim.next" page-faults:b "$D")" "faults in $D"
}
if command -v setsid >/dev/null; then
	timed reclaim reclaim
else
	echo "reclaim: skipped (needs setsid)"
fi

# a case that failed may have left its sessions waiting: they end first
settle
assert_nothing_left
cleanup
trap - EXIT
for cg in "$A" "$D" "$NS"; do
	[ ! -d "$MNT/$cg" ] || fail "cgroup $cg left behind"
done
[ ${#failed_cases[@]} -eq 0 ] ||
	fail "${#failed_cases[@]} of $nr_cases cases failed: ${failed_cases[*]}"
echo "all $nr_cases cases passed (cgroups under $MNT)"
