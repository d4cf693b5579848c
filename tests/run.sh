#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs bperf's tests: every unit test binary (.output/tests/test_*, built by `make tests`) and
# every tests/shell/*.sh, each under a timeout, and prints one line per test:
#	PASS name (S s) | FAIL name (+ the last lines of its output) | SKIP name (reason)
# (S: the seconds it took, to see where make check's time goes)
# then "N passed, N failed, N skipped"; exits 1 if anything failed.
#
#	tests/run.sh [PATTERN...]	only tests whose name (unit/test_x, shell/x) contains a PATTERN
#
# Tests skip with exit 77 (a shell syntax error exits 2: a failure); the last output line is the
# reason.
# Shell tests get BPERF, PERF and WORKLOADS in the environment and run from the repo top.
# Most tests need root. TEST_TIMEOUT (seconds, default 300) bounds each test.
#
# Shell tests with a "# parallel:" header line (it says why they may) run first, RUN_JOBS
# (default: the number of CPUs) at a time: output-format comparisons with no BPF, no global
# settings and no timing, whose minutes of perf and bperf runs would otherwise be make check's
# longest stretch. Every other test runs alone, after them.
set -uo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1

export BPERF="${BPERF:-$TOP/bperf}"
export PERF="${PERF:-/usr/bin/perf}"
export WORKLOADS="${WORKLOADS:-$TOP/.output/workloads}"
patterns=("$@")
timeout_s=${TEST_TIMEOUT:-300}

# Freshly built workloads are still dirty in the page cache: a page fault that meets one of their
# pages under writeback waits and is retried, one fault more than the workload's exact count.
sync

passed=0
failed=0
skipped=0
jobs=${RUN_JOBS:-$(nproc)}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# report NAME STATUS SKIP_STATUS LOG SECONDS
report() {
	local name=$1 status=$2 skip_status=$3 log=$4 seconds=$5 reason

	if [ "$status" -eq 0 ]; then
		echo "PASS $name ($seconds s)"
		passed=$((passed + 1))
	elif [ "$status" -eq "$skip_status" ]; then
		reason=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1)
		echo "SKIP $name (${reason:-no reason given})"
		skipped=$((skipped + 1))
	else
		if [ "$status" -eq 124 ]; then
			echo "FAIL $name (timed out after ${timeout_s}s)"
		else
			echo "FAIL $name (exit $status)"
		fi
		tail -n 20 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

selected() {
	local pattern

	[ ${#patterns[@]} -eq 0 ] && return 0
	for pattern in "${patterns[@]}"; do
		[[ $1 == *"$pattern"* ]] && return 0
	done
	return 1
}

# run_shell SCRIPT: one shell test, alone, reported.
run_shell() {
	local name start

	name=shell/$(basename "$1" .sh)
	start=$SECONDS
	timeout "$timeout_s" bash "$1" >"$logs/log" 2>&1 </dev/null
	report "$name" $? 77 "$logs/log" $((SECONDS - start))
}

# reap_one: waits for one test that run_beside started and reports it (name_of and start_of are
# run_beside's, by their pids).
reap_one() {
	local pid status name

	wait -n -p pid
	status=$?
	name=${name_of[$pid]}
	report "shell/$name" "$status" 77 "$logs/$name" $((SECONDS - ${start_of[$pid]}))
	unset "name_of[$pid]" "start_of[$pid]"
}

# run_beside SCRIPT...: the tests, up to $jobs at a time, each reported as it ends.
run_beside() {
	local -A name_of=() start_of=()
	local script name

	for script in "$@"; do
		while [ ${#name_of[@]} -ge "$jobs" ]; do
			reap_one
		done
		name=$(basename "$script" .sh)
		timeout "$timeout_s" bash "$script" >"$logs/$name" 2>&1 </dev/null &
		name_of[$!]=$name
		start_of[$!]=$SECONDS
	done
	while [ ${#name_of[@]} -gt 0 ]; do
		reap_one
	done
}

for src in tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	base=$(basename "$src" .c)
	name=unit/$base
	selected "$name" || continue
	bin=.output/tests/$base
	if [ ! -x "$bin" ]; then
		echo "not built: run 'make tests'" >"$logs/log"
		report "$name" 1 77 "$logs/log" 0
		continue
	fi
	start=$SECONDS
	timeout "$timeout_s" "$bin" >"$logs/log" 2>&1
	report "$name" $? 77 "$logs/log" $((SECONDS - start))
done

beside=()
alone=()
for script in tests/shell/*.sh; do
	[ -e "$script" ] || continue
	selected "shell/$(basename "$script" .sh)" || continue
	if [ "$jobs" -gt 1 ] && grep -q '^# parallel:' "$script"; then
		beside+=("$script")
	else
		alone+=("$script")
	fi
done
run_beside "${beside[@]}"
for script in "${alone[@]}"; do
	run_shell "$script"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
