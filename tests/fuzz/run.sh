#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Runs one fuzz target (.output/fuzz/fuzz_TARGET, built by `make fuzz-build`) for FUZZ_SECONDS
# (default 60), its corpus and seeds in .output/fuzz/TARGET/. report: the perf.data reader,
# seeded with files recorded by bperf and by perf and synthesized ones (big-endian, many CPUs,
# bigger attrs); socket: the daemon's client socket, seeded with whole client sessions the
# target writes; http: the daemon's HTTP request path, seeded with requests the target writes. Exits non-zero if the fuzzer finds a crash, a leak, undefined behaviour or (socket)
# a broken invariant; the reproducer is left in .output/fuzz/TARGET/.
#	tests/fuzz/run.sh [report|socket|http]	FUZZ_SECONDS, FUZZ_JOBS (default 1)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP"
TARGET=${1:-report}
FUZZER=.output/fuzz/fuzz_$TARGET
SYNTH=.output/tools/synth-stat-data
WL=.output/workloads
CORPUS=.output/fuzz/$TARGET/corpus
SEEDS=.output/fuzz/$TARGET/seeds
PERF=${PERF:-/usr/bin/perf}

case $TARGET in
report | socket | http) ;;
*) echo "usage: $0 [report|socket|http]" >&2; exit 2 ;;
esac
[ -x "$FUZZER" ] || { echo "$FUZZER not built: run 'make fuzz-build'"; exit 1; }
mkdir -p "$CORPUS" "$SEEDS"

seed() {
	local name=$1
	shift
	"$@" >/dev/null 2>&1 || true
	[ -s "$SEEDS/$name" ] || rm -f "$SEEDS/$name"
}
# seeds of the reader: a few small recordings of each kind
report_seeds() {
	if [ -x ./bperf ] && [ -x "$WL/pagetouch" ]; then
		seed b_wl ./bperf stat record -o "$SEEDS/b_wl" -e task-clock,page-faults -- \
			"$WL/pagetouch" 10
		seed b_a ./bperf stat record -o "$SEEDS/b_a" -a -A -e cpu-clock,cs -- \
			"$WL/sleeper" 10
		seed b_I ./bperf stat record -o "$SEEDS/b_I" -I 10 -a -e cpu-clock -- \
			"$WL/sleeper" 25
		seed b_grp ./bperf stat record -o "$SEEDS/b_grp" -e '{task-clock,cs},faults' -- true
	fi
	if [ -x "$PERF" ] && [ -x "$WL/pagetouch" ]; then
		seed p_wl "$PERF" stat record -o "$SEEDS/p_wl" -e task-clock,page-faults -- \
			"$WL/pagetouch" 10
		seed p_pt "$PERF" stat record -o "$SEEDS/p_pt" --per-thread -a -e task-clock -- \
			"$WL/sleeper" 5
		"$PERF" stat record -o - -e task-clock -- true >"$SEEDS/p_pipe" 2>/dev/null || true
		# perf record files: samples by sample_type, callchains, several events, trailers
		seed r_one "$PERF" record -q -o "$SEEDS/r_one" -e cpu-clock -- "$WL/pagetouch" 300
		seed r_g "$PERF" record -q -g -o "$SEEDS/r_g" -e cpu-clock,page-faults -- \
			"$WL/pagetouch" 300
		seed r_t "$PERF" record -q -o "$SEEDS/r_t" -e task-clock -- "$WL/pingpong" -t 2000
	fi
	if [ -x "$SYNTH" ]; then
		"$SYNTH" -o "$SEEDS/s_swap" -c 4 -r 3 -e 3 -I 10 --swap
		"$SYNTH" -o "$SEEDS/s_big" -c 6 -r 2 -e 2 -I 0 --attr-extra 16
	fi
	rm -f "$SEEDS"/*.old
}

# -close_fd_mask=2: the reader's one-line errors would flood the log (the socket target's
# broken invariants are told there). -malloc_limit_mb: one allocation that large is a bound the
# code forgot.
if [ "$TARGET" = report ]; then
	report_seeds
	opts=(-max_len=65536 -close_fd_mask=2)
elif [ "$TARGET" = socket ]; then
	FUZZ_SOCKET_SEEDS=$SEEDS "$FUZZER"
	opts=(-max_len=16384)
else
	FUZZ_HTTP_SEEDS=$SEEDS "$FUZZER"
	opts=(-max_len=20000)
fi
# inputs that once found a bug (tests/fuzz/regress/TARGET/, named after it) are seeds for good
cp tests/fuzz/regress/"$TARGET"/* "$SEEDS/"

jobs=()
[ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs=(-jobs="$FUZZ_JOBS" -workers="$FUZZ_JOBS")
cd .output/fuzz/"$TARGET"
exec ../fuzz_"$TARGET" -max_total_time="${FUZZ_SECONDS:-60}" "${jobs[@]}" "${opts[@]}" -timeout=10 \
	-rss_limit_mb=1024 -malloc_limit_mb=512 -print_final_stats=1 corpus seeds
