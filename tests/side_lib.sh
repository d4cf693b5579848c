# SPDX-License-Identifier: GPL-2.0-only
#
# Side-by-side cases against /usr/bin/perf, for the *_vs_perf tests: sourced after lib.sh by a
# test that sets $tmp (a scratch directory), $PERF and $BPERF. Cases run in subshells so that
# fail() ends only the case; the test reports nr_cases and failed_cases at its end.

nr_cases=0
failed_cases=()

# check NAME FUNCTION ARGS...: runs one case in a subshell so that its fail() ends only the case.
check() {
	local name=$1 start=$SECONDS

	shift
	nr_cases=$((nr_cases + 1))
	if ! ("$@"); then
		echo "FAIL case $name: $*" >&2
		failed_cases+=("$name")
	fi
	# CASE_TIMES=1: where a test's time goes (in a guest, say)
	[ -z "${CASE_TIMES:-}" ] || echo "case $name: $((SECONDS - start)) s" >&2
}

# check_host NAME FUNCTION ARGS...: check, for a case whose outcome depends on bperf and perf, not
# on the kernel (formats, errors, attrs): skipped where KERNEL_CASES_ONLY is set (tools/vmtest's
# guests, where each exec is about 30 times slower; the host runs every case)
check_host() {
	[ -n "${KERNEL_CASES_ONLY:-}" ] || check "$@"
}

# check_retry NAME FUNCTION ARGS...: check, with up to two more tries for cases whose format
# follows a value or a timing that varies between runs (a zero user_time prints as <not counted>;
# a workload stretched by a loaded machine gets one -I interval more): a real difference fails
# every try.
check_retry() {
	check "$1" retry3 "${@:2}"
}

# run_both NAME OPTS...: perf stat OPTS and bperf stat OPTS with randomisation off (exact start-up
# faults); stdout goes to $tmp/NAME.out.perf and .out.bperf, stderr to $tmp/NAME.perf and
# $tmp/NAME.bperf. Both must exit with the same status.
run_both() {
	local name=$1 prc brc

	shift
	norandom "$PERF" stat "$@" >"$tmp/$name.out.perf" 2>"$tmp/$name.perf"
	prc=$?
	norandom "$BPERF" stat "$@" >"$tmp/$name.out.bperf" 2>"$tmp/$name.bperf"
	brc=$?
	[ "$prc" = "$brc" ] || fail "$name: exit status: perf $prc, bperf $brc"
}

# human NAME OPTS..., csv NAME OPTS... (with -x,) and json NAME OPTS...: one side case each,
# retried (check_retry). side is the test's own where it defines one after sourcing this file.
human() { local name=$1; shift; check_retry "$name" side "$name" "" "$@"; }
csv() { local name=$1; shift; check_retry "$name" side "$name" , -x, "$@"; }
json() { local name=$1; shift; check_retry "$name" side "$name" nocolumns -j "$@"; }

# side NAME SEP OPTS...: run_both, then compare_stat_outputs with SEP ("" for human output,
# nocolumns for JSON).
side() {
	local name=$1 sep=$2

	shift 2
	run_both "$name" "$@"
	compare_stat_outputs "$tmp/$name.perf" "$tmp/$name.bperf" "$sep"
}

# attr_blocks: the perf_event_attr blocks of a -vv log opened on cpu -1 or 0, open retries
# included (tests/attr_blocks.awk, as attr_vs_perf.sh)
attr_blocks() {
	awk -f "$(dirname "${BASH_SOURCE[0]}")/attr_blocks.awk"
}

# attrs NAME OPTS...: perf stat -vv OPTS true and bperf's: the same attr blocks and count names
attrs() {
	local name=$1

	shift
	"$PERF" stat -vv "$@" true >/dev/null 2>"$tmp/$name.perf"
	"$BPERF" stat -vv "$@" true >/dev/null 2>"$tmp/$name.bperf"
	attr_blocks <"$tmp/$name.perf" >"$tmp/$name.perf.attrs"
	attr_blocks <"$tmp/$name.bperf" >"$tmp/$name.bperf.attrs"
	[ -s "$tmp/$name.perf.attrs" ] || fail "no attr blocks in perf's -vv"
	diff -u "$tmp/$name.perf.attrs" "$tmp/$name.bperf.attrs" >&2 ||
		fail "-vv $*: attrs differ (- perf, + bperf)"
	# and the names of the count lines
	diff -u <(count_names <"$tmp/$name.perf") <(count_names <"$tmp/$name.bperf") >&2 ||
		fail "-vv $*: event names differ (- perf, + bperf)"
}

count_names() {
	sed -nE 's/^ +([0-9.,]+|<not supported>|<not counted>) +([^ ]+).*/\2/p' | grep -v '^seconds$'
}
