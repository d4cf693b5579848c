#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf's built-in pmu-events tables against perf's own: perf 6.1's generator (jevents.py, from
# the same linux-source-6.1 tarball as the JSON) writes perf's pmu-events.c for each architecture
# bperf was built for (this machine's, and arm64 after `make ARCH=arm64`); a dumper compiled with
# that file prints every table through perf's own iteration, another prints bperf's generated
# tables through src/events/pmu_tables.c, and the two dumps must be equal: the map rows (arch,
# cpuid pattern, table), the sys tables, and every field of every entry of every table, in order.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_cmd python3
require_cmd cc
cd "$REPO_TOP" || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the headers perf's generated file includes: dump_jevents.c declares what it uses
mkdir -p "$tmp/stub/pmu-events" "$tmp/stub/util"
touch "$tmp/stub/pmu-events/pmu-events.h" "$tmp/stub/util/header.h" "$tmp/stub/util/pmu.h"

host_arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
checked=0
for arch in x86 arm64; do
	out=.output
	[ "$arch" = "$host_arch" ] || out=.output/$arch
	[ -s "$out/pmu-events.c" ] && [ -s "$out/pmu-events-src" ] || continue
	src=$(cat "$out/pmu-events-src")
	[ -f "$src/jevents.py" ] || skip "no $src/jevents.py: run make"

	python3 "$src/jevents.py" "$arch" "$src/arch" "$tmp/perf-$arch.c" ||
		fail "$arch: jevents.py failed"
	cc -O0 -w -I"$tmp/stub" -Itests/pmu_tables -DPERF_PMU_EVENTS_C="\"$tmp/perf-$arch.c\"" \
		-o "$tmp/dump_jevents" tests/pmu_tables/dump_jevents.c ||
		fail "$arch: cannot build perf's tables"
	cc -O1 -Wall -Isrc -Itests/pmu_tables -o "$tmp/dump_bperf" tests/pmu_tables/dump_bperf.c \
		src/events/pmu_tables.c "$out/pmu-events.c" || fail "$arch: cannot build bperf's tables"
	"$tmp/dump_jevents" >"$tmp/perf-$arch.txt" || fail "$arch: perf's dump failed"
	"$tmp/dump_bperf" >"$tmp/bperf-$arch.txt" || fail "$arch: bperf's dump failed"

	rows=$(grep -c '^map ' "$tmp/perf-$arch.txt")
	events=$(grep -c '^table#[0-9]* [0-9]* name=' "$tmp/perf-$arch.txt")
	metrics=$(grep -c '^table#[0-9]* [0-9]* metric_name=' "$tmp/perf-$arch.txt")
	# perf's x86 tables hold 32,506 events, arm64's 2,206 (plus the test table's): a dump that
	# lost its tables must not pass as equal
	[ "$rows" -gt 20 ] && [ "$events" -gt 2000 ] && [ "$metrics" -gt 100 ] ||
		fail "$arch: perf's dump is short: $rows map rows, $events events, $metrics metrics"
	if ! cmp -s "$tmp/perf-$arch.txt" "$tmp/bperf-$arch.txt"; then
		diff "$tmp/perf-$arch.txt" "$tmp/bperf-$arch.txt" | head -n 20
		fail "$arch: bperf's tables differ from perf's (< perf, > bperf)"
	fi
	echo "$arch: $rows map rows, $events events and $metrics metrics (test table included)" \
		"equal to perf's, field by field"
	checked=$((checked + 1))
done
[ "$checked" -gt 0 ] || skip "no generated tables: run make"
