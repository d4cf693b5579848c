#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/pack-check: the folder it makes for a machine where nothing can be installed holds
# bperf, the workloads, bench/ctxsw, bpftool and their shared libraries outside glibc, under
# 64 MiB; its run-check, started from elsewhere with a bare environment, loads libbpf from the
# folder (ldd under its LD_LIBRARY_PATH), runs bperf check (exit 0, the table and JSON kept in
# results/) and a bench/ctxsw that prints its figures; given too little time, the bench is ended
# with everything it started.
. "$(dirname "$0")/../lib.sh"
require_root
require_cmd jq

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pack=$tmp/pack
"$REPO_TOP/tools/pack-check" "$pack" >"$tmp/pack.out" 2>&1 ||
	fail "tools/pack-check: $(tail -n 1 "$tmp/pack.out")"
bytes=$(du -sb "$pack" | cut -f1)
[ "$bytes" -lt $((64 * 1024 * 1024)) ] || fail "the folder is $bytes bytes"
for f in bperf run-check bench/ctxsw bin/bpftool lib/libbpf.so.1 .output/workloads/insnloop; do
	[ -e "$pack/$f" ] || fail "$f not packed"
done
ls "$pack"/lib | grep -q '^libc\.so' && fail "glibc packed"
lib=$(LD_LIBRARY_PATH=$pack/lib ldd "$pack/bperf" | awk '$1 == "libbpf.so.1" { print $3 }')
assert_eq "$pack/lib/libbpf.so.1" "$lib" "the libbpf run-check's bperf loads"

# a bare environment, another working directory, the repo out of reach by name
start=$(date +%s)
(cd / && env -i PATH=/usr/bin:/bin RUN_CHECK_BENCH_S=40 "$pack/run-check") >"$tmp/run" 2>&1 ||
	{ tail -n 20 "$tmp/run" >&2; fail "run-check exited $?"; }
took=$(($(date +%s) - start))
echo "run-check: $took s, $((bytes / 1024)) KiB packed"
grep -q '^exit status: 0$' "$tmp/run" || fail "bperf check did not exit 0 there"
grep -q '^shared-page-faults  *ok ' "$pack/results/check.txt" ||
	fail "bperf check's shared page faults: $(grep shared-page "$pack/results/check.txt")"
assert_eq ok "$(jq -r .result "$pack/results/check.json")" "the JSON report's result"
grep -q '^ns per context switch' "$pack/results/ctxsw_cpus.txt" ||
	fail "bench/ctxsw printed no figures: $(tail -n 3 "$pack/results/ctxsw_cpus.txt")"

# 2 s for the bench: ended, and nothing of it left running
(cd / && env -i PATH=/usr/bin:/bin RUN_CHECK_BENCH_S=4 "$pack/run-check") >"$tmp/short" 2>&1
status=$(sed -n 's/^exit status: //p' "$pack/results/ctxsw_cpus.txt")
[ -n "$status" ] && [ "$status" -ne 0 ] || fail "the bench was not ended at 2 s: '$status'"
wait_until '! pgrep -f "$pack/" >/dev/null' 3 ||
	fail "run-check left processes: $(pgrep -af "$pack/")"
exit 0
