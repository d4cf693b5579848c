#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf list --raw-dump [MODE], side by side with perf 6.1 (builtin-list.c, print-events.c,
# pmu.c, metricgroup.c): every mode perf takes (none, hw, hardware, sw, software, cache,
# hwcache, tracepoint, pmu, sdt, metric(s), metricgroup(s), SYS:EVENT, globs) and perf's pager
# layout of the human list.
#	- Events bperf and perf both know (symbolic, cache, tool, sysfs PMU, tracepoint): the same
#	  bytes. perf runs with --buildid-dir on an empty directory (bperf reads no SDT probe cache)
#	  and both with PERF_CPUID naming no model (table events: json_events_vs_perf.sh). PMU
#	  aliases are also compared on fake PMUs (a core "cpu" PMU, two uncore instances,
#	  intel_bts) bound over sysfs in a private mount namespace.
#	- Metrics: bperf's own names, in perf's form: the form of perf's lines is taken from perf
#	  itself, with this machine's table when perf has one, and with the first model of perf's
#	  own CPU table (the patterns in its binary) that has metrics; never one machine's output.
#	- The plain --raw-dump is the modes one after the other, for perf and for bperf.
#	- A script's loop over `--raw-dump metrics`: every name is one -M takes.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
if [ -z "${BPERF_LIST_NS:-}" ] && unshare -m true 2>/dev/null; then
	BPERF_LIST_NS=1 exec unshare -m bash "$0" "$@"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/no-cache"
NO_TABLE=NoVendor-0-0-0

. "$(dirname "$0")/../side_lib.sh"
. "$(dirname "$0")/../fake_pmus.sh"

perf_dump() {
	PERF_CPUID=${CPUID:-$NO_TABLE} "$PERF" --buildid-dir "$tmp/no-cache" list --raw-dump "$@"
}
bperf_dump() {
	PERF_CPUID=${CPUID:-$NO_TABLE} "$BPERF" list --raw-dump "$@"
}

# same_bytes NAME PERF_FILE BPERF_FILE
same_bytes() {
	cmp -s "$2" "$3" && return 0
	diff -u <(tr ' ' '\n' <"$2") <(tr ' ' '\n' <"$3") >&2
	od -c "$2" | tail -n 3 >&2
	od -c "$3" | tail -n 3 >&2
	fail "$1: bperf's bytes differ from perf's (one name a line above; the ends below)"
}

# dump_same NAME MODE...: the same bytes. Tracepoints come and go while other sessions add and
# remove probes (and perf 6.1, which counts them before it lists them, dies when they change in
# between): up to three tries, with perf's exit status 0.
dump_same() {
	local name=$1 try

	shift
	for try in 1 2 3; do
		perf_dump "$@" >"$tmp/$name.perf" 2>"$tmp/$name.perf.err" || continue
		bperf_dump "$@" >"$tmp/$name.bperf" 2>"$tmp/$name.bperf.err" ||
			fail "bperf list --raw-dump $*: exit $?"
		[ -s "$tmp/$name.bperf.err" ] && fail "$name: stderr: $(cat "$tmp/$name.bperf.err")"
		cmp -s "$tmp/$name.perf" "$tmp/$name.bperf" && return 0
	done
	same_bytes "$name" "$tmp/$name.perf" "$tmp/$name.bperf"
}

for mode in hw hardware sw software cache hwcache tracepoint pmu sdt; do
	check "$mode" dump_same "$mode" "$mode"
done
check two_modes dump_same two_modes sw pmu
check glob_cs dump_same glob_cs cs
check glob_tsc dump_same glob_tsc tsc
check glob_faults dump_same glob_faults faults
check glob_switch dump_same glob_switch 'sched_switch'
check glob_none dump_same glob_none nosuchevent
check sys_event dump_same sys_event 'sched:sched_s*'
check sys_pmu dump_same sys_pmu 'msr:*'

# the plain form is the modes in perf's order: hw, sw (with the tool events), cache, pmu,
# tracepoint, sdt, then the metric groups with their metrics (perf's `--raw-dump :`)
plain_is_modes() {
	local f try

	for try in 1 2 3; do
		for f in perf bperf; do
			"${f}_dump" >"$tmp/plain.$f" || fail "$f list --raw-dump: exit $?"
			{ "${f}_dump" hw; "${f}_dump" sw; "${f}_dump" cache; "${f}_dump" pmu
			  "${f}_dump" tracepoint; "${f}_dump" sdt; "${f}_dump" :; } >"$tmp/modes.$f"
		done
		cmp -s "$tmp/plain.perf" "$tmp/modes.perf" &&
			cmp -s "$tmp/plain.bperf" "$tmp/modes.bperf" && return 0
	done
	same_bytes "perf's plain --raw-dump and its modes" "$tmp/modes.perf" "$tmp/plain.perf"
	same_bytes "plain --raw-dump and the modes" "$tmp/modes.bperf" "$tmp/plain.bperf"
}
check plain_is_modes plain_is_modes

