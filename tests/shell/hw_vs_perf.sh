#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hardware events side by side with perf, on the arm64 guest's PMUv3 (tools/vmtest --arch arm64:
# 6 event counters and the cycle counter, and under -icount shift=1 every instruction is counted
# exactly and is two cycles). Both tools count the same deterministic workload:
# - counts: instructions:u is exact and equal in both when the workload gets the environment perf
#   gives it (perf adds PREFIX, PERF_BUILDID_DIR and its exec path to PATH, which the workload's
#   libc start-up reads); in one run u + k = instructions and cycles = 2 x instructions;
# - output: the human, CSV and JSON lines of hardware events, raw rNN, the PMU's sysfs aliases,
#   :u/:k, -a, -A, -C, --per-core, groups, <not counted> with perf's footer hint, and the metrics
#   (insn per cycle, GHz, backend cycles idle) agree with perf's once the numbers are masked;
# - multiplexing: 10 x r11 (cycles) on 7 counters run about 70% each in both, scaled to the same
#   count; --no-scale prints the raw counts; a group's members share their running time;
# - perf_event_attr: the -vv blocks and names of 37 hardware events in many spellings are perf's.
# Skips where perf finds no hardware PMU (the host, the x86 guest).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# perf_env and PMU: the guest's PMU and the environment perf gives a workload (lib.sh)
require_armv8_pmu "$tmp"

PT=$WORKLOADS/pagetouch
SPIN=$WORKLOADS/spin
SLEEP=$WORKLOADS/sleeper

. "$(dirname "$0")/../side_lib.sh"

# side NAME SEP OPTS...: side_lib.sh's, where bperf's NMI watchdog hint names itself ("bperf stat
# ...", README's Differences) and perf's names perf
side() {
	local name=$1 sep=$2

	shift 2
	run_both "$name" "$@"
	sed -i 's/^\tbperf stat \.\.\.$/\tperf stat .../' "$tmp/$name.bperf"
	compare_stat_outputs "$tmp/$name.perf" "$tmp/$name.bperf" "$sep"
}

# ---- exact counts -----------------------------------------------------------------------------
# field FILE EVENT: the count of EVENT in -x, output
field() {
	awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"
}

exact_counts() {
	local ev=instructions:u,instructions:k,instructions,cycles:u,cycles tool f u k all cu c

	norandom "$PERF" stat -x, -e $ev "$PT" 100 2>"$tmp/exact.perf" ||
		fail "perf stat -e $ev failed"
	norandom env -i "${perf_env[@]}" "$BPERF" stat -x, -e $ev "$PT" 100 2>"$tmp/exact.bperf" ||
		fail "bperf stat -e $ev failed"
	for tool in perf bperf; do
		f=$tmp/exact.$tool
		u=$(field "$f" instructions:u) k=$(field "$f" instructions:k)
		all=$(field "$f" instructions) cu=$(field "$f" cycles:u) c=$(field "$f" cycles)
		[[ "$u $k $all $cu $c" =~ ^[0-9]+\ [0-9]+\ [0-9]+\ [0-9]+\ [0-9]+$ ]] ||
			fail "$tool: not five counts: $(cat "$f")"
		assert_eq "$all" $((u + k)) "$tool: instructions:u + instructions:k"
		assert_eq "$cu" $((2 * u)) "$tool: cycles:u (2 x instructions:u under icount)"
		assert_eq "$c" $((2 * all)) "$tool: cycles (2 x instructions under icount)"
	done
	assert_eq "$(field "$tmp/exact.perf" instructions:u)" \
		"$(field "$tmp/exact.bperf" instructions:u)" "pagetouch 100: bperf's instructions:u"
	# the kernel's share follows interrupts and faults (one run in ten has 20% more, hence the
	# retries): near, not equal
	awk -v p="$(field "$tmp/exact.perf" instructions)" \
		-v b="$(field "$tmp/exact.bperf" instructions)" \
		'BEGIN { exit !(b > 0.9 * p && b < 1.1 * p) }' ||
		fail "instructions: bperf $(field "$tmp/exact.bperf" instructions), perf $(field \
			"$tmp/exact.perf" instructions): more than 10% apart"
	compare_stat_outputs "$tmp/exact.perf" "$tmp/exact.bperf" ,
	echo "pagetouch 100, perf's environment: instructions:u perf $(field "$tmp/exact.perf" \
		instructions:u) bperf $(field "$tmp/exact.bperf" instructions:u)"
}
check_retry exact_counts exact_counts

