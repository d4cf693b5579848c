#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `bperf stat -M` end to end, side by side with perf 6.1, for the table metrics whose events are
# all PMU@terms@ ids (msr@tsc@, cstate_core@c3\-residency@, cha_0@event\=0x0@, ...): those open
# without the table's event aliases. In the fake-PMU namespace of json_metrics_vs_perf.sh, for
# skylakex (PERF_CPUID=GenuineIntel-6-55-4) with -a: the output with numbers masked (event
# lines, their order, names, the metric on its first event, perf's "grouped events cpus do not
# match" warning) in the human, -x, and -j forms, and each metric's value recomputed from the
# counts bperf printed (test_metric_expr value, as metric_expr_vs_perf.sh does). Then metrics
# over the table's events (IPC, tma_backend_bound, TopdownL1: aliases of the fake cpu PMU) in
# those forms and per CPU and per interval in CSV (a metric on a line of its own).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
. "$(dirname "$0")/../fake_pmus.sh"
fake_pmus_enter_ns "$0" "$@"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

msr_type=$(fake_pmus_msr_type) || skip "needs the msr PMU"
fake=$tmp/devices
fake_pmus_metric_setup "$tmp" "$msr_type"

# cpu_format intel|amd [cpus=LIST]: the fake cpu PMU's format terms, the kernel's moved to
# config1/config2 (and a cpus file)
cpu_format() {
	# shellcheck disable=SC2086
	fake_pmu_metric_cpu "$fake" "$msr_type" "$1" $topdown "${@:2}"
}
# sapphirerapids' metrics use the cpu PMU's sysfs topdown events
topdown=$(fake_pmus_topdown_events)

PLAN=$REPO_TOP/.output/tests/test_metric_plan
EXPR=$REPO_TOP/.output/tests/test_metric_expr
[ -x "$PLAN" ] && [ -x "$EXPR" ] || fail "unit tests not built: run make tests"
id=GenuineIntel-6-55-4
cpu_format intel
failed=() names=()
# the metrics whose strings hold only pmu/terms,metric-id=.../ events and tool events: an alias
# event (NAME/metric-id=.../) needs the table's events
for m in $(PERF_CPUID=$id "$PERF" list --raw-dump metrics); do
	PERF_CPUID=$id "$PLAN" plan -a "$m" >"$tmp/plan" 2>&1 || continue
	grep -q "^Parsing metric events" "$tmp/plan" && ! grep -q "/metric-id=" "$tmp/plan" &&
		! grep -Eq "/[^=,/]*\.[^=,/]*," "$tmp/plan" &&
		names+=("$m")
