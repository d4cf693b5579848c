#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A bounded run (FUZZ_SECONDS, default 30: make check's share) of the perf.data reader's libFuzzer target under
# AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz/run.sh, seeded with files that
# bperf and perf record): any crash, leak, undefined behaviour, huge allocation or timeout
# fails. `make fuzz` runs it longer. Skipped only when clang cannot link libFuzzer.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_TOP" || exit 1
require_cmd clang
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! make --no-print-directory -s -j"$(nproc)" fuzz-build >"$tmp/build.log" 2>&1; then
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$tmp/t.c"
	clang -fsanitize=fuzzer,address,undefined -o "$tmp/t" "$tmp/t.c" >/dev/null 2>&1 ||
		skip "clang cannot link libFuzzer (install libclang-rt-$(clang -dumpversion |
			cut -d. -f1)-dev: make deps)"
	tail -n 20 "$tmp/build.log"
	fail "make fuzz-build failed"
fi
FUZZ_SECONDS=${FUZZ_SECONDS:-30} tests/fuzz/run.sh >"$tmp/fuzz.log" 2>&1
rc=$?
grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::new_units_added' \
	"$tmp/fuzz.log"
if [ "$rc" -ne 0 ]; then
	grep -E -A 12 'ERROR|runtime error|SUMMARY' "$tmp/fuzz.log" | head -n 40
	fail "the fuzzer found a problem (exit $rc); reproducer in .output/fuzz/"
fi
echo "fuzzing found nothing"
