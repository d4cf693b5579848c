#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The daemon's HTTP request path under its libFuzzer target (tests/fuzz/fuzz_http.c: the real
# server and connection state machine over a socketpair, a fake /metrics body): each input in
# tests/fuzz/regress/http/ first, then a bounded run (FUZZ_SECONDS, default 20) of
# tests/fuzz/run.sh http. A crash, a leak (memory or the connection's fd), undefined behaviour
# or a broken invariant (one well-formed response per whole request, in order, nothing after
# the last) fails. Skipped only when clang cannot link libFuzzer.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fuzz_build "$tmp/build.log"
fuzz_regress http "$tmp"
FUZZ_SECONDS=${FUZZ_SECONDS:-20} fuzz_run http "$tmp/fuzz.log"
echo "fuzzing found nothing"
