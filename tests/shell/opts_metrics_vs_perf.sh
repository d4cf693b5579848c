#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The metric options side by side with perf 6.1 on this machine (no hardware PMU, no TSX, no
# topdown events, no freeze_on_smi): -d/-dd/-ddd, -T, --topdown, --td-level, --smi-cost,
# --metric-only, --metric-no-group, --metric-no-merge and -M with metrics neither knows or
# that perf cannot set up here. Outputs must agree line for line with numbers masked, exit
# statuses too, and page-fault counts exactly. Then bperf's built-in -M metrics (perf 6.1 has
# none that count here) are checked against their definitions with exact values.
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PT=$WORKLOADS/pagetouch
SLEEP=$WORKLOADS/sleeper
failed=()

. "$(dirname "$0")/../side_lib.sh"

# case NAME SEP OPTS...: each case in a subshell, retried once for timing-shaped output
case_() {
	local name=$1

	(side "$@") 2>/dev/null || (side "$@") || failed+=("$name")
}

case_ detailed "" -d "$PT" 100
case_ detailed2 "" -dd "$PT" 100
case_ detailed3 "" -ddd "$PT" 100
case_ detailed5_events "" -ddddd -e page-faults "$PT" 100
case_ detailed_long "" --detailed -e task-clock "$PT" 100
case_ detailed_null "" -n -ddd "$PT" 100
case_ detailed_csv , -x, -dd "$PT" 100
case_ detailed_json nocolumns -j -d "$PT" 100
case_ transaction "" -T "$PT" 100
case_ transaction_long "" --transaction -e task-clock "$PT" 100
case_ transaction_null "" -n -T "$PT" 100
case_ topdown "" --topdown "$PT" 100
case_ topdown_a "" --topdown -a "$PT" 100
case_ topdown_level "" --topdown --td-level 5 "$PT" 100
case_ topdown_level0 "" --topdown --td-level 0 -a "$PT" 100
case_ td_level "" --td-level 1 "$PT" 100
# usage errors: the message and exit status (the help texts are bperf's own wording)
for arg in x -1; do
	run_both td_level_bad --td-level "$arg" "$PT" 100 2>/dev/null || failed+=("td_level $arg")
	[ "$(head -1 "$tmp/td_level_bad.perf")" = "$(head -1 "$tmp/td_level_bad.bperf")" ] ||
		failed+=("td_level $arg message")
done
case_ smi_cost "" --smi-cost "$PT" 100
case_ smi_cost_a "" --smi-cost -a "$PT" 100
case_ smi_then_topdown "" --smi-cost --topdown -a "$PT" 100
case_ transaction_then_smi "" -T --smi-cost "$PT" 100
case_ metric_only "" --metric-only "$PT" 100
case_ metric_only_csv , -x, --metric-only "$PT" 100
case_ metric_only_json nocolumns -j --metric-only "$PT" 100
case_ metric_only_events "" --metric-only -e page-faults,cs "$PT" 100
case_ metric_only_r "" --metric-only -r 2 "$PT" 100
case_ metric_only_thread "" --metric-only --per-thread -a "$PT" 100
case_ no_metric_only , -x, --no-metric-only "$PT" 100
# --metric-only rows per CPU / aggregate and per interval, with perf's headers: -A names every
# event's metrics even when not counted, --per-* none; CSV and JSON keep perf's broken shapes
case_ metric_only_A "" --metric-only -a -A "$PT" 100
case_ metric_only_A_csv , -x, --metric-only -a -A "$PT" 100
case_ metric_only_A_json nocolumns -j --metric-only -a -A "$PT" 100
case_ metric_only_A_events "" --metric-only -a -A -e task-clock,page-faults,cycles "$PT" 100
case_ metric_only_A_sep ";" "-x;" --metric-only -a -A -e cycles,instructions,branch-misses,cs \
	"$PT" 100
for mode in core die socket node; do
	case_ "metric_only_$mode" "" --metric-only -a --per-$mode "$PT" 100
	case_ "metric_only_${mode}_csv" , -x, --metric-only -a --per-$mode "$PT" 100
	case_ "metric_only_${mode}_json" nocolumns -j --metric-only -a --per-$mode "$PT" 100
	case_ "metric_only_${mode}_I" "" -I 100 --metric-only -a --per-$mode "$SLEEP" 150
