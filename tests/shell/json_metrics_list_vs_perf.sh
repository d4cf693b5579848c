#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `bperf list` of perf 6.1's metrics and metric groups, byte for byte as /usr/bin/perf prints
# them, for CPU models chosen with PERF_CPUID (both tools read the same variable): `list
# metrics`, `list metricgroups`, their `--raw-dump` forms, and the "Metric Groups:" part of
# `list` and `list --raw-dump`. No PMU is needed: perf lists the model's table whatever the
# machine has. Also the machine's own id (on a CPU without a table both print nothing, bperf
# then lists its generic metrics: not compared) and perf's test table (testcpu).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "needs $PERF"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

models="GenuineIntel-6-55-4 GenuineIntel-6-55-7 GenuineIntel-6-8F-8 GenuineIntel-6-97-2
AuthenticAMD-25-11-1 AuthenticAMD-23-1-2 testcpu"
failed=()
# the part of `list` from the metric groups on: the events before it are piece 2's
from_groups() {
	sed -n '/^Metric Groups:$/,$p'
}
for id in $models; do
	n=$(PERF_CPUID=$id "$PERF" list --raw-dump metrics 2>/dev/null | wc -w)
	g=$(PERF_CPUID=$id "$PERF" list --raw-dump metricgroups 2>/dev/null | wc -w)
	[ "$n" -gt 0 ] && [ "$g" -gt 0 ] || { failed+=("$id:perf-lists-nothing"); continue; }
	for args in metrics metricgroups "--raw-dump metrics" "--raw-dump metricgroups"; do
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$PERF" list $args >"$tmp/p" 2>&1
		# shellcheck disable=SC2086
		PERF_CPUID=$id "$BPERF" list $args >"$tmp/b" 2>&1
		cmp -s "$tmp/p" "$tmp/b" || {
			diff "$tmp/p" "$tmp/b" | head -5 >&2
			failed+=("$id:$args")
		}
	done
	PERF_CPUID=$id "$PERF" list 2>&1 | from_groups >"$tmp/p"
	PERF_CPUID=$id "$BPERF" list 2>&1 | from_groups >"$tmp/b"
	[ -s "$tmp/p" ] && cmp -s "$tmp/p" "$tmp/b" || failed+=("$id:list")
	# --raw-dump: the groups and their metrics end the output, after the tracepoints
	PERF_CPUID=$id "$PERF" list --raw-dump metricgroups >"$tmp/g"
	PERF_CPUID=$id "$PERF" list --raw-dump 2>&1 | tail -c "$(($(wc -c <"$tmp/g") + 1))" >"$tmp/p"
	PERF_CPUID=$id "$BPERF" list --raw-dump 2>&1 | tail -c "$(wc -c <"$tmp/p")" >"$tmp/b"
	cmp -s "$tmp/p" "$tmp/b" || failed+=("$id:raw-dump")
	echo "$id: $n metrics, $g groups"
done
# a -M item's group filter of `list GROUP:...`: perf lists the groups holding the part before ':'
for filter in tma_L1: Branch: cache:; do
	PERF_CPUID=GenuineIntel-6-55-4 "$PERF" list "$filter" 2>&1 | from_groups >"$tmp/p"
	PERF_CPUID=GenuineIntel-6-55-4 "$BPERF" list "$filter" 2>&1 | from_groups >"$tmp/b"
	cmp -s "$tmp/p" "$tmp/b" || failed+=("filter:$filter")
done
[ ${#failed[@]} -eq 0 ] || fail "differs from perf: ${failed[*]}"
