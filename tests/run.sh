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
test_start=$SECONDS
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# report NAME STATUS SKIP_STATUS
report() {
	local name=$1 status=$2 skip_status=$3 reason

	if [ "$status" -eq 0 ]; then
		echo "PASS $name ($((SECONDS - test_start)) s)"
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

for src in tests/unit/test_*.c; do
	[ -e "$src" ] || continue
	base=$(basename "$src" .c)
	name=unit/$base
	selected "$name" || continue
	bin=.output/tests/$base
	if [ ! -x "$bin" ]; then
		echo "not built: run 'make tests'" >"$log"
		report "$name" 1 77
		continue
	fi
	test_start=$SECONDS
	timeout "$timeout_s" "$bin" >"$log" 2>&1
	report "$name" $? 77
done

for script in tests/shell/*.sh; do
	[ -e "$script" ] || continue
	name=shell/$(basename "$script" .sh)
	selected "$name" || continue
	test_start=$SECONDS
	timeout "$timeout_s" bash "$script" >"$log" 2>&1 </dev/null
	report "$name" $? 77
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
