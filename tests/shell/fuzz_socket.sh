#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The daemon's client socket under its libFuzzer target (tests/fuzz/fuzz_socket.c: the real
# receive path, a fake counting backend): each input in tests/fuzz/regress/socket/ first, then a
# bounded run (FUZZ_SECONDS, default 20) of tests/fuzz/run.sh socket. A crash, a leak (memory or
# fds), undefined behaviour or a broken invariant (limits, whose slots, one reply per message)
# fails. Skipped only when clang cannot link libFuzzer.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fuzz_build "$tmp/build.log"
fuzz_regress socket "$tmp"
FUZZ_SECONDS=${FUZZ_SECONDS:-20} fuzz_run socket "$tmp/fuzz.log"
echo "fuzzing found nothing"
