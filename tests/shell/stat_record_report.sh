#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf stat record / stat report against perf 6.1, both ways:
# 1. a file from `bperf stat record` (workload, -a, -A, -C, -I, -p, -t, --per-thread, groups,
#    shared BPF counters, -b) read by `perf stat report` gives the counts bperf printed while
#    recording (CSV fields up to the run time; the human table whole, but for the header's
#    target and the rusage lines), and bperf's own report of it is perf's, byte for byte;
# 2. a file from `perf stat record` read by `bperf stat report` prints exactly what
#    `perf stat report` prints (and exits the same), in every aggregation mode and format;
# 3. synthesized files: 64 CPUs with -I, big-endian, attrs bigger than perf 6.1's;
# 4. perf.data.old rotation and the perf.data default;
# 5. bad files: one error line naming the offset, exit 255, nothing on stdout.
. "$(dirname "$0")/../lib.sh"
require_root
[ -x "$PERF" ] || skip "needs $PERF"
SYNTH=$REPO_TOP/.output/tools/synth-stat-data
[ -x "$SYNTH" ] || fail "$SYNTH is not built: run 'make tests'"
tmp=$(mktemp -d)
sleeper_pid=
trap '[ -n "$sleeper_pid" ] && kill "$sleeper_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

# live_vs_perf_report NAME RECORD_ARGS...: bperf records (CSV live output), perf reports
live_vs_perf_report() {
	local name=$1 f=$tmp/$1.data
	shift
	"$BPERF" stat -x, record -o "$f" "$@" >/dev/null 2>"$tmp/live" ||
		fail "$name: bperf stat record exit $?: $(cat "$tmp/live")"
	"$PERF" stat -x, report -i "$f" 2>"$tmp/perf_report" ||
		fail "$name: perf stat report exit $?: $(cat "$tmp/perf_report")"
	# (bperf's own notes, e.g. -b's fallback line, are not counts)
	diff <(grep -v -e '^#' -e '^bperf: ' "$tmp/live" | cut -d, -f1-5) \
		<(grep -v '^#' "$tmp/perf_report" | cut -d, -f1-5) >&2 ||
		fail "$name: perf stat report of bperf's file has other counts (- live, + report)"
	"$BPERF" stat -x, report -i "$f" 2>"$tmp/bperf_report"
	cmp -s "$tmp/perf_report" "$tmp/bperf_report" ||
		fail "$name: bperf stat report of its own file differs from perf's"
	echo "ok: bperf record $name -> perf report"
}

W=$WORKLOADS
live_vs_perf_report wl -e task-clock,page-faults,context-switches -- "$W/pagetouch" 100
live_vs_perf_report default -- "$W/pagetouch" 10
live_vs_perf_report group -e '{task-clock,page-faults},cs' -- "$W/pagetouch" 10
live_vs_perf_report a -a -e cpu-clock,context-switches -- "$W/sleeper" 50
live_vs_perf_report A -a -A -e cpu-clock,context-switches -- "$W/sleeper" 50
live_vs_perf_report C -C 1 -e cpu-clock,context-switches -- "$W/sleeper" 50
live_vs_perf_report I -I 40 -e task-clock,page-faults -- "$W/spin" 130
live_vs_perf_report I_a -I 40 -a -A -e cpu-clock,context-switches -- "$W/sleeper" 130
live_vs_perf_report noscale --no-scale -e task-clock -- "$W/pagetouch" 10
mount_bpffs
SHARED=(--bpf-counters --bpf-attr-map /sys/fs/bpf/bperf_test_record)
live_vs_perf_report shared "${SHARED[@]}" -e page-faults,context-switches -- "$W/pagetouch" 100
live_vs_perf_report shared_a "${SHARED[@]}" -a -A -e cpu-clock,page-faults -- "$W/sleeper" 50
live_vs_perf_report shared_C "${SHARED[@]}" -C 1 -e cpu-clock,context-switches -- \
	"$W/sleeper" 50
live_vs_perf_report shared_I "${SHARED[@]}" -I 40 -e task-clock,page-faults -- "$W/spin" 130
"$W/sleeper" 120000 &
sleeper_pid=$!
live_vs_perf_report shared_p "${SHARED[@]}" -p "$sleeper_pid" -e task-clock,context-switches \
	-- sleep 0.2
rm -rf /sys/fs/bpf/bperf_test_record /sys/fs/bpf/bperf_test_record_lock
live_vs_perf_report p -p "$sleeper_pid" -e task-clock,context-switches -- sleep 0.2
live_vs_perf_report t -t "$sleeper_pid" -e task-clock,context-switches -- sleep 0.2
live_vs_perf_report per_thread --per-thread -p "$sleeper_pid" -e task-clock -- sleep 0.2

