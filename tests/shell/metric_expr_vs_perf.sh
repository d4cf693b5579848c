#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The events of a metric and its value as perf 6.1 on this machine gives them, for the metrics of
# two CPU models' tables (skylakex, PERF_CPUID=GenuineIntel-6-55-4, and Zen 3/4's amdzen3,
# whose metrics use d_ratio), without and (for the metrics whose #core_wide makes -a matter)
# with -a. perf -v prints each metric's expression and those it refers to ("metric expr EXPR
# for NAME") and the events it will open ("Parsing metric events '{A/metric-id=A/,...}:W'");
# -x, gives their counts and the metric's value.
# - Order: bperf's expression parser, id set, references and literals (test_metric_expr ids)
#   must give the same ids in the same order from the same expressions. The order comes from
#   perf's hash map, and #SMT_on and #core_wide choose branches: any slip shows.
# - Value: test_metric_expr value computes the metric from the counts perf printed (references
#   evaluated by name, literals, duration_time in seconds) and must print perf's number with
#   perf's format, times the ScaleUnit perf's unit text implies (% is 100% or 1%).
# The fake PMUs (`cpu`, uncore_imc_0, uncore_cha_0, cstate_core, cstate_pkg) have the msr PMU's
# type and their format terms in config1/config2, so every table event counts TSC ticks: real,
# different counts. nmi_watchdog reads 0 so that no metric is split out of its group.
# By default skylakex's metrics of design 17's cases (references, literals, uncore and escaped
# ids, TopdownL1 and TopdownL2) and every 8th other one, and amdzen3's 13 (about 30 s);
# METRIC_EXPR_ALL=1: all 218 of skylakex (about 2 minutes on a loaded machine).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
TOOL=$REPO_TOP/.output/tests/test_metric_expr
[ -x "$TOOL" ] || fail "unit tests not built: run make tests"
. "$(dirname "$0")/../fake_pmus.sh"
fake_pmus_enter_ns "$0" "$@"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

msr_type=$(fake_pmus_msr_type) || skip "needs the msr PMU"
fake=$tmp/devices
fake_pmus_metric_setup "$tmp" "$msr_type"

# cpu_format intel|amd: the fake cpu PMU's format terms, the kernel's moved to config1/config2
cpu_format() {
	fake_pmu_metric_cpu "$fake" "$msr_type" "$1"
}

# same_value NAME CSV DEFS [-a]: the metric's value from perf's counts against perf's value.
# perf's CSV keeps only the leading digits and dots of a value ("-0.50" and "nan" print empty).
same_value() {
	local name=$1 csv=$2 defs=$3 line want='' unit='' got scales scale fmt=%.1f rc

	shift 3
	# count,unit,event name (which may hold commas),run,percent,metric value,metric unit
	awk -F, '/^[0-9]/ { n = $3; for (i = 4; i <= NF - 4; i++) n = n "," $i; print n "\t" $1 }' \
		"$csv" >"$tmp/counts"
	# the count line with this metric's unit: "NAME" or "UNIT  NAME", which perf cuts to 63
	# characters (-v adds "event: counts" lines; a metric perf could not set up leaves the
	# default events and their units)
	line=$(awk -F, '/^[0-9<]/ && $NF != ""' "$csv" | head -1)
	unit=${line##*,}
	if [[ $unit == "$name" || "$unit" == *"  ${name:0:20}"* ]]; then
		want=$(echo "$line" | awk -F, '{ print $(NF - 1) }')
	else
		unit=''
	fi
	got=$("$TOOL" value "$@" -c "$tmp/counts" "$name" <"$defs")
	rc=$?
	if [ $rc -eq 3 ] || [ "$got" = none ]; then
		# neither computes a value: an event without a count, or a division by zero
		[ -z "$want" ] || { echo "$name $*: perf printed $want, bperf has none"; return 1; }
		return 4
	fi
	[ $rc -eq 0 ] || { echo "$name $*: bperf failed ($rc)"; return 1; }
	scales=1
	if [ "$unit" = "$name" ]; then
		fmt=%.2f
	elif [ "${unit%%  *}" = % ]; then
		scales="100 1"
	elif [ "${unit%%  *}" = MiB ]; then
		scales="3e-5 6.1e-5"
	fi
	# nothing to compare where perf's CSV printed nothing: a negative value, NaN, infinity
	if [ -z "$want" ]; then
		case $got in
		-*|nan|inf) return 4 ;;
		esac
	fi
	for scale in $scales; do
		[ "$(awk -v v="$got" -v s="$scale" -v f="$fmt" \
			'BEGIN { x = sprintf(f, v * s); match(x, /^[0-9.]*/); print substr(x, 1, RLENGTH) }'
		    )" = "$want" ] && return 0
	done
	echo "$name $*: perf printed '$want' ($unit), bperf computed $got"
	return 1
}

