#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Counting per cgroup (-G, --for-each-cgroup) and the privilege modifiers (--all-user,
# --all-kernel), against perf. The test makes its own cgroups in the hierarchy perf events use
# (cgroup v2, or v1 with the perf_event controller), runs pagetouch N in one and pagetouch M in
# another (each moves itself into its cgroup before exec), and checks that each cgroup's
# page-faults are exactly the workload's (N + k and M + k, k the start-up faults) and equal to
# perf's counts of the same run; outputs are compared with perf's with the numbers masked, and
# error cases by their message and exit status (on the host only: KERNEL_CASES_ONLY, as in the
# guests, leaves out the cases that do not depend on the kernel). The cgroups are removed on every
# exit path.
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"

PT=$WORKLOADS/pagetouch
tmp=$(mktemp -d)
base=bperf_cg_$$
A=${base}_a
B=${base}_b
SUB=$A/sub
NS=bperf_cgns_$$

cleanup() {
	rm -rf "$BPF_MAP" "$BPF_MAP"_lock
	remove_cgroup "$SUB"
	remove_cgroup "$A"
	remove_cgroup "$B"
	remove_cgroup "$NS/a"
	remove_cgroup "$NS/b"
	remove_cgroup "$NS"
	rm -rf "$tmp"
}
trap cleanup EXIT

mkdir "$MNT/$A" "$MNT/$SUB" "$MNT/$B" "$MNT/$NS" "$MNT/$NS/a" "$MNT/$NS/b" ||
	skip "cannot create cgroups under $MNT"

# in_cgroup CGROUP CMD...: the shell moves itself into CGROUP, then becomes CMD.
IN=$(in_cgroup_script "$tmp" "$MNT")
N=1000
M=300
WORK="$IN $A $PT $N; $IN $B $PT $M"

. "$(dirname "$0")/../side_lib.sh"

# The start-up faults k of pagetouch behind the wrapper, from perf: pagetouch 0 in cgroup A, the
# least of three runs (a loaded machine now and then adds a fault, never takes one away).
k=$(least_count cgroup_startup_faults "$IN" "$A" "$PT") && [ "$k" -gt 0 ] ||
	fail "perf counted no start-up faults in $A: '$k'"

# -G pairs the Nth cgroup with the Nth event: each cgroup gets exactly its workload's faults.
exact_pairs() {
	local f

	run_both pairs -a -x, -e page-faults,page-faults -G "$A,$B" -- sh -c "$WORK"
	for f in perf bperf; do
		assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/pairs.$f" page-faults "$A")" "$f faults in A"
		assert_eq $((M + k)) "$(csv_cgroup_count "$tmp/pairs.$f" page-faults "$B")" "$f faults in B"
	done
	compare_stat_outputs "$tmp/pairs.perf" "$tmp/pairs.bperf" ,
}
check_retry exact_pairs exact_pairs

# --for-each-cgroup: every event in each cgroup; the clock of the same cgroup gives the rates.
exact_each() {
	local f

	run_both each -a -x, -e page-faults,task-clock --for-each-cgroup "$A,$B" -- sh -c "$WORK"
	for f in perf bperf; do
		assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/each.$f" page-faults "$A")" "$f faults in A"
		assert_eq $((M + k)) "$(csv_cgroup_count "$tmp/each.$f" page-faults "$B")" "$f faults in B"
	done
	compare_stat_outputs "$tmp/each.perf" "$tmp/each.bperf" ,
}
check_retry exact_each exact_each

# Patterns match every cgroup path (A, A/sub, B, in directory order); an empty entry is the root.
exact_pattern() {
	run_both pattern -a -x, -e page-faults --for-each-cgroup "^${base}_" -- sh -c "$WORK"
	assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/pattern.bperf" page-faults "$A")" "faults in A"
	assert_eq 3 "$(grep -c "$base" "$tmp/pattern.bperf")" "lines of the pattern's cgroups"
	compare_stat_outputs "$tmp/pattern.perf" "$tmp/pattern.bperf" ,
	run_both pattern_root -a -x, -e page-faults --for-each-cgroup "${base}_b\$," true
	compare_stat_outputs "$tmp/pattern_root.perf" "$tmp/pattern_root.bperf" ,
}
check_retry exact_pattern exact_pattern

