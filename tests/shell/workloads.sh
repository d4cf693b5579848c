#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The test workloads do what the tests rely on, measured with the reference perf; and two perf
# runs of one command compare equal under compare_stat_outputs.
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf 6.1 now and then prints <not counted> for a workload this short in the emulated guest
# (the workload is gone before perf's counter ran): such a reading is taken again, a count never
faults() {
	local count try

	for try in 1 2 3; do
		count=$(norandom "$PERF" stat -x, -e page-faults "$@" 2>&1 >/dev/null | cut -d, -f1)
		[[ $count =~ ^[0-9]+$ ]] && break
		echo "perf stat $*: '$count', try $try" >&2
	done
	echo "$count"
}

# the same count every run; a run that took a retried fault more on a loaded machine is taken again
base=$(least_count faults "$WORKLOADS/pagetouch" 0) || exit 1
pagetouch_faults() {
	assert_eq $((base + $1)) "$(faults "$WORKLOADS/pagetouch" "$1")" "pagetouch $1 faults"
}
for _ in 1 2 3; do
	retry3 pagetouch_faults 0 || exit 1
	retry3 pagetouch_faults 1000 || exit 1
done

switches=$("$PERF" stat -x, -e context-switches "$WORKLOADS/pingpong" 500 2>&1 | cut -d, -f1)
# about 2 per round trip, fewer when a partner is woken before it blocks
if [ "$switches" -lt 250 ] || [ "$switches" -gt 1100 ]; then
	fail "pingpong 500: expected 250..1100 context switches, got $switches"
fi

ms=$("$PERF" stat -x, -e task-clock "$WORKLOADS/spin" 100 2>&1 | cut -d, -f1)
awk -v ms="$ms" 'BEGIN { exit !(ms >= 100 && ms < 200) }' ||
	fail "spin 100: expected 100..200 msec of task-clock, got $ms"

events=task-clock,page-faults,context-switches,cycles
"$PERF" stat -e $events "$WORKLOADS/pingpong" 100 2>"$tmp/a"
"$PERF" stat -e $events "$WORKLOADS/pingpong" 200 2>"$tmp/b"
sed -i 's/pingpong 200/pingpong 100/' "$tmp/b"
compare_stat_outputs "$tmp/a" "$tmp/b"
"$PERF" stat -x, -e $events "$WORKLOADS/pagetouch" 10 2>"$tmp/a"
"$PERF" stat -x, -e $events "$WORKLOADS/pagetouch" 20000 2>"$tmp/b"
compare_stat_outputs "$tmp/a" "$tmp/b" ,

# a left-aligned count must not pass the column check
"$PERF" stat -e task-clock "$WORKLOADS/sleeper" 1 2>"$tmp/a"
sed -E 's/^( +)([0-9][0-9.,]*) /\2\1 /' "$tmp/a" >"$tmp/b"
if (compare_stat_outputs "$tmp/a" "$tmp/b") 2>/dev/null; then
	fail "compare_stat_outputs: expected a left-aligned count to differ, it matched"
fi
exit 0