# compare NAME [-a]: perf's event order for metric NAME against bperf's from the same defs,
# then the value. Returns 2 when perf does not give one metric's events on one line (a name
# that is also a group), 3 (4) when one of its expressions uses #core_wide (and no value).
compare() {
	local name=$1 out=$tmp/perf.out rc

	shift
	"$PERF" stat -v -x, -o "$tmp/perf.csv" "$@" -M "$name" true >"$out" 2>&1
	[ "$(grep -c "^Parsing metric events" "$out")" -eq 1 ] || return 2
	grep "^Parsing metric events" "$out" | grep -o 'metric-id=[^/]*' |
		sed 's/^metric-id=//; s/!0/,/g; s/!1/-/g; s/!2/=/g; s/!3/@/g' >"$tmp/want"
	sed -n 's/^metric expr \(.*\) for \([^ ]*\)$/\2\t\1/p' "$out" >"$tmp/defs"
	"$TOOL" ids "$@" "$name" <"$tmp/defs" >"$tmp/got" 2>"$tmp/err" ||
		{ echo "$name $*: bperf failed: $(cat "$tmp/err")"; return 1; }
	if ! cmp -s "$tmp/want" "$tmp/got"; then
		echo "$name $*: perf's order, then bperf's:"
		paste "$tmp/want" "$tmp/got" | sed 's/^/    /'
		return 1
	fi
	same_value "$name" "$tmp/perf.csv" "$tmp/defs" "$@"
	rc=$?
	[ $rc -eq 1 ] && return 1
	grep -q '#core_wide' "$tmp/defs" && return $((rc == 4 ? 4 : 3))
	return $((rc == 4 ? 5 : 0))
}

compared=0
valued=0
multi=()
failed=()

# model CPUID FORMAT MIN_METRICS NAME...: compares the named metrics of the model's table
model() {
	local cpuid=$1 format=$2 min=$3 name rc core_wide=()

	shift 3
	export PERF_CPUID=$cpuid
	cpu_format "$format"
	for name in "$@"; do
		compare "$name"
		rc=$?
		case $rc in
		0|3|4|5) compared=$((compared + 1)) ;;&
		0|3) valued=$((valued + 1)) ;;&
		3|4) core_wide+=("$name") ;;
		2) multi+=("$name") ;;
		1) failed+=("$cpuid $name") ;;
		esac
	done
	# -a makes #core_wide true here (no SMT) or not (SMT and a partial -C): other events
	for name in "${core_wide[@]}"; do
		compare "$name" -a
		rc=$?
		case $rc in
		0|3|4|5) compared=$((compared + 1)) ;;&
		0|3) valued=$((valued + 1)) ;;
		4|5) ;;
		*) failed+=("$cpuid $name -a") ;;
		esac
	done
	echo "$cpuid: $# metrics, ${#core_wide[@]} with -a too"
	[ $# -ge "$min" ] || fail "$cpuid: perf lists only $# metrics"
}

skx=GenuineIntel-6-55-4
names=$(PERF_CPUID=$skx "$PERF" list --raw-dump metrics 2>/dev/null)
[ "$(echo "$names" | wc -w)" -gt 100 ] || skip "perf has no skylakex table"
chosen=" IPC CPI FB_HPKI Page_Walks_Utilization tma_icache_misses DRAM_BW_Use tma_frontend_bound
tma_bad_speculation tma_backend_bound tma_retiring tma_fetch_latency tma_fetch_bandwidth
tma_branch_mispredicts tma_machine_clears tma_memory_bound tma_core_bound tma_heavy_operations
tma_light_operations "
for name in $chosen; do
	[[ " $names " == *" $name "* ]] || fail "perf's skylakex table has no $name"
done
selected=()
i=0
for name in $names; do
	if [[ " ${chosen//$'\n'/ } " == *" $name "* ]] || [ $((i % 8)) -eq 0 ] ||
	   [ -n "${METRIC_EXPR_ALL:-}" ]; then
		selected+=("$name")
	fi
	i=$((i + 1))
done
model $skx intel 40 "${selected[@]}"

zen=AuthenticAMD-25-11-1
# shellcheck disable=SC2046 # one word per metric name
model $zen amd 10 $(PERF_CPUID=$zen "$PERF" list --raw-dump metrics 2>/dev/null)

echo "$compared metric event orders equal to perf's, $valued values (the others perf left empty)"
[ ${#multi[@]} -eq 0 ] || echo "not one line in perf, left out: ${multi[*]}"
[ ${#failed[@]} -eq 0 ] || fail "${#failed[@]} differ: ${failed[*]}"
[ $valued -ge 40 ] || fail "only $valued metric values compared"