# --bpf-counters: one shared leader per event serves every cgroup of every session (a private
# attr map). In one run, each cgroup's shared count equals the direct count and the workload's
# exact faults: the shell moves itself into its cgroup in the middle of a slice, and the slice
# before the move stays with the cgroup it left, as perf counts it.
BPF_MAP=/sys/fs/bpf/bperf_test_cgroups_$$
mount_bpffs
bpf_pairs() {
	local ev

	norandom "$BPERF" stat --bpf-attr-map "$BPF_MAP" -v -a -x, \
		-e page-faults,page-faults:b,page-faults,page-faults:b,cs,cs:b \
		-G "$A,$A,$B,$B,$A,$A" -- sh -c "$WORK" >/dev/null 2>"$tmp/bpf.bperf" ||
		fail "bperf with :b events failed"
	for ev in page-faults page-faults:b; do
		assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/bpf.bperf" "$ev" "$A")" "$ev in A"
		assert_eq $((M + k)) "$(csv_cgroup_count "$tmp/bpf.bperf" "$ev" "$B")" "$ev in B"
	done
	assert_eq "$(csv_cgroup_count "$tmp/bpf.bperf" cs "$A")" \
		"$(csv_cgroup_count "$tmp/bpf.bperf" cs:b "$A")" "context switches in A, direct and shared"
	! grep "directly" "$tmp/bpf.bperf" >&2 || fail "a cgroup event was not shared"
}
check_retry bpf_pairs bpf_pairs

# A name with "..": its depth is counted as the path resolves, never deeper than the cgroup is.
bpf_dotdot() {
	norandom "$BPERF" stat --bpf-attr-map "$BPF_MAP" -a -x, -e page-faults,page-faults:b \
		-G "$SUB/..,$SUB/.." -- sh -c "$WORK" >/dev/null 2>"$tmp/dotdot" ||
		fail "bperf with -G $SUB/.. failed"
	assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/dotdot" page-faults "$SUB/..")" "faults in $SUB/.."
	assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/dotdot" page-faults:b "$SUB/..")" \
		"shared faults in $SUB/.."
}
check_retry bpf_dotdot bpf_dotdot

# bpf_side NAME SEP OPTS...: perf stat OPTS against bperf stat --bpf-counters OPTS, outputs with
# the numbers masked, and the page faults of each cgroup exact in both.
bpf_side() {
	local name=$1 sep=$2 f

	shift 2
	norandom "$PERF" stat "$@" >/dev/null 2>"$tmp/$name.perf"
	norandom "$BPERF" stat --bpf-counters --bpf-attr-map "$BPF_MAP" "$@" >/dev/null \
		2>"$tmp/$name.bperf" || fail "$name: bperf --bpf-counters failed"
	compare_stat_outputs "$tmp/$name.perf" "$tmp/$name.bperf" "$sep"
	[ "$sep" = , ] || return 0
	for f in perf bperf; do
		assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/$name.$f" page-faults "$A")" "$f faults in A"
		assert_eq $((M + k)) "$(csv_cgroup_count "$tmp/$name.$f" page-faults "$B")" "$f faults in B"
	done
}
check_retry bpf_each bpf_side bpf_each , -x, -a -e page-faults,task-clock,cs \
	--for-each-cgroup "$A,$B" -- sh -c "$WORK"
check_retry bpf_human bpf_side bpf_human "" -a -e page-faults,task-clock -G "$A,$B" \
	-- sh -c "$WORK"
