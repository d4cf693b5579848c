#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A bounded run (FUZZ_SECONDS, default 30: make check's share) of the perf.data reader's libFuzzer
# target under AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz/run.sh report, seeded
# with files that bperf and perf record): any crash, leak, undefined behaviour, huge allocation or
# timeout fails. `make fuzz` runs it longer. Skipped only when clang cannot link libFuzzer.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fuzz_build "$tmp/build.log"
FUZZ_SECONDS=${FUZZ_SECONDS:-30} fuzz_run report "$tmp/fuzz.log"
echo "fuzzing found nothing"
