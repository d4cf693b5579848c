#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Weak groups ({...}:W, every table metric's group) side by side with perf 6.1: when the kernel
# refuses a member with EINVAL, perf dissolves the group and opens its events again one by one,
# so the leader counts and the member is <not supported>. Compared with perf, numbers and fds
# masked: the -vv open sequence (sys_perf_event_open lines, "Weak group for ... failed",
# "reopening weak ...", the Warnings), the -vv readings and the counts table, for
# {msr/tsc/,msr/tsc/u}:W (the msr PMU refuses exclude_kernel) with a workload and -a, each also
# with -r 2 (the group stays dissolved in later runs, the refused member is not opened again),
# and for skylakex's IpFarBranch metric in the fake-PMU namespace (its cpu PMU has msr's type).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
. "$(dirname "$0")/../fake_pmus.sh"
fake_pmus_enter_ns "$0" "$@"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

msr_type=$(fake_pmus_msr_type) || skip "needs the msr PMU"
group='{msr/tsc/,msr/tsc/u}:W'
"$PERF" stat -vv -e "$group" true 2>&1 | grep -q "^Weak group for msr/tsc//2 failed" ||
	skip "perf does not refuse msr/tsc/u here"

# the lines the comparison keeps, numbers that vary (counts, pids, fds, times) masked
sequence() {
	grep -E -e '^sys_perf_event_open|^reopening weak|^Weak group|^Warning:|not supported by the' \
		-e '^\[ b?perf stat: executing run|^failed to read counter|: -?[0-9]+ [0-9]+ [0-9]+$' \
		-e '^ +(<not|[0-9])' |
		sed -E 's/^\[ bperf /[ perf /; s/pid [0-9]+ /pid PID /; s/group_fd [0-9]+/group_fd FD/;
			s/ = [0-9]+$/ = FD/; s/ [0-9]+ [0-9]+ [0-9]+$/ N N N/; s/\+- *[0-9.]+%/+- P%/;
			s/^ +[0-9][0-9.,]*( +)/N\1/; s/\+- [0-9.]+ seconds/+- N seconds/'
}

failed=()
# compare WHAT ENV... -- ARGS...: perf stat -vv ARGS and bperf stat -vv ARGS, environment ENV
compare() {
	local what=$1 envs=()

	shift
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	env "${envs[@]}" "$PERF" stat -vv "$@" 2>&1 >/dev/null | sequence >"$tmp/p"
	env "${envs[@]}" "$BPERF" stat -vv "$@" 2>&1 >/dev/null | sequence >"$tmp/b"
	grep -q "^reopening weak" "$tmp/p" || fail "$what: perf reopened nothing"
	cmp -s "$tmp/p" "$tmp/b" || {
		echo "== $what" >&2
		diff "$tmp/p" "$tmp/b" | head -20 >&2
		failed+=("$what")
	}
}

compare "workload $group" -- -e "$group" true
compare "-a $group" -- -a -e "$group" true
compare "-r 2 $group" -- -r 2 -e "$group" true
compare "-r 2 -a $group" -- -r 2 -a -e "$group" true

# the leader counts on its own, unscaled: enabled == running on every CPU
"$BPERF" stat -v -a -e "$group" true 2>&1 >/dev/null | grep "^msr/tsc/: " >"$tmp/raw"
[ -s "$tmp/raw" ] || fail "bperf printed no msr/tsc/ reading"
awk '$2 == 0 || $3 != $4 { bad = 1 } END { exit bad }' "$tmp/raw" ||
	fail "msr/tsc/ not counted alone: $(cat "$tmp/raw")"

fake_pmus_metric_setup "$tmp" "$msr_type" intel
id=PERF_CPUID=GenuineIntel-6-55-4
compare "-a -M IpFarBranch" "$id" -- -a -M IpFarBranch true
compare "-r 2 -a -M IpFarBranch" "$id" -- -r 2 -a -M IpFarBranch true

[ ${#failed[@]} -eq 0 ] || fail "differ from perf: ${failed[*]}"
