#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The order of a metric's events as perf 6.1 on this machine writes them, for the metrics of two
# CPU models' tables (skylakex, PERF_CPUID=GenuineIntel-6-55-4, and Zen 3/4's amdzen3, whose
# metrics use d_ratio), without and (for the metrics whose #core_wide makes -a matter) with -a:
# perf -v prints each metric's expression and those it
# refers to ("metric expr EXPR for NAME") and the events it will open ("Parsing metric events
# '{A/metric-id=A/,...}:W'"). bperf's expression parser, id set and literals
# (test_metric_expr ids) must give the same ids in the same order from the same expressions.
# The order comes from perf's hash map, #SMT_on and #core_wide choose branches: any slip shows.
# By default skylakex's metrics of design 17's cases (references, literals, uncore and escaped
# ids, TopdownL1 and TopdownL2) and every 5th other one, and amdzen3's 13 (about 25 s);
# METRIC_IDS_ALL=1: all 218 of skylakex (about 80 s on a loaded machine).
# Runs in a private mount namespace with a fake `cpu` PMU (so that perf takes the table's
# events) and nmi_watchdog read as 0 (so that no metric is split out of its group).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
TOOL=$REPO_TOP/.output/tests/test_metric_expr
[ -x "$TOOL" ] || fail "unit tests not built: run make tests"
unshare -m true 2>/dev/null || skip "needs unshare -m"
if [ -z "${BPERF_METRIC_IDS_NS:-}" ]; then
	BPERF_METRIC_IDS_NS=1 exec unshare -m bash "$0" "$@"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

devices=/sys/bus/event_source/devices
fake=$tmp/devices
mkdir "$fake"
for pmu in "$devices"/*; do
	ln -s "$(readlink -f "$pmu")" "$fake/${pmu##*/}"
done
cpu=$fake/cpu
rm -f "$cpu"
mkdir -p "$cpu/format" "$cpu/events"
# PERF_TYPE_RAW: opens fail as "not supported", which does not matter here
echo 4 >"$cpu/type"
mount --bind "$fake" "$devices" || skip "cannot bind a fake PMU directory"
echo 0 >"$tmp/nmi_watchdog"
watchdog=/proc/sys/kernel/nmi_watchdog
[ -e $watchdog ] && { mount --bind "$tmp/nmi_watchdog" $watchdog || skip "cannot bind $watchdog"; }

# cpu_format intel|amd: the fake cpu PMU's format terms, as the kernel's for that vendor
cpu_format() {
	rm -f "$cpu"/format/*
	while read -r term bits; do
		echo "$bits" >"$cpu/format/$term"
	done <<'EOT'
umask config:8-15
edge config:18
inv config:23
cmask config:24-31
EOT
	if [ "$1" = intel ]; then
		echo config:0-7 >"$cpu/format/event"
		echo config:21 >"$cpu/format/any"
	else
		echo config:0-7,32-35 >"$cpu/format/event"
	fi
}

# compare NAME [-a]: perf's event order for metric NAME against bperf's from the same defs.
# Returns 2 when perf does not give one metric's events on one line (a name that is also a
# group), 3 when one of its expressions uses #core_wide.
compare() {
	local name=$1 out=$tmp/perf.out

	shift
	"$PERF" stat -v "$@" -M "$name" true >"$out" 2>&1
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
	grep -q '#core_wide' "$tmp/defs" && return 3
	return 0
}

compared=0
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
		0) compared=$((compared + 1)) ;;
		2) multi+=("$name") ;;
		3) compared=$((compared + 1)); core_wide+=("$name") ;;
		*) failed+=("$cpuid $name") ;;
		esac
	done
	# -a makes #core_wide true here (no SMT) or not (SMT and a partial -C): other events
	for name in "${core_wide[@]}"; do
		compare "$name" -a
		rc=$?
		if [ $rc -eq 0 ] || [ $rc -eq 3 ]; then
			compared=$((compared + 1))
		else
			failed+=("$cpuid $name -a")
		fi
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
	if [[ " ${chosen//$'\n'/ } " == *" $name "* ]] || [ $((i % 5)) -eq 0 ] ||
	   [ -n "${METRIC_IDS_ALL:-}" ]; then
		selected+=("$name")
	fi
	i=$((i + 1))
done
model $skx intel 50 "${selected[@]}"

zen=AuthenticAMD-25-11-1
# shellcheck disable=SC2046 # one word per metric name
model $zen amd 10 $(PERF_CPUID=$zen "$PERF" list --raw-dump metrics 2>/dev/null)

echo "$compared metric event orders equal to perf's"
[ ${#multi[@]} -eq 0 ] || echo "not one line in perf, left out: ${multi[*]}"
[ ${#failed[@]} -eq 0 ] || fail "${#failed[@]} differ: ${failed[*]}"
