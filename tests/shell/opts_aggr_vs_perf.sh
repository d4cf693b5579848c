#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Aggregation options side by side with perf 6.1 on this machine: --per-socket, --per-die,
# --per-core, --per-node (live, topology from sysfs), -A, the percore term with and without
# --percore-show-thread, --no-merge, --hybrid-merge, --cputype, and the last-one-wins rule between
# the aggregation modes. Both run the same options on the same workload; their stderr must agree
# line for line with the numbers masked, every label and number in the same column
# (compare_stat_outputs), and both must exit alike. Errors compare the message and the names of
# the options in the usage lines (their help texts are bperf's own wording).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset BPERF_SYSFS_ROOT

PT=$WORKLOADS/pagetouch
SLEEP=$WORKLOADS/sleeper
. "$(dirname "$0")/../side_lib.sh"

# Every case here goes through check_retry (side_lib.sh): system-wide counts and timings vary, a
# real difference fails every try.

# perf 6.1 leaves out the ", " after a percore line's "core" key in JSON (README: Differences).
fix_perf_json() {
	sed -E 's/^(\{?"core" : "[^"]*")"/\1, "/'
}

# side NAME SEP OPTS...: side_lib.sh's side, but perf runs without --bpf-counters and its JSON is
# mended first.
side() {
	local name=$1 sep=$2 prc brc a perf_args=()

	shift 2
	# Debian's perf is built without --bpf-counters: its output without them is the reference
	for a in "$@"; do
		[ "$a" = --bpf-counters ] || perf_args+=("$a")
	done
	norandom "$PERF" stat "${perf_args[@]}" >/dev/null 2>"$tmp/$name.perf"
	prc=$?
	norandom "$BPERF" stat "$@" >/dev/null 2>"$tmp/$name.bperf"
	brc=$?
	[ "$prc" = "$brc" ] || fail "$name: exit status: perf $prc, bperf $brc"
	[ "$sep" = nocolumns ] && fix_perf_json <"$tmp/$name.perf" >"$tmp/$name.fixed" &&
		mv "$tmp/$name.fixed" "$tmp/$name.perf"
	compare_stat_outputs "$tmp/$name.perf" "$tmp/$name.bperf" "$sep"
}

# Usage lines reduced to the option names; lines of options bperf lacks dropped.
"$BPERF" stat -h 2>&1 | grep -oE '^ +(-[[:alnum:]], )?--[a-z0-9-]+' | sed 's/^ *//' |
	sort -u >"$tmp/bperf_opts"
usage_names() {
	awk -v known="$tmp/bperf_opts" '
		BEGIN { while ((getline l < known) > 0) ok[l] = 1 }
		match($0, /^ +(-[[:alnum:]], )?--[a-z0-9-]+/) {
			o = substr($0, RSTART, RLENGTH); sub(/^ +/, "", o)
			if (o in ok)
				print "OPT " o
			next
		}
		/^                          / { next }
		{ sub(/ perf stat/, " bperf stat"); print }'
}

# error NAME OPTS...: same exit status, same message and usage option names.
error_case() {
	local name=$1 prc brc

	shift
	"$PERF" stat "$@" >/dev/null 2>"$tmp/$name.perf"
	prc=$?
	"$BPERF" stat "$@" >/dev/null 2>"$tmp/$name.bperf"
	brc=$?
	[ "$prc" = "$brc" ] || fail "$name: exit status: perf $prc, bperf $brc"
	diff -u <(usage_names <"$tmp/$name.perf") <(usage_names <"$tmp/$name.bperf") >&2 ||
		fail "$name: messages differ (- perf, + bperf)"
}
error() { local name=$1; shift; check_retry "$name" error_case "$name" "$@"; }

EV=page-faults,cpu-clock,msr/tsc/,duration_time

# ---- --per-socket, --per-die, --per-core, --per-node ------------------------------------------
for mode in socket die core node; do
	human "per_$mode" "--per-$mode" -a -e "$EV" "$SLEEP" 20
	csv "csv_per_$mode" "--per-$mode" -a -e "$EV" "$SLEEP" 20
	json "json_per_$mode" "--per-$mode" -a -e "$EV" "$SLEEP" 20
	human "per_${mode}_cpu1" "--per-$mode" -C 1 -e "$EV" "$SLEEP" 20
	human "per_${mode}_interval" "--per-$mode" -a -e page-faults,cpu-clock -I 100 \
		--interval-count 2
done
human per_socket_default --per-socket -a "$SLEEP" 20
human per_core_repeat --per-core -a -r 2 -e page-faults,cpu-clock "$SLEEP" 20
human per_die_noscale --per-die -a --no-scale -e page-faults "$SLEEP" 20
human per_socket_bpf_counters --per-socket -a --bpf-counters -e page-faults,cpu-clock "$SLEEP" 20

# ---- the last aggregation option wins; any of them negated means -A --------------------------
human socket_then_A --per-socket -A -a -e page-faults "$SLEEP" 20
human A_then_socket -A --per-socket -a -e page-faults "$SLEEP" 20
human thread_then_core --per-thread --per-core -a -e page-faults "$SLEEP" 20
human no_per_socket --per-socket --no-per-socket -a -e page-faults "$SLEEP" 20
human no_per_thread --per-node --no-per-thread -a -e page-faults "$SLEEP" 20

# ---- -A and --per-thread ------------------------------------------------------------------------
human no_aggr -A -a -e "$EV" "$SLEEP" 20
human per_thread_tid --per-thread -t $$ -e page-faults,cpu-clock --timeout 100

# ---- the percore term -------------------------------------------------------------------------
PC=msr/tsc,percore=1/,page-faults,cpu-clock
human percore_A -A -a -e "$PC" "$SLEEP" 20
human percore_show_thread -A --percore-show-thread -a -e "$PC" "$SLEEP" 20
human percore_global -a -e "$PC" "$SLEEP" 20
human percore_global_show_thread --percore-show-thread -a -e "$PC" "$SLEEP" 20
human percore_per_core --per-core -a -e "$PC" "$SLEEP" 20
human percore_interval -A -a -e "$PC" -I 100 --interval-count 2
csv csv_percore_A -A -a -e "$PC" "$SLEEP" 20
csv csv_percore_show_thread -A --percore-show-thread -a -e "$PC" "$SLEEP" 20
json json_percore_A -A -a -e "$PC" "$SLEEP" 20

# ---- merging and hybrid options (no alias or hybrid PMUs here: nothing to merge) --------------
human no_merge --no-merge -a -e "$EV" "$SLEEP" 20
human hybrid_merge --hybrid-merge -e page-faults,cpu-clock "$PT" 10
human no_merge_per_core --no-merge --per-core -a -e page-faults "$SLEEP" 20

# ---- errors -----------------------------------------------------------------------------------
error per_socket_workload --per-socket -e page-faults "$PT" 10
error per_core_pid --per-core -p $$ -e page-faults --timeout 100
error per_node_tid --per-node -t $$ -e page-faults --timeout 100
error cputype_not_hybrid --cputype core -e page-faults "$PT" 10
error cputype_after_event -e page-faults --cputype atom "$PT" 10
error cputype_missing_arg -e page-faults --cputype

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ ${#failed_cases[@]} -eq 0 ]
