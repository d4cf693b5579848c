#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf stat -v names the CPU id as perf 6.1 does (util/pmu.c perf_pmu__getcpuid): its first line
# is perf's `Using CPUID <id>`, the id read from the CPU or taken from $PERF_CPUID, whether or
# not the id names a table perf has (skylakex, Zen 4, perf's test table, an arm64 MIDR, an id
# without stepping). Without -v the line is not printed, and an option error found before the
# tables are read leaves it out, as in perf.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

[ -x "$PERF" ] || skip "needs $PERF"
"$PERF" stat -v -e cs true 2>&1 | grep -q '^Using CPUID ' ||
	skip "$PERF stat -v does not print Using CPUID here"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# first_line TOOL ARGS...: the first line of `TOOL stat ARGS` on stdout and stderr
first_line() {
	local tool=$1

	shift
	"$tool" stat "$@" >"$tmp/out" 2>&1
	head -n 1 "$tmp/out"
}

checked=0
for id in "" GenuineIntel-6-55-4 AuthenticAMD-25-11-1 testcpu 0x00000000410fd0c0 \
	GenuineIntel-6-55; do
	if [ -n "$id" ]; then
		export PERF_CPUID=$id
	else
		unset PERF_CPUID
	fi
	for args in "-v -e cs true" "-v true" "-e cs -v true" "-v -x, -e cs true" \
		"-v -e cs --per-thread true" "-e cs true"; do
		# shellcheck disable=SC2086
		expect=$(first_line "$PERF" $args)
		# shellcheck disable=SC2086
		got=$(first_line "$BPERF" $args)
		case $args in
		-v*-per-thread*|"-e cs true")
			[[ $expect != "Using CPUID"* ]] ||
				fail "perf ${id:+(PERF_CPUID=$id) }stat $args printed '$expect'"
			[[ $got != "Using CPUID"* ]] ||
				fail "bperf ${id:+(PERF_CPUID=$id) }stat $args: printed '$got'"
			;;
		*)
			[[ $expect == "Using CPUID "* ]] ||
				fail "perf ${id:+(PERF_CPUID=$id) }stat $args: first line '$expect'"
			assert_eq "$expect" "$got" "${id:+PERF_CPUID=$id }stat $args: first line"
			;;
		esac
		checked=$((checked + 1))
	done
done
echo "$checked first lines as perf's"