# the human table: all but the header's target (perf shows the recording command line) and
# the rusage lines (not in the file)
human_view() {
	grep -v -e 'Performance counter stats for' -e 'seconds user' -e 'seconds sys' "$1" |
		grep -v '^$'
}
"$BPERF" stat record -o "$tmp/human.data" -e task-clock,page-faults -- "$W/pagetouch" 100 \
	2>"$tmp/live" >/dev/null || fail "human: record failed"
"$PERF" stat report -i "$tmp/human.data" 2>"$tmp/perf_report"
diff <(human_view "$tmp/live") <(human_view "$tmp/perf_report") >&2 ||
	fail "human: perf stat report's table differs from bperf's live one"
echo "ok: human table"

# the feature sections: perf describes the host the same from both files
"$PERF" stat record -o "$tmp/p_human.data" -e task-clock,page-faults -- "$W/pagetouch" 100 \
	2>/dev/null || fail "perf stat record failed"
host_view() {
	"$PERF" report --header-only -I -i "$1" 2>&1 | grep -v -e 'captured on' -e 'perf version' \
		-e '# cmdline' -e '# event :' -e 'meminfo' -e 'data size' -e 'data offset' \
		-e 'feat offset'
}
diff <(host_view "$tmp/p_human.data") <(host_view "$tmp/human.data") >&2 ||
	fail "perf report --header-only -I: bperf's features differ from perf's (- perf, + bperf)"
echo "ok: header features"

# -b: the runs counted through BPF statistics or the profiler, as perf reads them
if "$BPERF" stat -h 2>&1 | grep -q -- '--bpf-prog' && [ -f "$REPO_TOP/tests/bpf_prog_lib.sh" ] &&
   [ -x "$REPO_TOP/.output/tests/bpf_prog_runner" ]; then
	. "$REPO_TOP/tests/bpf_prog_lib.sh"
	trap 'unload_targets; [ -n "$sleeper_pid" ] && kill "$sleeper_pid" 2>/dev/null;
	      rm -rf "$tmp"' EXIT
	# shellcheck disable=SC2119
	load_targets
	live_vs_perf_report bpf_prog -b "${TARGET_IDS[0]}" -e cpu-clock -- \
		"$RUNNER" run "${TARGET_IDS[0]}" 1000
	grep -q "^1000,,bpf-prog-${TARGET_IDS[0]}-runs," "$tmp/perf_report" ||
		fail "bpf_prog: perf does not read 1000 runs"
	unload_targets
else
	echo "note: -b not available, not covered"
fi

# 2. perf's files, every report mode and format: bperf prints what perf prints
compare_reports() {
	local f=$1 what=$2 opts fmt

	for opts in "" "-A" "--per-core" "--per-socket" "--per-die" "--per-node"; do
		for fmt in "" "-x," "-x;" "-j"; do
			# shellcheck disable=SC2086
			"$PERF" stat $fmt report -i "$f" $opts >"$tmp/p.out" 2>"$tmp/p.err"
			echo "rc=$?" >>"$tmp/p.err"
			# shellcheck disable=SC2086
			"$BPERF" stat $fmt report -i "$f" $opts >"$tmp/b.out" 2>"$tmp/b.err"
			echo "rc=$?" >>"$tmp/b.err"
			if ! cmp -s "$tmp/p.err" "$tmp/b.err" ||
			   ! cmp -s "$tmp/p.out" "$tmp/b.out"; then
				diff "$tmp/p.err" "$tmp/b.err" >&2
				fail "$what: 'stat $fmt report $opts' differs from perf" \
					"(- perf, + bperf)"
			fi
		done
	done
	echo "ok: perf record $what -> bperf report"
}

perf_record() {
	local name=$1
	shift
	"$PERF" stat record -o "$tmp/p_$name.data" "$@" >/dev/null 2>&1 ||
		fail "perf stat record $name failed"
	compare_reports "$tmp/p_$name.data" "$name"
}
perf_record wl -e task-clock,page-faults -- "$W/pagetouch" 100
perf_record default -- "$W/pagetouch" 10
perf_record group -e '{task-clock,page-faults},cs' -- "$W/pagetouch" 10
perf_record a -a -e cpu-clock,context-switches -- "$W/sleeper" 50
perf_record per_socket --per-socket -a -e cpu-clock -- "$W/sleeper" 50
perf_record C -C 1 -e cpu-clock,cs -- "$W/sleeper" 50
perf_record I -I 30 -e task-clock,page-faults -- "$W/spin" 100
perf_record I_A -I 30 -A -a -e cpu-clock,cs -- "$W/sleeper" 100
perf_record duration -e duration_time,task-clock -- "$W/sleeper" 20
perf_record p -p "$sleeper_pid" -e task-clock,context-switches -- sleep 0.2
perf_record per_thread --per-thread -p "$sleeper_pid" -e task-clock -- sleep 0.2
# bperf's files in every mode and format too
compare_reports "$tmp/A.data" "(bperf's -a -A file)"
compare_reports "$tmp/I_a.data" "(bperf's -I -a -A file)"
"$PERF" stat record -o - -e task-clock,page-faults -- "$W/pagetouch" 10 \
	>"$tmp/p_pipe.data" 2>/dev/null || fail "perf stat record -o - failed"