# ---- output with numbers masked ---------------------------------------------------------------
# the default events, with their metrics: icount makes every instruction two cycles of 1 ns
hw_default() {
	side hw_default "" "$PT" 100
	grep -Eq ' instructions +# +0\.50  insn per cycle ' "$tmp/hw_default.bperf" ||
		fail "default events: no '0.50 insn per cycle' on bperf's instructions line"
	awk '/ cycles +# / { ok = $4 >= 0.9 && $4 <= 1.1 && $5 == "GHz" } END { exit !ok }' \
		"$tmp/hw_default.bperf" || fail "default events: cycles not at 1 GHz"
}
check_retry hw_default hw_default
# at most 7 hardware events a run (6 counters and the cycle counter): none is multiplexed
human hw_events -e "{instructions,cycles},{r8,r11}:u,instructions:u,$PMU/inst_retired/,\
cpu_cycles:k" "$PT" 100
csv csv_hw -e "instructions,cycles,stalled-cycles-frontend,stalled-cycles-backend,$PMU/event=0x8/,\
r11:u" "$PT" 100
json json_hw_cpu1 -C 1 -e "instructions,cycles,stall_frontend,inst_retired:k,$PMU/cpu_cycles,\
name=cc/" "$SLEEP" 20
human hw_all_cpus_noaggr -a -A -e cycles,instructions "$SLEEP" 20
csv csv_hw_per_core -a --per-core -e instructions,cycles "$SLEEP" 20
# 8 events in a group never fit on 7 counters: the 8th is refused; the other 7 would fit, but
# a pinned cycles (never rotated out, so always 100%) holds a counter and the group is never
# counted. perf's footer then suggests reorganizing the group (cycles and rNN are two types),
# and on 6.12, whose NMI watchdog holds a counter as well, disabling the watchdog.
group_too_big() {
	local f=$tmp/group_too_big.bperf

	side group_too_big "" -e 'cycles:D,{cycles,r8,r8,r8,r8,r8,r8,r8}' "$PT" 10
	[ "$(grep -c '<not counted> ' "$f")" = 7 ] &&
		[ "$(grep -c '<not supported> ' "$f")" = 1 ] ||
		fail "{cycles,7 x r8}: expected 7 <not counted> and 1 <not supported>"
	grep -q '^The events in group usually have to be from the same PMU. Try reorg' "$f" ||
		fail "no hint to reorganize the group"
	if [ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null)" -gt 0 ] 2>/dev/null; then
		grep -q "^Some events weren't counted. Try disabling the NMI watchdog:" "$f" ||
			fail "nmi_watchdog is on: no hint to disable it"
	fi
}
check_retry group_too_big group_too_big

# ---- multiplexing -----------------------------------------------------------------------------
# spin 50: 50 ms of CPU time, a dozen rotations of the PMU's events (one a tick)
R10=r11,r11,r11,r11,r11,r11,r11,r11,r11,r11

# 10 x r11 on 7 counters (6 where the NMI watchdog holds one): every event runs 60 to 70% of the
# time (50..90 here) and is scaled to the same count as the others and as perf's, 2% apart at most
multiplex() {
	local tool

	run_both mux -e $R10 "$SPIN" 50
	compare_stat_outputs "$tmp/mux.perf" "$tmp/mux.bperf"
	# "count pct" of each r11 line
	for tool in perf bperf; do
		sed -nE 's/^ +([0-9]+) +r11 .*\( *([0-9.]+)%\)$/\1 \2/p' "$tmp/mux.$tool" \
			>"$tmp/mux.$tool.lines"
	done
	assert_eq 10 "$(wc -l <"$tmp/mux.bperf.lines")" "bperf: r11 lines with a percentage"
	awk 'NR == FNR { p += $1; np++; next }
	     { if ($2 < 50 || $2 > 90) { print "running " $2 "%"; bad = 1 }
	       if ($1 < 0.98 * p / np || $1 > 1.02 * p / np) { print "count " $1; bad = 1 } }
	     END { exit bad || !np }' "$tmp/mux.perf.lines" "$tmp/mux.bperf.lines" >&2 ||
		fail "10 x r11: bperf's running percentages or scaled counts (perf's mean: above)"
}
check_retry multiplex multiplex

# --no-scale, five groups of {r11,r8}: three fit at a time, so each runs 60% of the time. The
# counts are raw: cycles at 1 GHz of running time (icount), and the members of a group run
# together, for the same time, cycles exactly twice instructions.
group_mux() {
	run_both group_mux -x, --no-scale -e '{r11,r8},{r11,r8},{r11,r8},{r11,r8},{r11,r8}' \
		"$SPIN" 50
	compare_stat_outputs "$tmp/group_mux.perf" "$tmp/group_mux.bperf" ,
	awk -F, '$3 == "r11" { c = $1; run = $4
			if (c < 0.98 * run || c > 1.02 * run) {
				print "r11 " c " in " run " ns"; bad = 1 }
			next }
		 $3 == "r8" { n++
			if ($4 != run) { print "r8 ran " $4 " ns, its leader " run; bad = 1 }
			if (c - 2 * $1 > 2 || 2 * $1 - c > 2) { print "r11 " c ", r8 " $1; bad = 1 }
			if ($5 < 40 || $5 > 80) { print "running " $5 "%"; bad = 1 } }
		 END { exit bad || n != 5 }' "$tmp/group_mux.bperf" >&2 ||
		fail "--no-scale {r11,r8} x 5: raw counts or running times (above)"
}
check_retry group_mux group_mux

# ---- perf_event_attr (-vv) --------------------------------------------------------------------
check vv_events attrs vv_events -e "instructions,cycles,cpu-cycles,instructions:u,cycles:k,\
instructions:uk,instructions:Gu,r8,r11:u,r0011,$PMU/inst_retired/,$PMU/cpu_cycles/k,\
inst_retired,cpu_cycles:u,$PMU/event=0x8,name=x/,$PMU/config=0x11/,stall_frontend,stall_backend,\
stalled-cycles-frontend,stalled-cycles-backend,{instructions,cycles}:u,cycles:p,instructions:P,\
cycles:D,{cycles,r8,r8,r8,r8,r8,r8,r8},branches,branch-misses,cache-misses"

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