# ---- metrics ------------------------------------------------------------------------------------
# form FILE: the shape of a dump: each name N, each line's names one L ("L " when every name is
# followed by a blank), equal lines once, and how it ends (newline, no newline, or nothing)
form() {
	local end=empty

	[ -s "$1" ] && end=no-newline
	[ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && end=newline
	echo "$(sed -E 's/[^ ]+/N/g; s/N( N)*/L/g' "$1" | uniq | paste -sd '|')#$end"
}

# The CPUID of the first model of perf's own table with metric groups: its patterns, made literal.
table_cpuid() {
	local id

	command -v strings >/dev/null || return 1
	for id in $(strings "$PERF" | grep -E '^(GenuineIntel|AuthenticAMD)-[0-9]+-' |
		    sed -E -e 's/\[\[:xdigit:\]\]\+/1/g' -e 's/\(([^|)]+)[^)]*\)/\1/g' \
			-e 's/\[(.)[^]]*\]/\1/g' |
		    sort -u); do
		# perf wants vendor-family-model-stepping
		[[ $id =~ ^[A-Za-z]+-[0-9]+-[0-9A-F]+$ ]] && id=$id-0
		[[ $id =~ ^[A-Za-z]+-[0-9]+-[0-9A-F]+-[0-9A-F]+$ ]] || continue
		if [ -n "$(PERF_CPUID=$id "$PERF" list --raw-dump metricgroups 2>/dev/null)" ]; then
			echo "$id"
			return 0
		fi
	done
	return 1
}
MACHINE_CPUID=$("$PERF" stat -v -e cs true 2>&1 | sed -n 's/^Using CPUID //p')
TABLE_CPUID=$(table_cpuid) ||
	echo "note: no model of perf's table has metrics: forms from this machine only"
echo "perf's CPUID here: ${MACHINE_CPUID:-unknown}; a model with metrics: ${TABLE_CPUID:-none}"

# metric_form NAME MODE: bperf's form is perf's, with this machine's table when perf has one
# (else the end, when perf prints one without names), and with a table's
metric_form() {
	local name=$1 mode=$2 cpuid

	bperf_dump "$mode" >"$tmp/$name.bperf" || fail "bperf list --raw-dump $mode: exit $?"
	grep -q '[^ ]' "$tmp/$name.bperf" || fail "$name: no metrics"
	for cpuid in "$MACHINE_CPUID" $TABLE_CPUID; do
		[ -n "$cpuid" ] || continue
		CPUID=$cpuid perf_dump "$mode" >"$tmp/$name.perf" || fail "perf $mode: exit $?"
		if grep -q '[^ ]' "$tmp/$name.perf"; then
			assert_eq "$(form "$tmp/$name.perf")" "$(form "$tmp/$name.bperf")" \
				"$name: form with $cpuid's table"
		elif [ -s "$tmp/$name.perf" ]; then
			assert_eq "$(form "$tmp/$name.perf" | cut -d'#' -f2)" \
				"$(form "$tmp/$name.bperf" | cut -d'#' -f2)" \
				"$name: end with $cpuid"
		fi
	done
	return 0
}
for mode in metric metrics metricgroup metricgroups :; do
	check "form_$mode" metric_form "form_$mode" "$mode"
done
# the plain form ends as its metric groups do: with a table, a newline
plain_form() {
	[ -n "$TABLE_CPUID" ] || return 0
	CPUID=$TABLE_CPUID perf_dump >"$tmp/plain_form.perf"
	bperf_dump >"$tmp/plain_form.bperf"
	assert_eq "$(form "$tmp/plain_form.perf")" "$(form "$tmp/plain_form.bperf")" "plain form"
}
check plain_form plain_form

# The names are bperf's own: those `bperf list metrics` and `metricgroups` describe, each group
# with the metrics whose groups name it; a filter before ':' keeps the groups that contain it.
own_names() {
	local g

	# the table bperf_dump uses (none: bperf's built-ins), whatever this machine's CPU has
	PERF_CPUID=${CPUID:-$NO_TABLE} "$BPERF" list metrics | sed -n 's/^  \([^ ]*\)$/\1/p' |
		sort >"$tmp/own_metrics"
	bperf_dump metrics | tr ' ' '\n' | sort >"$tmp/dump_metrics"
	cmp -s "$tmp/own_metrics" "$tmp/dump_metrics" || fail "metrics: not bperf's table"
	PERF_CPUID=${CPUID:-$NO_TABLE} "$BPERF" list metricgroups | sed -n '/^[A-Za-z]/p' |
		grep -v '^Metric Groups:' >"$tmp/own_groups"
	bperf_dump metricgroups | tr ' ' '\n' | grep . >"$tmp/dump_groups"
	cmp -s "$tmp/own_groups" "$tmp/dump_groups" || fail "metricgroups: not bperf's groups"
	bperf_dump : | cut -d' ' -f1 >"$tmp/both_groups"
	cmp -s "$tmp/own_groups" "$tmp/both_groups" || fail "':': not bperf's groups"
	g=$(head -n 1 "$tmp/own_groups")
	assert_eq "$(bperf_dump : | grep "^$g ")" "$(bperf_dump "${g:1:3}:")" "'${g:1:3}:'"
}
check own_names own_names

# what the issue's script does: every name --raw-dump metrics prints is a metric -M takes, with
# bperf's built-ins and with this machine's table
every_metric_counts() {
	local m id

	for id in "$NO_TABLE" "$MACHINE_CPUID"; do
		for m in $(PERF_CPUID=$id "$BPERF" list --raw-dump metrics); do
			PERF_CPUID=$id "$BPERF" stat -M "$m" true >/dev/null 2>"$tmp/m.err" ||
				fail "-M $m ($id): exit $?: $(head -n 2 "$tmp/m.err")"
			! grep -q 'Cannot find metric' "$tmp/m.err" ||
				fail "-M $m ($id): $(head -n 1 "$tmp/m.err")"
		done
	done
}
check every_metric_counts every_metric_counts

# The human lists of metrics in perf's layout, names and descriptions masked
human_shape() {
	awk '/^$/ || /^Metrics:$/ || /^Metric Groups:$/ { print; next }
	     /^       \[.*\]$/ { next }
	     /^  [^ ]/ { print "  METRIC [DESC]"; next }
	     /:$/ { print "GROUP:"; next }
	     { print "GROUP" }' "$1" | uniq | paste -sd '|' |
		sed -E 's/(GROUP:\|(  METRIC \[DESC\]\|?)+)+/GROUP: METRICS.../g'
}
human_metrics() {
	local args=("$@")

	[ -n "$TABLE_CPUID" ] || return 0
	PERF_CPUID=$TABLE_CPUID "$PERF" --buildid-dir "$tmp/no-cache" list "${args[@]}" \
		>"$tmp/human.perf" || fail "perf list ${args[*]}: exit $?"
	"$BPERF" list "${args[@]}" >"$tmp/human.bperf" || fail "bperf list: exit $?"
	if [ "${#args[@]}" -eq 0 ]; then
		sed -i -n '/^Metric Groups:$/,$p' "$tmp/human.perf" "$tmp/human.bperf"
	fi
	assert_eq "$(human_shape "$tmp/human.perf")" "$(human_shape "$tmp/human.bperf")" \
		"list ${args[*]}: layout"
}
check human_metrics human_metrics metrics
check human_metricgroups human_metrics metricgroups
check human_all_metrics human_metrics

# ---- PMU aliases on fake PMUs -------------------------------------------------------------------
devices=/sys/bus/event_source/devices
# PMUs of the software PMU's type, one format term, aliases event=0x00
fake_pmus() {
	local fake=$tmp/devices sw

	sw=$(cat "$devices/software/type")
	fake_pmus_init "$fake" &&
	fake_pmu_spec "$fake" cpu "$sw" event=config:0-63 cpu-cycles=event=0x00 \
		instructions=event=0x00 branch-misses=event=0x00 &&
	fake_pmu_spec "$fake" uncore_imc_0 "$sw" event=config:0-63 cas_count_read=event=0x00 &&
	fake_pmu_spec "$fake" uncore_imc_1 "$sw" event=config:0-63 cas_count_read=event=0x00 &&
	fake_pmu_spec "$fake" amd_df "$sw" event=config:0-63 remote_reads=event=0x00 &&
	fake_pmu_spec "$fake" intel_bts "$sw" event=config:0-63 &&
	fake_pmus_mount "$fake"
}
if [ -n "${BPERF_LIST_NS:-}" ] && [ -r "$devices/software/type" ] && fake_pmus 2>/dev/null; then
	check fake_pmu dump_same fake_pmu pmu
	check fake_glob dump_same fake_glob 'cycles'
	check fake_glob_alias dump_same fake_glob_alias 'cas_*'
	check fake_glob_pmu dump_same fake_glob_pmu 'intel_*'
	fake_human() {
		PERF_CPUID=$NO_TABLE "$PERF" list pmu >"$tmp/fake_human.perf" ||
			fail "perf: exit $?"
		PERF_CPUID=$NO_TABLE "$BPERF" list pmu >"$tmp/fake_human.bperf" ||
			fail "bperf: exit $?"
		same_bytes fake_human "$tmp/fake_human.perf" "$tmp/fake_human.bperf"
	}
	check fake_human fake_human
	umount "$devices"
else
	echo "note: no private mount namespace: fake PMU cases left out"
fi

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
