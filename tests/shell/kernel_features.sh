#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The kernel features bperf probes at start-up (src/counters/kernel_features.h), against a second
# method in the same run: the helpers against bpftool's feature probe, the exit hook against
# tracefs and the kprobe PMU. Then a leader of 8 members (the most a leader has) loads here, -v
# gives its load time and each program's verified instructions, and it counts exactly: member
# 0 as direct counting does in the same run, and page-faults = minor + major. Run on every kernel
# tools/vmtest boots (5.10 to 6.18): what a feature's absence changes is in tests/README.md's
# kernel table.
. "$(dirname "$0")/../lib.sh"

require_root
require_workloads pagetouch
mount_bpffs

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BPERF" stat -v -e page-faults:b true 2>"$tmp/v" >/dev/null ||
	fail "bperf stat -v -e page-faults:b: exit $? ($(tail -n 1 "$tmp/v"))"
grep '^bperf: kernel feature\|^bperf: exiting tasks' "$tmp/v" >"$tmp/features"
[ "$(wc -l <"$tmp/features")" -eq 10 ] ||
	fail "expected 10 feature lines, got: $(cat "$tmp/features")"
feature() {
	sed -n "s/^bperf: kernel feature $1 *\(yes\|no\|unknown\).*/\1/p" "$tmp/features"
}

# the helpers as bpftool finds them for raw_tracepoint programs
if command -v bpftool >/dev/null; then
	bpftool feature probe kernel 2>/dev/null |
		sed -n '/helpers supported for program type raw_tracepoint:/,/^$/p' >"$tmp/helpers"
	[ -s "$tmp/helpers" ] || fail "bpftool feature probe kernel: no raw_tracepoint helpers"
	for pair in bpf_get_current_task_btf:bpf_get_current_task_btf bpf_loop:bpf_loop \
		'memcg accounting:bpf_ktime_get_coarse_ns'; do
		name=${pair%%:*} helper=${pair#*:}
		want=no
		grep -qx "[[:space:]]*- $helper" "$tmp/helpers" && want=yes
		assert_eq "$want" "$(feature "$name")" "$name (bpftool: $helper $want)"
	done
	echo "helpers as bpftool probes them: $(grep -c . "$tmp/helpers") lines agree on 3"
fi

# where an exiting task stops counting: the tracepoint where its format says it is perf's exit,
# a probe where kprobes exist, else sched_process_exit
format=/sys/kernel/tracing/events/sched/sched_process_exit/format
if [ -r "$format" ] && grep -q group_dead "$format"; then
	want="sched_process_exit, right before"
elif [ -d /sys/bus/event_source/devices/kprobe ]; then
	want="a kprobe at perf_event_exit_task\|the return of taskstats_exit"
else
	want="sched_process_exit$"
fi
grep -q "^bperf: exiting tasks stop counting at \($want\)" "$tmp/features" ||
	fail "exit hook: expected '$want', got: $(grep exiting "$tmp/features")"
kprobe_pmu=no
[ -d /sys/bus/event_source/devices/kprobe ] && kprobe_pmu=yes
[ "$(feature kprobes)" = "$kprobe_pmu" ] ||
	fail "kprobes: $(feature kprobes), /sys/bus/event_source/devices/kprobe says otherwise"
echo "exit hook: $(sed -n 's/^bperf: exiting tasks stop counting at //p' "$tmp/features")"

# a leader of 8 members: loads, says what it took, counts as direct counting does
group='{page-faults,minor-faults,major-faults,context-switches,cpu-migrations,alignment-faults,'
group+='emulation-faults,cpu-clock}:b'
"$BPERF" stat -v -x, -e "$group" -e page-faults "$WORKLOADS/pagetouch" 2000 2>"$tmp/g" \
	>/dev/null || fail "8 members: exit $? ($(tail -n 1 "$tmp/g"))"
grep -q '^bperf: leader of 8 members loaded in [0-9.]* ms' "$tmp/g" ||
	fail "8 members: no load line: $(grep -m3 . "$tmp/g")"
insns=$(sed -n 's/^bperf: leader program on_switch: \([0-9]*\) insns verified/\1/p' "$tmp/g")
[ "${insns:-0}" -gt 0 ] || fail "8 members: no verified instruction count for on_switch"
csv() {
	awk -F, -v e="$1" '$3 == e { print $1; exit }' "$tmp/g"
}
# the group's page-faults, then the direct one
read -r shared direct < <(awk -F, '$3 == "page-faults" { printf "%s ", $1 }' "$tmp/g")
assert_eq "$direct" "$shared" "8 members: page-faults shared (member 0) and direct"
assert_eq "$shared" $(($(csv minor-faults) + $(csv major-faults))) "8 members: minor + major"
echo "8 members: $(sed -n 's/^bperf: leader of 8 members loaded in //p' "$tmp/g" | head -n 1)," \
	"on_switch $insns insns verified, page-faults $shared as direct"