done
case_ metric_only_I "" -I 100 --metric-only "$SLEEP" 150
case_ metric_only_I_csv , -x, -I 100 --metric-only -e task-clock,cycles "$SLEEP" 150
case_ metric_only_I_json nocolumns -j -I 100 --metric-only "$SLEEP" 150
case_ metric_only_A_I "" -I 100 --metric-only -a -A "$SLEEP" 150
case_ metric_only_A_I_csv , -x, -I 100 --metric-only -a -A -e task-clock,cycles "$SLEEP" 150
case_ metric_only_A_I_json nocolumns -j -I 100 --metric-only -a -A "$SLEEP" 150
case_ metric_only_core_I_csv , -x, -I 100 --metric-only -a --per-core "$SLEEP" 150
case_ metric_only_node_I_json nocolumns -j -I 100 --metric-only -a --per-node "$SLEEP" 150
case_ metric_no_group "" --metric-no-group "$PT" 100
case_ metric_no_merge , -x, --metric-no-merge "$PT" 100
# -M with names a metric table lacks. perf 6.1's tables follow the CPU model: it names the first
# name its table lacks (IPC on an AMD Zen 1 or 3, none of them on an Intel Skylake-X), and with
# no table for the model (AMD Zen 5) drops -M without a word. bperf always names the first name
# it lacks, in this model's table or else its built-ins (README: Differences from perf). What
# each prints is derived from its own metric list on this machine, and perf's checked; the rest
# of both outputs must agree.
metric_names() {
	echo " $("$1" list --raw-dump metrics 2>/dev/null) \
		$("$1" list --raw-dump metricgroups 2>/dev/null) "
}
perf_metric_names=$(metric_names "$PERF")
bperf_metric_names=$(metric_names "$BPERF")
# unknown_metric NAMES LIST: the first name of LIST that NAMES lack, nothing if NAMES is empty
unknown_metric() {
	local name

	[[ $1 == *[![:space:]]* ]] || return 0
	for name in ${2//,/ }; do
		[[ $1 == *" $name "* ]] || { echo "$name"; return; }
	done
	[ -n "$2" ] || echo ""
}

# metric_unknown NAME LIST OPTS...: -M LIST, each names the first name its table lacks
metric_unknown() {
	local name=$1 list=$2 unknown perf_unknown msg='Cannot find metric or group'

	shift 2
	unknown=$(unknown_metric "$bperf_metric_names" "$list")
	run_both "$name" --metrics="$list" "$@"
	if [[ $perf_metric_names == *[![:space:]]* ]]; then
		perf_unknown=$(unknown_metric "$perf_metric_names" "$list")
		[ "$(head -n 1 "$tmp/$name.perf")" = "$msg \`$perf_unknown'" ] ||
			fail "$name: perf's first line is not $msg \`$perf_unknown'"
	fi
	{ echo "$msg \`$unknown'"; grep -v "^$msg \`" "$tmp/$name.perf"; } >"$tmp/$name.expected"
	compare_stat_outputs "$tmp/$name.expected" "$tmp/$name.bperf"
}
unknown_case() {
	(metric_unknown "$@") 2>/dev/null || (metric_unknown "$@") || failed+=("$1")
}
unknown_case metric_unknown NoSuchMetric "$PT" 100
unknown_case metric_unknown_events NoSuchMetric -e page-faults "$PT" 100
unknown_case metric_unknown_in_list IPC,NoSuch -e page-faults "$PT" 100
unknown_case metric_empty "" "$PT" 100
unknown_case metric_unknown_only NoSuch --metric-only -e page-faults "$PT" 100
unknown_case metric_unknown_null NoSuch -n "$PT" 100
unknown_case metric_unknown_topdown NoSuch --topdown "$PT" 100
unknown_case metric_unknown_transaction NoSuch -T "$PT" 100

# -I --metric-only repeats its header every 25 prints in every format, as perf does
out=$("$BPERF" stat -x, -I 10 --metric-only -e task-clock "$SLEEP" 600 2>&1 >/dev/null)
rows=$(grep -c '^ *[0-9]' <<<"$out")
heads=$(grep -c '^ time,$' <<<"$out")
[ "$rows" -gt 25 ] && [ "$heads" = $(((rows + 24) / 25)) ] ||
	{ echo "$out" >&2; failed+=(metric_only_I_header); }

# page-faults counted exactly with the detailed events added: pagetouch 0's + 1000
base=$(pagetouch_base) || exit 1
PF1000=$((base + 1000))
exact_pf() {
	local out pf

	out=$(norandom "$BPERF" stat -x, -d -e page-faults "$PT" 1000 2>&1 >/dev/null)
	pf=$(awk -F, '$3 == "page-faults" { print $1 }' <<<"$out")
	[ "$pf" = $PF1000 ] || { echo "-d page-faults: expected $PF1000, got '$pf'" >&2; return 1; }
}
retry3 exact_pf || failed+=(exact_pf)

# bperf's built-in metrics, which it counts where perf's tables have no model for the CPU
# (PERF_CPUID naming none from here on; perf 6.1 knows at most this model's, which cannot count
# here): Minor_Fault_Ratio of pagetouch is exactly 100%, printed on the line of its first event
# in perf's id order (page-faults: metric_plan.c replays perf's hash order)
export PERF_CPUID=NoVendor-0-0-0
metric_human() {
	local out

	out=$(norandom "$BPERF" stat -M Minor_Fault_Ratio "$PT" 1000 2>&1 >/dev/null)
	grep -Eq "^ +$PF1000 +minor-faults +\$" <<<"$out" &&
		grep -Eq "^ +$PF1000 +page-faults +# +100\\.0 %  Minor_Fault_Ratio +\$" <<<"$out" ||
		{ echo "$out" >&2; return 1; }
}
retry3 metric_human || failed+=(metric_human)
# -x: the metric on the leader's line, CSV fields as perf prints expression metrics
metric_csv() {
	local out

	out=$(norandom "$BPERF" stat -x, -M Minor_Fault_Ratio "$PT" 1000 2>&1 >/dev/null)
	grep -q "^$PF1000,,page-faults,[0-9]*,100.00,100.0,%  Minor_Fault_Ratio\$" <<<"$out" ||
		{ echo "$out" >&2; return 1; }
}
retry3 metric_csv || failed+=(metric_csv)
# --metric-only: the metric's header and value
out=$(norandom "$BPERF" stat -x, --metric-only -M Minor_Fault_Ratio "$PT" 1000 2>&1 >/dev/null)
[ "$out" = $'%  Minor_Fault_Ratio,\n100.0,' ] || { echo "$out" >&2; failed+=(metric_only_own); }
# a metric whose events this machine lacks: its events print <not supported>, no metric, exit 0
out=$("$BPERF" stat -M IPC "$PT" 10 2>&1 >/dev/null) && grep -q '<not supported>.*instructions' \
	<<<"$out" || { echo "$out" >&2; failed+=(metric_unsupported); }
# CPUs_utilized (task-clock over duration_time) on a new line after task-clock's own metric,
# the same value as perf's "CPUs utilized" rounded to 2 places; the new line is perf 6.1's
# new_line_csv: three empty fields, then ",value,unit" (json_metrics_stat_vs_perf compares it)
# (spin is preempted on a loaded machine: retried)
cpus_utilized() {
	local out v u

	out=$("$BPERF" stat -x, -M CPUs_utilized "$WORKLOADS/spin" 300 2>&1 >/dev/null)
	v=$(awk -F, 'NF == 6 && $6 == "CPUs_utilized" && $1 == "" { print $5 }' <<<"$out")
	u=$(awk -F, '$3 == "task-clock" { print $6 }' <<<"$out")
	awk -v v="$v" -v u="$u" 'BEGIN { d = v - u; exit !(v > 0.5 && d < 0.006 && d > -0.006) }' ||
		{ echo "$out" >&2; return 1; }
}
retry3 cpus_utilized || failed+=(cpus_utilized)
# a group of metrics, case-insensitive, each time it is named (perf 6.1 keeps duplicates)
n=$("$BPERF" stat -x, -M software,SOFTWARE,cs_per_sec "$PT" 10 2>&1 >/dev/null |
	grep -c '_per_sec$\|CPUs_utilized$\|Minor_Fault_Ratio$')
[ "$n" = 9 ] || { echo "software group: $n metrics, expected 9" >&2; failed+=(metric_group); }

if [ ${#failed[@]} -ne 0 ]; then
	fail "failed cases: ${failed[*]}"
fi
echo "ok"