done
[ ${#names[@]} -gt 0 ] || fail "no $id metric without table events"
mask() {
	sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g' | grep -v '^ *$\|seconds time elapsed\|seconds user\|seconds sys'
}
for m in "${names[@]}"; do
	for fmt in "" "-x," "-j"; do
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$PERF" stat $fmt -a -M "$m" sleep 0.05 2>&1 >/dev/null | mask >"$tmp/p"
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$BPERF" stat $fmt -a -M "$m" sleep 0.05 2>&1 >/dev/null | mask >"$tmp/b"
		cmp -s "$tmp/p" "$tmp/b" || {
			echo "== -M $m $fmt" >&2
			diff "$tmp/p" "$tmp/b" | head -6 >&2
			failed+=("$m:$fmt")
		}
	done
	# the value: perf's definitions, bperf's counts, bperf's expression code: bperf's number
	PERF_CPUID=$id "$PERF" stat -v -a -M "$m" true 2>&1 >/dev/null |
		sed -n 's/^metric expr \(.*\) for \([^ ]*\)$/\2\t\1/p' >"$tmp/defs"
	PERF_CPUID=$id "$BPERF" stat -x, -a -M "$m" sleep 0.05 2>"$tmp/csv" >/dev/null
	awk -F, '/^[0-9]/ { n = $3; for (i = 4; i <= NF - 4; i++) n = n "," $i; print n "\t" $1 }' \
		"$tmp/csv" >"$tmp/counts"
	line=$(awk -F, '/^[0-9]/ && NF > 2 && $NF != ""' "$tmp/csv" | head -1)
	unit=${line##*,} want=$(echo "$line" | awk -F, 'NF > 1 { print $(NF - 1) }')
	got=$("$EXPR" value -a -c "$tmp/counts" "$m" <"$tmp/defs") || got=none
	# neither has a value (an event without a count, a division by zero): the layout above
	# already showed perf printing none either
	if [ "$got" = none ] && ! grep -q "$m" <<<"$line"; then
		continue
	fi
	fmt=%.2f scale=1
	[ "$unit" = "$m" ] || fmt=%.1f
	[ "${unit%%  *}" = % ] && scale=100
	got=$(awk -v v="$got" -v s="$scale" -v f="$fmt" 'BEGIN { printf f, v * s }')
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		{ echo "$m: bperf printed '$want' ($unit), its counts give $got" >&2; failed+=("$m:value"); }
done
# metrics over the table's events (aliases of the fake cpu PMU), one of them with a metric on
# a line of its own (TopdownL1: tma_backend_bound), also per CPU and per interval in CSV
alias_metrics=(IPC tma_backend_bound TopdownL1)
for m in "${alias_metrics[@]}"; do
	for fmt in "" "-x," "-j" "-x, -A" "-x, -I 40"; do
		# the intervals' lines once each: their number depends on timing
		uniq=cat
		[ "${fmt#*-I}" = "$fmt" ] || uniq="sort -u"
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$PERF" stat $fmt -a -M "$m" sleep 0.1 2>&1 >/dev/null | mask |
			$uniq >"$tmp/p"
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$BPERF" stat $fmt -a -M "$m" sleep 0.1 2>&1 >/dev/null | mask |
			$uniq >"$tmp/b"
		grep -Eq 'INST_RETIRED\.ANY|UOPS_ISSUED\.ANY' "$tmp/p" ||
			fail "perf counts no table event for -M $m $fmt"
		cmp -s "$tmp/p" "$tmp/b" || {
			echo "== -M $m $fmt" >&2
			diff "$tmp/p" "$tmp/b" | head -6 >&2
			failed+=("$m:$fmt")
		}
	done
done
echo "${#names[@]} metrics compared: ${names[*]}; with table events: ${alias_metrics[*]}"

# Every metric of each model, alone: perf's human output with numbers masked (the events in
# perf's order and names, the metric's line, its unit and ScaleUnit, <not supported> where the
# fake PMU refuses an encoding, perf's warnings, perf's exit on a group leader it cannot open).
# By default every 8th metric of each model, in the setups below in turn.
# source_count() and the sum of an id's PMU instances (perf's metric_total): with a second CHA,
# cascadelakex's llc_data_read_demand_plus_prefetch_miss_latency divides UNC_CHA_CLOCKTICKS by
# source_count(UNC_CHA_CLOCKTICKS), merged, --no-merge and -A: the value perf prints (0.5 ns
# here; bperf printed 0.2 when source_count was 1, and 1.0 under --no-merge from one instance).
fake_pmu_spec "$fake" uncore_cha_1 "$msr_type" cpumask=0 event=config1:0-7 umask=config1:8-15 \
	thresh=config1:24-31 || fail "cannot add a second CHA"
source_count_value() {
	local m=llc_data_read_demand_plus_prefetch_miss_latency p b

	# shellcheck disable=SC2086
	p=$(PERF_CPUID=GenuineIntel-6-55-7 "$PERF" stat -x, -a $1 -M $m sleep 0.1 2>&1 >/dev/null |
		awk -F, -v m=$m 'index($NF, m) { print $(NF - 1) }')
	# shellcheck disable=SC2086
	b=$(PERF_CPUID=GenuineIntel-6-55-7 "$BPERF" stat -x, -a $1 -M $m sleep 0.1 2>&1 >/dev/null |
		awk -F, -v m=$m 'index($NF, m) { print $(NF - 1) }')
	[ -n "$p" ] || fail "perf prints no $m ($1)"
	assert_eq "$p" "$b" "$m ${1:-merged}: bperf's value"
	echo "$m ${1:-merged}: $b, as perf"
}
for opts in "" --no-merge -A "-A --no-merge"; do
	retry3 source_count_value "$opts" || failed+=("source_count:$opts")
done
rm -rf "$fake/uncore_cha_1"

# mask_values: mask, and what follows from the values rather than the format: a metric's sign
# (a difference of counts read at different times) and a rate's K/M prefix
mask_values() {
	mask | sed -E 's/-N/N/g; s/ [KMG]\/sec/ \/sec/g'
}
models="${JSON_METRICS_MODELS:-GenuineIntel-6-55-4:intel GenuineIntel-6-8C-1:intel
GenuineIntel-6-97-2:intel AuthenticAMD-25-11-1:amd AuthenticAMD-25-61-1:amd AuthenticAMD-23-1-2:amd}"
# Each metric in one of four setups, in turn: -a or the workload alone, and a core PMU without or
# with a cpus file listing this machine's online CPUs (as hybrid and arm64 core PMUs have). What
# the tools then do depends on the machine: SMT (#SMT_on: SMT_2T_Utilization comes down to
# duration_time alone without it, and perf counts the workload), the online CPUs, the msr PMU.
# JSON_METRICS_STAT_ALL=1 runs every metric in every setup (about 20 minutes).
online=$(cat /sys/devices/system/cpu/online)
setups=("-a:" "-a:cpus=$online" ":cpus=$online" ":")
step=8
[ -n "${JSON_METRICS_STAT_ALL:-}" ] && step=1
total=0
# end_to_end ID M TARGET CPUS: perf's and bperf's output of -M M, masked, compared
end_to_end() {
	local -a target=()

	[ -n "$3" ] && target=("$3")
	# shellcheck disable=SC2086
	cpu_format "$kind" $4
	# A real uncore PMU refuses a task's events (EINVAL); the fakes, of msr's type, take them
	# (and perf 6.1 then opens a group's leader alone): per task they are left out, as a
	# machine has no uncore events to count for a task.
	rm -rf "${fake:?}"/uncore_* "$fake"/cstate_*
	[ -n "$3" ] && fake_pmus_metric_uncore "$fake" "$msr_type"
	PERF_CPUID=$1 "$PERF" stat "${target[@]}" -M "$2" sleep 0.02 2>&1 >/dev/null |
		mask_values >"$tmp/p"
	PERF_CPUID=$1 "$BPERF" stat "${target[@]}" -M "$2" sleep 0.02 2>&1 >/dev/null |
		mask_values >"$tmp/b"
	n=$((n + 1))
	cmp -s "$tmp/p" "$tmp/b" || {
		echo "== $1 -M $2 ${3:-(the workload)} ${4:-(no cpus file)}" >&2
		diff "$tmp/p" "$tmp/b" | head -6 >&2
		failed+=("$1:$2:${3:-task}:${4:+cpus}")
	}
}
for model in $models; do
	id=${model%%:*} kind=${model#*:}
	mapfile -t metrics < <(PERF_CPUID=$id "$PERF" list --raw-dump metrics | tr ' ' '\n' | grep .)
	[ ${#metrics[@]} -gt 0 ] || fail "perf lists no metric for $id"
	n=0
	for ((i = 0; i < ${#metrics[@]}; i += step)); do
		if [ "$step" = 1 ]; then
			for setup in "${setups[@]}"; do
				end_to_end "$id" "${metrics[i]}" "${setup%%:*}" "${setup#*:}"
			done
		else
			setup=${setups[$(((i / step) % ${#setups[@]}))]}
			end_to_end "$id" "${metrics[i]}" "${setup%%:*}" "${setup#*:}"
		fi
	done
	echo "$id: $n runs of ${#metrics[@]} metrics end to end"
	total=$((total + n))
done
echo "$total metric runs end to end (setups: ${setups[*]})"
[ ${#failed[@]} -eq 0 ] || fail "${#failed[@]} differ from perf: ${failed[*]}"