compare_reports "$tmp/p_pipe.data" pipe
# pipe format through stdin, both ways (record -o - prints no counts, as perf)
"$BPERF" stat report -i - <"$tmp/p_pipe.data" 2>"$tmp/b.err"
"$PERF" stat report -i - <"$tmp/p_pipe.data" 2>"$tmp/p.err"
cmp -s "$tmp/p.err" "$tmp/b.err" || fail "perf's pipe file on stdin: bperf's report differs"
"$BPERF" stat record -o - -I 30 -a -e cpu-clock,page-faults -- "$W/sleeper" 100 \
	>"$tmp/b_pipe.data" 2>"$tmp/live" || fail "bperf stat record -o -: exit $?"
[ ! -s "$tmp/live" ] || fail "bperf stat record -o - printed: $(cat "$tmp/live")"
"$PERF" stat report -i - <"$tmp/b_pipe.data" 2>"$tmp/p.err" || fail "perf cannot read bperf's pipe"
"$BPERF" stat report -i - <"$tmp/b_pipe.data" 2>"$tmp/b.err"
cmp -s "$tmp/p.err" "$tmp/b.err" || fail "bperf's pipe file: bperf's report differs from perf's"
[ "$(grep -c 'msec cpu-clock' "$tmp/p.err")" -ge 3 ] || fail "bperf's pipe file: no intervals"
echo "ok: pipe format (-o -, -i -) both ways"

# 3. synthesized files
"$SYNTH" -o "$tmp/many.data" -c 64 -e 4 -r 30 -I 100
"$PERF" stat report -i "$tmp/many.data" 2>"$tmp/p.err"
"$BPERF" stat report -i "$tmp/many.data" 2>"$tmp/b.err"
cmp -s "$tmp/p.err" "$tmp/b.err" || fail "64 CPUs, 30 intervals: bperf's report differs from perf's"
# a big-endian host's file: the same report once the command line (which names it) is left out
"$SYNTH" -o "$tmp/swapped.data" -c 64 -e 4 -r 30 -I 100 --swap
"$BPERF" stat report -i "$tmp/swapped.data" 2>"$tmp/b_swapped.err"
cmp -s "$tmp/b.err" "$tmp/b_swapped.err" || fail "big-endian file: another report"
for mode in final interval; do
	interval=$([ $mode = final ] && echo 0 || echo 100)
	"$SYNTH" -o "$tmp/native.data" -c 4 -e 3 -r 2 -I "$interval"
	"$SYNTH" -o "$tmp/swapped.data" -c 4 -e 3 -r 2 -I "$interval" --swap
	"$BPERF" stat report -i "$tmp/native.data" 2>&1 | grep -v 'counter stats for' >"$tmp/n.out"
	"$BPERF" stat report -i "$tmp/swapped.data" 2>&1 | grep -v 'counter stats for' >"$tmp/s.out"
	cmp -s "$tmp/n.out" "$tmp/s.out" || fail "big-endian $mode file: another report"
done
# a newer perf's bigger perf_event_attr: read by its size (perf 6.1 refuses the file)
"$SYNTH" -o "$tmp/bigattr.data" -c 4 -e 3 -r 2 -I 100 --attr-extra 64
"$BPERF" stat report -i "$tmp/bigattr.data" 2>"$tmp/big.err" || fail "bigger attrs: exit $?"
"$SYNTH" -o "$tmp/native.data" -c 4 -e 3 -r 2 -I 100
"$BPERF" stat report -i "$tmp/native.data" 2>"$tmp/n.err"
cmp -s "$tmp/big.err" "$tmp/n.err" || fail "bigger attrs: another report"
echo "ok: synthesized files (64 CPUs, big-endian, bigger attrs)"

# 4. perf.data by default, the previous one kept as perf.data.old
(
	cd "$tmp" || exit 1
	rm -f perf.data perf.data.old
	"$BPERF" stat record -e page-faults -- "$W/pagetouch" 1 2>/dev/null || exit 1
	[ -s perf.data ] && [ ! -e perf.data.old ] || exit 2
	first=$(md5sum <perf.data)
	"$BPERF" stat record -e page-faults -- "$W/pagetouch" 2 2>/dev/null || exit 1
	[ "$(md5sum <perf.data.old)" = "$first" ] || exit 3
	[ "$(stat -c %a perf.data)" = 600 ] || exit 4
	"$PERF" stat report 2>&1 | grep -q page-faults || exit 5
) || fail "perf.data / perf.data.old rotation (step $?)"
echo "ok: perf.data.old rotation"

