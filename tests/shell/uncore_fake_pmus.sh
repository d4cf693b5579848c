#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Uncore PMUs of one kind (uncore_imc_0, uncore_imc_1) side by side with perf 6.1. In a private
# mount namespace a copy of /sys/bus/event_source/devices is bound over it, with the real PMUs
# plus two fake uncore instances that have the real msr PMU's type, an event alias
# cas_count_read (event=0: the TSC) and cpumask "0" as an uncore PMU has; perf and bperf then
# both see the same machine and count real TSC ticks. Checked: perf's output with numbers masked
# for "uncore_imc/x/", "imc/x/", the bare alias, -A, -C, CSV, JSON, --no-merge (one line per
# instance, "uncore_imc_0/x/" and "x [uncore_imc_0]"; "tsc [msr]" for a lone alias) and
# name=; and the counts: each instance opened on CPU 0 only (its cpumask; -C 1 counts on CPU 1
# instead, as perf), the merged line the sum of the instances' (twice one instance's TSC within
# 2%).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
require_root
[ -x "$PERF" ] || skip "needs $PERF"
devices=/sys/bus/event_source/devices
[ -r "$devices/msr/type" ] || skip "needs the msr PMU"
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] || skip "needs exactly CPUs 0-1 online"
. "$(dirname "$0")/../fake_pmus.sh"
fake_pmus_enter_ns "$0" "$@"
cd "$REPO_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../side_lib.sh"
SLEEP=$WORKLOADS/sleeper

fake=$tmp/devices
fake_pmus_init "$fake" || fail "cannot build the fake devices directory"
for i in 0 1; do
	u=$fake/uncore_imc_$i
	mkdir -p "$u/format" "$u/events"
	cat "$devices/msr/type" >"$u/type"
	echo "config:0-63" >"$u/format/event"
	echo "event=0x00" >"$u/events/cas_count_read"
	echo 0 >"$u/cpumask"
done
fake_pmus_mount "$fake" || skip "cannot bind a fake PMU directory"

human glob -a -e uncore_imc/cas_count_read/ -- "$SLEEP" 100
human short_glob -a -e imc/cas_count_read/ -- "$SLEEP" 100
human alias -a -e cas_count_read -- "$SLEEP" 100
human workload -e uncore_imc/cas_count_read/ -- "$SLEEP" 100
human per_cpu -A -a -e uncore_imc/cas_count_read/ -- "$SLEEP" 100
human user_cpus -A -C 1 -e uncore_imc/cas_count_read/ -- "$SLEEP" 100
human no_merge --no-merge -a -e uncore_imc/cas_count_read/,cas_count_read -- "$SLEEP" 100
human no_merge_per_cpu --no-merge -A -a -e uncore_imc/cas_count_read/ -- "$SLEEP" 100
human no_merge_lone_alias --no-merge -a -e tsc,msr/tsc/,cpu-clock -- "$SLEEP" 100
human no_merge_named --no-merge -a -e uncore_imc/cas_count_read,name=reads/ -- "$SLEEP" 100
human interval -I 50 --interval-count 2 -a -e uncore_imc/cas_count_read/
csv csv -a -e uncore_imc/cas_count_read/,cas_count_read -- "$SLEEP" 100
csv csv_no_merge --no-merge -a -e cas_count_read -- "$SLEEP" 100
json json -a -e uncore_imc/cas_count_read/ -- "$SLEEP" 100

# counts_case: CPU 0 only (CPU 1 with -C 1), and the merged line is the instances' sum
counts_case() {
	local opens merged one

	"$BPERF" stat -vv -a -e uncore_imc/cas_count_read/ -- "$SLEEP" 20 2>"$tmp/vv" >/dev/null ||
		fail "bperf stat -vv failed"
	opens=$(grep -c '^sys_perf_event_open: pid -1  cpu 0 .* = [0-9]' "$tmp/vv")
	[ "$opens" -eq 2 ] || fail "$opens opens on CPU 0, expected one per instance"
	! grep -q '^sys_perf_event_open: pid -1  cpu 1' "$tmp/vv" ||
		fail "opened on CPU 1, outside the cpumask"
	"$BPERF" stat -vv -C 1 -e uncore_imc/cas_count_read/ -- "$SLEEP" 20 2>"$tmp/vv_c1" \
		>/dev/null || fail "bperf stat -C 1 failed"
	[ "$(grep -c '^sys_perf_event_open: pid -1  cpu 1 .* = [0-9]' "$tmp/vv_c1")" -eq 2 ] ||
		fail "-C 1: not opened on CPU 1"
	"$BPERF" stat -x, -a -e uncore_imc/cas_count_read/,msr/tsc/ -A -- "$SLEEP" 200 \
		2>"$tmp/counts" || fail "bperf stat failed"
	merged=$(awk -F, '$1 == "CPU0" && $4 == "uncore_imc/cas_count_read/" { print $2 }' \
		"$tmp/counts")
	one=$(awk -F, '$1 == "CPU0" && $4 == "msr/tsc/" { print $2 }' "$tmp/counts")
	[ -n "$merged" ] && [ -n "$one" ] || fail "no counts: $(cat "$tmp/counts")"
	awk -v m="$merged" -v o="$one" 'BEGIN { r = m / (2 * o); exit !(r > 0.98 && r < 1.02) }' ||
		fail "merged $merged, expected twice CPU 0's TSC $one"
	echo "merged $merged = 2 x $one within 2%; opened on the cpumask's CPU (or -C's)"
}
check counts counts_case

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ ${#failed_cases[@]} -eq 0 ]
