#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf stat -b on any kernel: a target program run exactly N times by BPF_PROG_TEST_RUN while
# bperf counts it gives exactly N in bpf-prog-ID-runs, from the profiler with trampolines or from
# kernel BPF statistics without (then with the one-line refusal, bpf-prog-ID-run-time and the
# events <not supported>); perf's header, -x and -j shapes, -I, --timeout, SIGINT, the overrides
# of -C/-p/--per-thread; one clear line and the right exit status for each error (no program with
# this id, 0 or garbage in the list, no BTF, no privileges). After each case no program of
# bperf's is loaded and kernel.bpf_stats_enabled is as it was.
. "$(dirname "$0")/../lib.sh"
require_root
tmp=$(mktemp -d)
. "$(dirname "$0")/../bpf_prog_lib.sh"
trap 'unload_targets; rm -rf "$tmp"' EXIT

N=1000
stats_before=$(sysctl -n kernel.bpf_stats_enabled)

# after_case WHAT: nothing of bperf's is left, BPF statistics are back as they were
after_case() {
	assert_no_profiler "$1"
	assert_eq "$stats_before" "$(sysctl -n kernel.bpf_stats_enabled)" \
		"$1: kernel.bpf_stats_enabled afterwards"
}

load_targets
id=${TARGET_IDS[0]}
runs=bpf-prog-$id-runs

# 1. CSV: exact runs; the mode decides what else is printed
"$BPERF" stat -b "$id" -e cpu-clock -x, -- "$RUNNER" run "$id" "$N" >"$tmp/out" 2>"$tmp/csv" ||
	fail "-x: exit $?: $(cat "$tmp/csv")"
cat "$tmp/csv"
assert_eq "$N" "$(csv_value "$tmp/csv" "$runs")" "-x: $runs"
if grep -q "$REFUSAL" "$tmp/csv"; then
	mode=fallback
	assert_eq 1 "$(grep -c "$REFUSAL" "$tmp/csv")" "-x: refusal lines"
	grep -q "^<not supported>,msec,cpu-clock," "$tmp/csv" ||
		fail "-x: cpu-clock is not <not supported> without trampolines"
	run_time=$(csv_value "$tmp/csv" "bpf-prog-$id-run-time")
	if [ -z "$run_time" ] || ! awk -v t="$run_time" 'BEGIN { exit !(t > 0) }'; then
		fail "-x: bpf-prog-$id-run-time is '$run_time', expected > 0 msec"
	fi
	grep -q "^$N,,$runs,[0-9]*,100.00,[0-9.]*,bpf-prog-$id-run-time ns/run$" "$tmp/csv" ||
		fail "-x: the runs line has no run time per run"
else
	mode=trampolines
	grep -q "bpf-prog-$id-run-time" "$tmp/csv" && fail "-x: run time printed with trampolines"
	grep -q "^$N,,$runs,[0-9]*,100.00,[0-9.]*,cpu-clock ns/run$" "$tmp/csv" ||
		fail "-x: the runs line has no cpu-clock per run"
fi
echo "mode: $mode"
after_case "-x"
# libbpf's own messages: never without -v (stderr carries perf's output); with -v, the refused
# fexit load is shown as libbpf says it
grep -q '^libbpf: ' "$tmp/csv" && fail "-x: libbpf messages without -v: $(cat "$tmp/csv")"
if [ "$mode" = fallback ]; then
	"$BPERF" stat -v -b "$id" -e cpu-clock -x, -- "$RUNNER" run "$id" 10 >/dev/null \
		2>"$tmp/verbose" || fail "-v: exit $?"
	grep -q '^libbpf: .*bperf_on_exit' "$tmp/verbose" ||
		fail "-v: libbpf's message on the refused fexit load is not shown"
	after_case "-v"
fi

# 2. std: perf's header, the runs line
"$BPERF" stat -b "$id" -e cpu-clock -- "$RUNNER" run "$id" "$N" >/dev/null 2>"$tmp/std" ||
	fail "std: exit $?"
grep -q "^ Performance counter stats for 'BPF program(s) $id':$" "$tmp/std" ||
	fail "std: no perf header: $(cat "$tmp/std")"
grep -E -q "^ +$N +$runs +# +[0-9.]+ (cpu-clock|bpf-prog-$id-run-time) ns/run" "$tmp/std" ||
	fail "std: no runs line: $(cat "$tmp/std")"
after_case "std"

# 3. JSON: one object a line, the runs value exact
"$BPERF" stat -b "$id" -e cpu-clock -j -- "$RUNNER" run "$id" "$N" >/dev/null 2>"$tmp/json" ||
	fail "-j: exit $?"
