#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Which events -M counts, as perf 6.1 plans them: for every metric group of five CPU models'
# tables (PERF_CPUID skylakex, cascadelakex, sapphirerapids, Zen 3/4, Zen 1), perf -v's
# "Parsing metric events '...'" lines (the event strings, with their metric-id terms, in
# perf's hash order, grouped {...}:W or not) and "Events in 'A' fully contained within 'B'"
# lines, against bperf's -v lines of the same `bperf stat -M` (metric_plan.c's plan, the
# strings metric_set.c parses). Without options, and for a sample of the groups with -a
# (#core_wide changes the events), --metric-no-group, --metric-no-merge, the NMI watchdog on (perf splits
# NO_NMI_WATCHDOG metrics into one ungrouped list) and a :u modifier; unknown names give
# perf's error. perf resolves the events on fake PMUs of the msr PMU's type (as
# metric_expr_vs_perf.sh); where perf cannot parse a string it stops there, so bperf's lines
# must then start with perf's. Expectations all come from perf at run time.
# By default every 3rd group of the big tables and every 12th with the options (about 2 minutes
# on a quiet machine); JSON_METRICS_ALL=1 runs every group with every option (over 5 minutes:
# raise TEST_TIMEOUT).
# METRIC_EXPR_ALL=1: all 218 of skylakex (about 2 minutes on a loaded machine).
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

# cpu_format intel|amd: the fake cpu PMU's format terms, the kernel's moved to config1/config2
cpu_format() {
	# shellcheck disable=SC2086
	fake_pmu_metric_cpu "$fake" "$msr_type" "$1" $topdown
}
# sapphirerapids' metrics use the cpu PMU's sysfs topdown events
topdown=$(fake_pmus_topdown_events)

# the plan's lines at -v, and the errors and hints of -M
lines="^Parsing metric events |^Events in '|^Cannot find metric|^Splitting|^Try disabling"
lines+="|^    (echo|perf stat)"
# check ID OPTS METRICS [NMI_WATCHDOG]: perf's plan lines (or error) against bperf's
failed=() checked=0 prefix=0
check() {
	local id=$1 popts=$2 metrics=$3 wd=${4:-0}

	echo "$wd" >"$tmp/nmi_watchdog"
	# shellcheck disable=SC2086
	PERF_CPUID=$id "$PERF" stat -v $popts -M "$metrics" true 2>&1 >/dev/null |
		grep -E "$lines" >"$tmp/p"
	# shellcheck disable=SC2086
	PERF_CPUID=$id "$BPERF" stat -v $popts -M "$metrics" true 2>&1 >/dev/null |
		grep -E "$lines" >"$tmp/b"
	checked=$((checked + 1))
	if ! cmp -s "$tmp/p" "$tmp/b"; then
		# perf stops at a string it cannot parse (a PMU the fake set lacks)
		# (it then counts its default events instead)
		if PERF_CPUID=$id "$PERF" stat $popts -M "$metrics" true 2>&1 >/dev/null |
			grep -Eq "event syntax error| context-switches " &&
			[ "$(head -c "$(wc -c <"$tmp/p")" "$tmp/b")" = "$(cat "$tmp/p")" ]; then
			prefix=$((prefix + 1))
			return 0
		fi
		echo "== $id $popts -M $metrics" >&2
		diff "$tmp/p" "$tmp/b" | head -6 >&2
		failed+=("$id:$popts:$metrics")
	fi
}

models="${JSON_METRICS_MODELS:-GenuineIntel-6-55-4:intel GenuineIntel-6-55-7:intel GenuineIntel-6-8F-8:intel
AuthenticAMD-25-11-1:amd AuthenticAMD-23-1-2:amd}"
for model in $models; do
	id=${model%%:*}
	cpu_format "${model#*:}"
	mapfile -t groups < <(PERF_CPUID=$id "$PERF" list --raw-dump metricgroups | tr ' ' '\n' |
		grep .)
	[ ${#groups[@]} -gt 0 ] || fail "perf lists no metric group for $id"
	i=0
	for g in "${groups[@]}"; do
		# by default every 3rd group, and every 12th with the options (a few minutes)
		all=${JSON_METRICS_ALL:-}
		[ -n "$all" ] || [ $((i % 3)) = 0 ] || [ ${#groups[@]} -lt 10 ] && check "$id" "" "$g"
		if [ -n "$all" ] || [ $((i % 12)) = 0 ]; then
			check "$id" -a "$g"
			check "$id" --metric-no-group "$g"
			check "$id" --metric-no-merge "$g"
			check "$id" "" "$g" 1
			check "$id" "" "$g:u"
		fi
		i=$((i + 1))
	done
	check "$id" "" "${groups[0]},${groups[1]},${groups[0]}"
	check "$id" "" "all"
	check "$id" "" "${groups[1]},no_such_metric"
	echo "$id: ${#groups[@]} groups"
done
echo "$checked plans compared ($prefix up to a string perf could not parse)"
[ ${#failed[@]} -eq 0 ] || fail "${#failed[@]} differ from perf: ${failed[*]}"