# per CPU: the workload pinned to CPU 1, so CPU 0 is <not counted> in each cgroup
check_retry bpf_per_cpu bpf_side bpf_per_cpu "" -a -A -e page-faults --for-each-cgroup "$A,$B" \
	-- taskset -c 1 sh -c "$WORK"

# Two sessions at once, one counting A and one counting B: one leader (on_switch) serves both
# (the private attr map has one entry), each counts exactly its cgroup's workload, and the
# leader's program is gone after them (looked up by id: other tests may run leaders meanwhile).
bpf_two_sessions() {
	local entries link prog x_pid

	rm -f "$tmp/go" "$tmp/b_counts"
	# B's workload starts once B counts: it says so, then waits for A's
	norandom "$BPERF" stat --bpf-counters --bpf-attr-map "$BPF_MAP" -a -x, -e page-faults \
		-G "$B" -o "$tmp/two_b" -- sh -c "touch $tmp/b_counts;
		while [ ! -e $tmp/go ] && [ -d $tmp ]; do sleep 0.02; done; $IN $B $PT $M" &
	x_pid=$!
	wait_until '[ -e "$tmp/b_counts" ]' 10 || fail "session B's workload did not start"
	norandom "$BPERF" stat --bpf-counters --bpf-attr-map "$BPF_MAP" -a -x, -e page-faults \
		-G "$A" -o "$tmp/two_a" -- sh -c "$IN $A $PT $N;
		bpftool -j map dump pinned $BPF_MAP >$tmp/entries; bpftool -j link show >$tmp/links
		touch $tmp/go" ||
		fail "session A failed"
	wait "$x_pid" || fail "session B failed"
	entries=$(jq length "$tmp/entries")
	assert_eq 1 "$entries" "leaders while both sessions ran"
	# the entry's value: the leader's link id, little-endian in its first 4 bytes
	link=$(jq -r '.[0].value[0:4] | reverse | map(ltrimstr("0x")) | join("")' "$tmp/entries")
	link=$((16#$link))
	prog=$(jq --argjson id "$link" '.[] | select(.id == $id) | .prog_id' "$tmp/links")
	[ -n "$prog" ] || fail "no link $link while the sessions ran"
	assert_eq $((N + k)) "$(csv_cgroup_count "$tmp/two_a" page-faults "$A")" "session A's faults"
	assert_eq $((M + k)) "$(csv_cgroup_count "$tmp/two_b" page-faults "$B")" "session B's faults"
	# programs are freed asynchronously: up to 3 s
	wait_until '! bpftool prog show id "$prog" >/dev/null 2>&1' 3 ||
		fail "leader program $prog left"
	! bpftool link show id "$link" >/dev/null 2>&1 || fail "leader link $link left"
}
if command -v bpftool >/dev/null && command -v jq >/dev/null; then
	check_retry bpf_two_sessions bpf_two_sessions
else
	echo "bpf_two_sessions: skipped (needs bpftool and jq)"
fi

# A cgroup namespace rooted below the hierarchy's root, with the hierarchy mounted again inside it
# (as in a container): names and depths are relative to the namespace's root, the kernel's
# levels are not. Each namespace cgroup's shared count equals the direct count, and the
# difference between the two cgroups is the workloads' (N - M).
bpf_namespace() {
	local ns_run a b

	ns_run=$(in_namespace_script "$tmp" "$MNT" "$NS")
	norandom "$ns_run" "$BPERF" stat --bpf-attr-map "$BPF_MAP" -a -x, -o "$tmp/ns" \
		-e page-faults,page-faults:b --for-each-cgroup a,b \
		-- sh -c "$IN a $PT $N; $IN b $PT $M" || fail "bperf in a cgroup namespace failed"
	for cg in a b; do
		assert_eq "$(csv_cgroup_count "$tmp/ns" page-faults $cg)" \
			"$(csv_cgroup_count "$tmp/ns" page-faults:b $cg)" "faults in the namespace's $cg"
	done
	a=$(csv_cgroup_count "$tmp/ns" page-faults a)
	b=$(csv_cgroup_count "$tmp/ns" page-faults b)
	assert_eq $((N - M)) $((a - b)) "faults in a less faults in b ($a, $b)"
}
if command -v unshare >/dev/null; then
	check_retry bpf_namespace bpf_namespace
else
	echo "bpf_namespace: skipped (needs unshare)"
fi

# A task moved into a cgroup by another process (here the test, as systemd moves a service)
# while it sleeps: what it does after the move counts in that cgroup, shared as direct.
# moved_waits: sets bpf_moved_by_other's pid and state; succeeds once its workload waits (S)
moved_waits() {
	pid=$(cat "$tmp/moved.pid" 2>/dev/null)
	state=$([ -n "$pid" ] && awk '{ print $3 }' "/proc/$pid/stat")
	[ "$state" = S ]
}
bpf_moved_by_other() {
	local pid state

	rm -f "$tmp/moved.pid" "$tmp/release"
	mkfifo "$tmp/release"
	norandom "$BPERF" stat --bpf-attr-map "$BPF_MAP" -a -x, -o "$tmp/moved" \
		-e page-faults,page-faults:b -G "$A,$A" -- \
		sh -c "echo \$\$ >$tmp/moved.pid; read _ <$tmp/release; exec $PT $N" &
	wait_until moved_waits 4
	if [ "$state" != S ] || ! echo "$pid" >"$MNT/$A/cgroup.procs"; then
		timeout 5 sh -c "echo >$tmp/release"
		fail "the workload could not be moved while it waited: pid '$pid', state '$state'"
	fi
	echo >"$tmp/release"
	wait $! || fail "bperf failed"
	assert_eq "$(csv_cgroup_count "$tmp/moved" page-faults "$A")" \
		"$(csv_cgroup_count "$tmp/moved" page-faults:b "$A")" \
		"faults after the move, direct and shared"
	[ "$(csv_cgroup_count "$tmp/moved" page-faults "$A")" -ge "$N" ] ||
		fail "fewer than $N faults counted in $A"
}
check_retry bpf_moved_by_other bpf_moved_by_other

# The human table, JSON and -A with the cgroup column (empty for an event without a cgroup), the
# single -G that applies to every event, and several -G options adding up.
check_host human_spread side human_spread "" -a -e task-clock,page-faults -G "$A" -- sh -c "$WORK"
check_host human_empty side human_empty "" -a -e page-faults,task-clock,cs -G ",$B" -- sh -c "$WORK"
check_host human_two_g side human_two_g "" -a -e page-faults,cs -G "$A" --cgroup "$B" \
	-- sh -c "$WORK"
check_host human_each side human_each "" -a -e task-clock,cs --for-each-cgroup "$A,$B,$SUB" \
	-- sh -c "$WORK"
check_host json_each side json_each nocolumns -j -a -e page-faults,task-clock \
	--for-each-cgroup "$A,,$B" -- sh -c "$WORK"
# pinned: a cgroup's event on a CPU where it never ran is <not counted>
check per_cpu side per_cpu "" -a -A -e page-faults -G "$A" -- taskset -c 1 sh -c "$WORK"
check_host cpu_list side cpu_list , -x, -C 0,1 -e page-faults -G "$A" -- sh -c "$WORK"
check_host default_events side default_events , -x, -a --for-each-cgroup "$B" -- sh -c "$WORK"

# -vv: the cgroup's fd goes in place of the pid, with PERF_FLAG_PID_CGROUP (flags 0xc).
open_trace() {
	run_both vv -vv -a -x, -e page-faults -G "$A" true
	grep -q "^sys_perf_event_open: pid [0-9]*  cpu 0  group_fd -1  flags 0xc = " \
		"$tmp/vv.bperf" || fail "no cgroup open in bperf's -vv trace"
	diff <(sed -n '/^perf_event_attr:/,/^---/p' "$tmp/vv.perf") \
		<(sed -n '/^perf_event_attr:/,/^---/p' "$tmp/vv.bperf") >&2 ||
		fail "perf_event_attr differs from perf's"
}
check_host open_trace open_trace

# usage_names: stderr with the options' help texts left out (bperf's are its own)
usage_names() {
	sed -E -e 's/\bperf stat\b/bperf stat/' \
		-e 's/^( +(-[[:alnum:]], )?--[[:alnum:]-]+( <[^>]*>)?) .*/\1/' \
		-e '/^ {20,}[^ ]/d'
}

# Errors: perf's message, usage lines and exit status.
same_error() {
	local name=$1

	shift
	run_both "$name" "$@"
	[ -s "$tmp/$name.bperf" ] || fail "$name: bperf printed nothing"
	diff -u <(usage_names <"$tmp/$name.perf") <(usage_names <"$tmp/$name.bperf") >&2 ||
		fail "$name: stderr differs from perf's (help texts left out)"
}
check_host err_no_cpu same_error err_no_cpu -e page-faults -G "$A" true
check_host err_each_no_cpu same_error err_each_no_cpu -e page-faults --for-each-cgroup "$A" true
check_host err_before_events same_error err_before_events -G "$A" -e page-faults -a true
check_host err_missing same_error err_missing -a -e page-faults -G "${base}_none" true
check_host err_too_many same_error err_too_many -a -e page-faults -G "$A,$B" true
check_host err_g_then_each same_error err_g_then_each -a -e page-faults -G "$A" \
	--for-each-cgroup "$B" true
check_host err_each_then_g same_error err_each_then_g -a -e page-faults --for-each-cgroup "$B" \
	-G "$A" true
check_host err_no_match same_error err_no_match -a -e page-faults \
	--for-each-cgroup "^${base}_x" true
check_host err_each_missing same_error err_each_missing -a -e page-faults \
	--for-each-cgroup "${base}_none" true
# perf 6.1 prints only the usage for a pattern that does not compile; bperf says why (README)
bad_pattern() {
	run_both bad_pattern -a -e page-faults --for-each-cgroup "$A,[" true
	grep -q "^invalid cgroup pattern '\[': " "$tmp/bad_pattern.bperf" ||
		fail "no message for a bad pattern"
}
check_host bad_pattern bad_pattern

# --all-user / --all-kernel: the attrs perf builds (exclude_kernel/exclude_hv or exclude_user),
# and counts that follow them (page faults are taken in user space).
modifiers() {
	local mode

	for mode in --all-user --all-kernel; do
		run_both "attr$mode" -vv $mode -e page-faults,task-clock:k true
		diff <(sed -n '/^perf_event_attr:/,/^---/p' "$tmp/attr$mode.perf") \
			<(sed -n '/^perf_event_attr:/,/^---/p' "$tmp/attr$mode.bperf") >&2 ||
			fail "$mode: perf_event_attr differs from perf's"
	done
	run_both user -x, --all-user -e page-faults "$PT" "$N"
	assert_eq "$(cut -d, -f1 "$tmp/user.perf")" "$(cut -d, -f1 "$tmp/user.bperf")" \
		"--all-user faults"
	run_both both_modes --all-user --all-kernel -e page-faults true
	assert_eq "$(head -1 "$tmp/both_modes.perf")" "$(head -1 "$tmp/both_modes.bperf")" \
		"--all-user with --all-kernel"
}
check_host modifiers modifiers

cleanup
trap - EXIT
for cg in "$A" "$B" "$SUB" "$NS"; do
	[ ! -d "$MNT/$cg" ] || fail "cgroup $cg left behind"
done
[ ${#failed_cases[@]} -eq 0 ] ||
	fail "${#failed_cases[@]} of $nr_cases cases failed: ${failed_cases[*]}"
echo "all $nr_cases cases passed (cgroups under $MNT)"