grep -v "$REFUSAL" "$tmp/json" | jq -e . >/dev/null 2>&1 || fail "-j: not JSON: $(cat "$tmp/json")"
got=$(grep -v "$REFUSAL" "$tmp/json" | jq -r "select(.event == \"$runs\") | .\"counter-value\"")
assert_eq "$N.000000" "$got" "-j: $runs"
after_case "-j"

# 4. -I: the intervals add up to N
"$BPERF" stat -b "$id" -e cpu-clock -I 100 -x, -- \
	sh -c "sleep 0.25; '$RUNNER' run $id $N >/dev/null; sleep 0.25" 2>"$tmp/intervals" ||
	fail "-I: exit $?"
sum=$(awk -F, -v ev="$runs" '$4 == ev { s += $2 } END { print s + 0 }' "$tmp/intervals")
assert_eq "$N" "$sum" "-I: runs summed over the intervals"
after_case "-I"

# 5. --timeout without a workload: counts whatever ran meanwhile (nothing)
"$BPERF" stat -b "$id" -e cpu-clock --timeout 200 -x, 2>"$tmp/timeout" || fail "--timeout: exit $?"
assert_eq 0 "$(csv_value "$tmp/timeout" "$runs")" "--timeout: $runs"
after_case "--timeout"

# 6. SIGINT ends a session without a workload: counts printed, death by SIGINT
setsid "$BPERF" stat -b "$id" -e cpu-clock -x, 2>"$tmp/sigint" &
pid=$!
sleep 0.5
"$RUNNER" run "$id" "$N" >/dev/null || fail "SIGINT: the test run failed"
kill -INT "$pid"
wait "$pid"
assert_eq 130 "$?" "SIGINT: exit status"
assert_eq "$N" "$(csv_value "$tmp/sigint" "$runs")" "SIGINT: $runs"
after_case "SIGINT"

# 7. -b overrides -C, -p and --per-thread, with perf's warnings, and still counts
"$BPERF" stat -b "$id" -C 0 -p 1 --per-thread -e cpu-clock -x, -- "$RUNNER" run "$id" "$N" \
	>/dev/null 2>"$tmp/override" || fail "overrides: exit $?"
for what in CPU PID/TID THREAD; do
	grep -q "^BPF switch overriding $what$" "$tmp/override" ||
		fail "overrides: no 'BPF switch overriding $what'"
done
assert_eq "$N" "$(csv_value "$tmp/override" "$runs")" "overrides: $runs"
after_case "overrides"

# 8. errors: one line each, perf's exit statuses
# expect_error WHAT RC PATTERN ARGS...: bperf stat ARGS fails with RC and one line matching
expect_error() {
	local what=$1 rc=$2 pattern=$3 got

	shift 3
	"$@" >/dev/null 2>"$tmp/err"
	got=$?
	assert_eq "$rc" "$got" "$what: exit status"
	assert_eq 1 "$(wc -l <"$tmp/err")" "$what: lines on stderr ($(cat "$tmp/err"))"
	grep -q "$pattern" "$tmp/err" || fail "$what: expected '$pattern', got '$(cat "$tmp/err")'"
	after_case "$what"
}
for list in 0 abc "$id," ",$id" "$id,,$id" "-1" "4294967295" "$id,x"; do
	expect_error "-b '$list'" 129 "^Failed to parse bpf prog ids $list$" \
		"$BPERF" stat -b "$list" true
done
# the largest id that parses: no program has it (ids count up from 1)
expect_error "no such program" 255 \
	"^Failed to open fd for bpf prog 4294967294: no BPF program has this id$" \
	"$BPERF" stat -b 4294967294 true
expect_error "one id of two missing" 255 "^Failed to open fd for bpf prog 4294967294: " \
	"$BPERF" stat -b "$id,4294967294" true
# as nobody, where the guest's file modes let nobody run bperf at all (a parse error says so)
as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
nobody_rc=127
if command -v setpriv >/dev/null 2>&1; then
	"${as_nobody[@]}" "$BPERF" stat -b 0 true >/dev/null 2>&1
	nobody_rc=$?
fi
if [ "$nobody_rc" -ne 129 ]; then
	echo "no privileges: not checked, nobody cannot run $BPERF here"
else
	expect_error "no privileges" 255 "^Counting BPF programs (-b) needs root, or \
CAP_SYS_ADMIN: missing CAP_SYS_ADMIN$" "${as_nobody[@]}" "$BPERF" stat -b "$id" true
fi
unload_targets
load_targets --no-btf
expect_error "no BTF" 255 "^bpf prog ${TARGET_IDS[0]} has no BTF function info: " \
	"$BPERF" stat -b "${TARGET_IDS[0]}" true
unload_targets
assert_no_bpf_prog_left "the end"
echo "ok ($mode)"
