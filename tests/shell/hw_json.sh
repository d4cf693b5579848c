#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf's event and metric tables counting for real, on the arm64 guest's PMUv3 (tools/vmtest
# --arch arm64; under -icount shift=1 every instruction is counted exactly and is two cycles).
# QEMU's CPU id matches no table, so both tools take a model's through PERF_CPUID:
# - Neoverse N1 (arm/cortex-a76-n1): inst_retired and cpu_cycles by their table names count what
#   instructions and cycles count (inst_retired:u exact and equal in both tools), the output with
#   numbers masked is perf's, and the -vv attrs of table events (those sysfs has too and those
#   only the table has, with modifiers, name= and in groups) are perf's;
# - HiSilicon hip08: -M retiring (INST_RETIRED / (CPU_CYCLES * 4), no ScaleUnit) is 0.125 in both
#   tools, printed 0.12 (perf's %.2f), and the metric's output is perf's once numbers are masked.
# Skips where perf finds no hardware PMU (the host, the x86 guest).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

N1=0x00000000410fd0c0	# perf 6.1's mapfile: arm/cortex-a76-n1
HIP08=0x00000000480fd010	# hisilicon/hip08, whose metrics.json has retiring
export PERF_CPUID=$N1

# perf_env and PMU, as hw_vs_perf.sh (PERF_CPUID is in the environment perf gives a workload)
require_armv8_pmu "$tmp"
PT=$WORKLOADS/pagetouch

. "$(dirname "$0")/../side_lib.sh"

# field FILE EVENT: the count of EVENT in -x, output
field() {
	awk -F, -v ev="$2" '$3 == ev { print $1 }' "$1"
}

# ---- table events count exactly ---------------------------------------------------------------
table_counts() {
	local ev=inst_retired:u,cpu_cycles:u,instructions:u,inst_retired tool f i c n

	norandom "$PERF" stat -x, -e $ev "$PT" 100 2>"$tmp/table.perf" ||
		fail "perf stat -e $ev failed"
	norandom env -i "${perf_env[@]}" "$BPERF" stat -x, -e $ev "$PT" 100 2>"$tmp/table.bperf" ||
		fail "bperf stat -e $ev failed"
	for tool in perf bperf; do
		f=$tmp/table.$tool
		i=$(field "$f" inst_retired:u) c=$(field "$f" cpu_cycles:u) n=$(field "$f" instructions:u)
		[[ "$i $c $n" =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] || fail "$tool: not three counts: $(cat "$f")"
		assert_eq "$n" "$i" "$tool: inst_retired:u against instructions:u"
		assert_eq $((2 * i)) "$c" "$tool: cpu_cycles:u (2 x inst_retired:u under icount)"
	done
	assert_eq "$(field "$tmp/table.perf" inst_retired:u)" \
		"$(field "$tmp/table.bperf" inst_retired:u)" "pagetouch 100: bperf's inst_retired:u"
	compare_stat_outputs "$tmp/table.perf" "$tmp/table.bperf" ,
	echo "pagetouch 100: inst_retired:u perf $(field "$tmp/table.perf" inst_retired:u)" \
		"bperf $(field "$tmp/table.bperf" inst_retired:u)"
}
check_retry table_counts table_counts

# the human output of table events beside their generic and sysfs spellings
human table_events -e "inst_retired,cpu_cycles:u,{inst_retired,cpu_cycles}:k,INST_RETIRED,\
$PMU/inst_retired/" "$PT" 100

# ---- perf_event_attr (-vv) of table events ----------------------------------------------------
# inst_spec, br_mis_pred, l1d_cache and ld_spec come from the table (QEMU counts none of them)
check vv_table attrs vv_table -e "inst_retired,cpu_cycles:u,inst_spec,br_mis_pred:k,\
l1d_cache,ld_spec,INST_SPEC,{inst_retired,cpu_cycles},inst_retired/name=ir/"

# ---- a table metric over instructions and cycles ----------------------------------------------
metric_retiring() {
	local p b

	PERF_CPUID=$HIP08 run_both retiring -x, -M retiring "$PT" 100
	p=$(awk -F, '$7 == "retiring" { print $6 }' "$tmp/retiring.perf")
	b=$(awk -F, '$7 == "retiring" { print $6 }' "$tmp/retiring.bperf")
	assert_eq 0.12 "$p" "perf's retiring (inst_retired / (4 x cpu_cycles) under icount)"
	assert_eq 0.12 "$b" "bperf's retiring"
	compare_stat_outputs "$tmp/retiring.perf" "$tmp/retiring.bperf" ,
	PERF_CPUID=$HIP08 run_both retiring_human -M retiring "$PT" 100
	compare_stat_outputs "$tmp/retiring_human.perf" "$tmp/retiring_human.bperf" ""
	echo "-M retiring: perf $p, bperf $b"
}
check_retry metric_retiring metric_retiring

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