# -r is refused, as by perf, before any file is made
"$BPERF" stat record -o "$tmp/r.data" -r 2 -e page-faults -- true 2>"$tmp/r.err"
rc=$?
[ "$rc" = 255 ] && [ ! -e "$tmp/r.data" ] && grep -q "Cannot use -r option" "$tmp/r.err" ||
	fail "record -r 2: exit $rc, $(cat "$tmp/r.err")"

# 5. bad files: one line naming the offset, exit 255, no crash, nothing on stdout
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
u32_at() { od -An -t u4 -j "$2" -N 4 "$1" | tr -d ' '; }
u16_at() { od -An -t u2 -j "$2" -N 2 "$1" | tr -d ' '; }
# put_u64 FILE OFFSET VALUE, put_u16 ...: little-endian, written over the file's bytes
# (the escapes are built here, hence the computed printf formats)
# shellcheck disable=SC2059
put_u64() { printf "$(printf '%016x' "$3" | sed -E 's/(..)/\1 /g' |
	awk '{ for (i = NF; i > 0; i--) printf "\\x%s", $i }')" |
	dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# shellcheck disable=SC2059
put_u16() { printf "$(printf '\\x%02x\\x%02x' $(($3 & 255)) $(($3 >> 8)))" |
	dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# record_offset FILE TYPE: the offset of the first record of TYPE in the data section
record_offset() {
	local f=$1 off end
	off=$(u64_at "$f" 40)
	end=$((off + $(u64_at "$f" 48)))
	while [ "$off" -lt "$end" ]; do
		[ "$(u32_at "$f" "$off")" = "$2" ] && { echo "$off"; return; }
		off=$((off + $(u16_at "$f" $((off + 6)))))
	done
	fail "no record of type $2 in $f"
}

good=$tmp/good.data
"$BPERF" stat record -o "$good" -a -e cpu-clock,page-faults -- "$W/sleeper" 10 2>/dev/null
size=$(stat -c %s "$good")
bad=$tmp/bad.data
expect_bad() {
	local what=$1 pattern=$2 rc

	"$BPERF" stat report -i "$bad" >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	[ "$rc" = 255 ] || fail "$what: exit $rc, expected 255: $(cat "$tmp/bad.err")"
	[ "$(wc -l <"$tmp/bad.err")" = 1 ] ||
		fail "$what: not one error line: $(cat "$tmp/bad.err")"
	grep -q "offset 0x[0-9a-f]*: .*$pattern" "$tmp/bad.err" ||
		fail "$what: '$(cat "$tmp/bad.err")' does not name the offset and '$pattern'"
	[ ! -s "$tmp/bad.out" ] || fail "$what: output on stdout"
	echo "ok: $what: $(cat "$tmp/bad.err")"
}
for cut in 8 50 104 300 $((size / 2)) $((size - 30)); do
	head -c "$cut" "$good" >"$bad"
	expect_bad "truncated at $cut" ""
done
cp "$good" "$bad"; printf 'PERFILE3' | dd of="$bad" conv=notrunc status=none
expect_bad "wrong magic" "bad magic"
cp "$good" "$bad"; put_u64 "$bad" 48 $((1 << 40))
expect_bad "data size outside the file" "outside the file"
cp "$good" "$bad"; put_u64 "$bad" 24 $((size - 8))
expect_bad "attrs outside the file" "outside the file"
cp "$good" "$bad"; put_u64 "$bad" 16 3
expect_bad "absurd attr size" "attr size 3"
off=$(record_offset "$good" 73)
cp "$good" "$bad"; put_u64 "$bad" $((off + 8)) 4000000000
expect_bad "absurd thread count" "thread map of 4000000000 threads"
cp "$good" "$bad"; put_u16 "$bad" $((off + 6)) 0
expect_bad "record of size 0 (a loop)" "size 0, less than its header"
cp "$good" "$bad"; put_u16 "$bad" $((off + 6)) 65528
expect_bad "record past the data" "past the end of the data"
off=$(record_offset "$good" 76)
cp "$good" "$bad"; put_u64 "$bad" $((off + 8)) 123456789
expect_bad "unknown event id" "unknown event id 123456789"
cp "$good" "$bad"; put_u64 "$bad" $((off + 16)) $((77 << 32))
expect_bad "thread index out of the map" "thread index 77"
: >"$bad"
expect_bad "empty file" "too short"
"$BPERF" stat report -i "$tmp/missing.data" 2>"$tmp/bad.err" && fail "missing file: exit 0"
[ "$(wc -l <"$tmp/bad.err")" = 1 ] || fail "missing file: $(cat "$tmp/bad.err")"
echo "all stat record/report cases passed"
