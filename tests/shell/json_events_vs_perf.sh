#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf 6.1's table events (vendor names such as inst_retired.any) side by side with perf, for
# several CPU models chosen with PERF_CPUID. In a private mount namespace a fake core `cpu` PMU
# of type 4 (PERF_TYPE_RAW: this machine has no hardware PMU, so opens fail as perf's do) with
# the Intel or AMD driver's format files, two fake uncore_imc instances and an uncore_cha
# (Intel), or fake hybrid cpu_core/cpu_atom PMUs (alderlake) are bound over the devices
# directory; Intel's core PMUs carry sysfs event aliases, one of them also a table event (merged
# as perf merges them). For each model, events are picked from perf's own `perf list --raw-dump
# pmu` (every k-th word, JSON_EVENTS_N per model, default 10; JSON_EVENTS_ALL=1 takes them all)
# plus the spellings perf users write (upper case, modifiers, pmu/alias,terms/, name=,
# metric-id=); for each, `stat -vv -e EVENT true` of both tools must give the same
# perf_event_attr blocks (tests/attr_blocks.awk), the same "Attempting to add", "After aliases",
# "alias X differs" and "X -> pmu/terms/" lines, the same event names on the count lines and the
# same exit status. Then `list pmu` in every layout (-v, --details, --deprecated, --no-desc,
# COLUMNS, --cputype) and globs on names, uncore aliases and topics, byte for byte. Last, real
# counts on PMUs with msr's type (table events then count the TSC), against msr/tsc/.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"
require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -r /sys/bus/event_source/devices/msr/type ] || skip "needs the msr PMU"
. "$(dirname "$0")/../fake_pmus.sh"
fake_pmus_enter_ns "$0" "$@"
cd "$REPO_TOP" || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fake=$tmp/devices
fake_pmus_init "$fake" || fail "cannot build the fake devices directory"
fake_pmus_mount "$fake" || skip "cannot bind a fake PMU directory"
msr_type=$(cat "$fake/msr/type")

# the fake PMUs of one model: core PMUs of KIND (intel, amd, hybrid), Intel's uncore ones
set_pmus() {
	rm -rf "${fake:?}/cpu" "$fake/cpu_core" "$fake/cpu_atom" "$fake"/uncore_*
	case $1 in
	msr)
		fake_pmu_core "$fake" cpu "$msr_type" msr
		fake_pmu_uncore "$fake" uncore_imc_0 "$msr_type" msr
		fake_pmu_uncore "$fake" uncore_imc_1 "$msr_type" msr ;;
	hybrid)
		fake_pmu_core "$fake" cpu_core "$msr_type" msr 0
		fake_pmu_core "$fake" cpu_atom "$msr_type" msr 1
		fake_pmu_core_events "$fake" cpu_core
		fake_pmu_core_events "$fake" cpu_atom ;;
	*)
		fake_pmu_core "$fake" cpu 4 "$1" ;;
	esac
	[ "$1" = intel ] && fake_pmu_core_events "$fake" cpu
	if [ "$1" = intel ]; then
		fake_pmu_uncore "$fake" uncore_imc_0 "$msr_type"
		fake_pmu_uncore "$fake" uncore_imc_1 "$msr_type"
		fake_pmu_uncore "$fake" uncore_cha_0 "$msr_type"
	fi
}

# what both tools print of an event at -vv that this test compares
debug_lines() {
	grep -E '^(Attempting to add|After aliases|alias .* differs in field)|^[^ ]+ -> [^ ]+/.*/$' \
		"$1"
}
count_names() {
	grep -E '^ +([0-9.,]+|<not supported>|<not counted>) ' "$1" | grep -v ' seconds ' |
		sed -E 's/^ +([0-9.,]+|<not supported>|<not counted>) +(msec |ns +)?//; s/ +#.*//;
			s/ +$//'
}

total=0
failed=0
check_event() {
	local id=$1 ev=$2 prc brc what

	total=$((total + 1))
	PERF_CPUID=$id "$PERF" stat -vv -e "$ev" true >/dev/null 2>"$tmp/p"
	prc=$?
	PERF_CPUID=$id "$BPERF" stat -vv -e "$ev" true >/dev/null 2>"$tmp/b"
	brc=$?
	for what in attrs debug names; do
		case $what in
		attrs)
			awk -f tests/attr_blocks.awk "$tmp/p" >"$tmp/p.$what"
			awk -f tests/attr_blocks.awk "$tmp/b" >"$tmp/b.$what" ;;
		debug)
			debug_lines "$tmp/p" >"$tmp/p.$what"
			debug_lines "$tmp/b" >"$tmp/b.$what" ;;
		names)
			count_names "$tmp/p" >"$tmp/p.$what"
			count_names "$tmp/b" >"$tmp/b.$what" ;;
		esac
		if ! cmp -s "$tmp/p.$what" "$tmp/b.$what"; then
			echo "$id -e '$ev': $what differ from perf's:"
			diff "$tmp/p.$what" "$tmp/b.$what" | head -20
			failed=$((failed + 1))
			return
		fi
	done
	if [ "$prc" != "$brc" ]; then
		echo "$id -e '$ev': exit status $brc, perf's $prc"
		failed=$((failed + 1))
	fi
}

# every k-th word of perf's --raw-dump pmu, for about JSON_EVENTS_N of them
sample_events() {
	local n=${JSON_EVENTS_N:-10}

	PERF_CPUID=$1 "$PERF" list --raw-dump pmu | tr ' ' '\n' | grep -v '^$' >"$tmp/words"
	[ -s "$tmp/words" ] || fail "$1: perf lists no PMU event"
	if [ -n "${JSON_EVENTS_ALL:-}" ]; then
		cat "$tmp/words"
	else
		awk -v n="$n" -v all="$(wc -l <"$tmp/words")" \
			'BEGIN { k = int(all / n); if (k < 1) k = 1 } (NR - 1) % k == 0' "$tmp/words"
	fi
}

# `list ARGS` of both tools, byte for byte, and their exit status
lists=0
check_list() {
	local id=$1 prc brc

	shift
	lists=$((lists + 1))
	PERF_CPUID=$id "$PERF" list "$@" >"$tmp/lp" 2>&1
	prc=$?
	PERF_CPUID=$id "$BPERF" list "$@" >"$tmp/lb" 2>&1
	brc=$?
	if ! cmp -s "$tmp/lp" "$tmp/lb" || [ "$prc" != "$brc" ]; then
		echo "$id list $*: differs from perf's (exit $brc, perf's $prc):"
		diff "$tmp/lp" "$tmp/lb" | head -20
		failed=$((failed + 1))
	fi
}

# the PMU section in every layout, and globs on names, bare uncore names and topics
check_lists() {
	local id=$1 args

	shift
	for args in pmu "--raw-dump pmu" "-v pmu" "--long-desc pmu" "--details pmu" \
		    "--deprecated pmu" "--no-desc pmu" "-d pmu" "$@"; do
		# shellcheck disable=SC2086
		check_list "$id" $args
	done
	COLUMNS=60 check_list "$id" pmu
	COLUMNS=200 check_list "$id" -v pmu
}

# the spellings users write: case, modifiers, pmu/alias/, terms after the alias, metric-id=
INTEL_SPELLINGS='l1d.replacement
cpu/L1D.replacement,cmask=2/
mem-loads
cpu-cycles
INST_RETIRED.ANY
inst_retired.any:u
cpu/inst_retired.any/
cpu/INST_RETIRED.ANY,name=foo/k
cpu/uops_executed.core,cmask=1/
INST_RETIRED.ANY/metric-id=INST_RETIRED.ANY/
mem_load_retired.l1_hit:pp
{inst_retired.any,br_misp_retired.all_branches}:u
inst_retired.any,TSC'
AMD_SPELLINGS='EX_RET_BRN_MISP
ex_ret_brn_misp:k
cpu/ex_ret_brn_misp,name=m/
{ex_ret_brn_misp,ex_ret_instr}'

# model ID KIND SPELLINGS LIST_ARGS...
model() {
	local id=$1 kind=$2 spellings=$3 before=$total fails=$failed lists_before=$lists ev

	shift 3
	set_pmus "$kind"
	while read -r ev; do
		check_event "$id" "$ev"
	done < <(sample_events "$id"; [ -z "$spellings" ] || echo "$spellings")
	check_lists "$id" "$@"
	echo "$id: $((total - before)) events, $((lists - lists_before)) lists," \
		"$((failed - fails)) differ"
}

# globs read every section (tracepoints too): the slow ones on one model only
model GenuineIntel-6-55-4 intel "$INTEL_SPELLINGS" inst_retired unc_m_cas pipeline "l1d*"
model GenuineIntel-6-55-7 intel "$INTEL_SPELLINGS" inst_retired
model GenuineIntel-6-8F-8 intel "$INTEL_SPELLINGS" unc_m_cas
model AuthenticAMD-25-11-1 amd "$AMD_SPELLINGS" ex_ret "l2_request_g1*"
model AuthenticAMD-23-1-2 amd "" ex_ret
model GenuineIntel-6-97-2 hybrid "inst_retired.any
cpu_core/inst_retired.any/
INST_RETIRED.ANY:u" "--cputype core pmu" "--cputype atom pmu" "--cputype=atom --raw-dump pmu" \
	"--cputype foo pmu"

# Counts, on PMUs with msr's type whose terms all land in config1/2 (config 0: the TSC): a core
# table event counts what msr/tsc/ counts, and an uncore one, opened on CPU 0 in each of the two
# instances, twice CPU 0's TSC (each within 2% of the same run's msr/tsc/).
counts() {
	local id=GenuineIntel-6-55-4 out core tsc unc tsc0

	set_pmus msr
	out=$(PERF_CPUID=$id "$BPERF" stat -x, -a -A -e inst_retired.any,msr/tsc/,unc_m_cas_count.rd \
		-- sleep 0.2 2>&1) || { echo "counts: bperf failed: $out"; failed=$((failed + 1)); return; }
	core=$(echo "$out" | awk -F, '$4 == "inst_retired.any" { s += $2 } END { print s + 0 }')
	tsc=$(echo "$out" | awk -F, '$4 == "msr/tsc/" { s += $2 } END { print s + 0 }')
	tsc0=$(echo "$out" | awk -F, '$1 == "CPU0" && $4 == "msr/tsc/" { print $2 }')
	unc=$(echo "$out" | awk -F, '$1 == "CPU0" && $4 == "unc_m_cas_count.rd" { print $2 }')
	if ! awk -v a="$core" -v b="$tsc" -v u="$unc" -v t0="$tsc0" 'BEGIN {
		exit !(b > 0 && t0 > 0 && a / b > 0.98 && a / b < 1.02 &&
		       u / (2 * t0) > 0.98 && u / (2 * t0) < 1.02) }'; then
		echo "counts: inst_retired.any $core, msr/tsc/ $tsc; unc_m_cas_count.rd $unc on CPU 0," \
			"expected twice CPU 0's TSC $tsc0:"
		echo "$out"
		failed=$((failed + 1))
		return
	fi
	echo "counts: inst_retired.any $core = msr/tsc/ $tsc, unc_m_cas_count.rd $unc = 2 x $tsc0" \
		"(within 2%)"
}
counts

echo "$total events and $lists lists compared, $failed differ"
[ "$failed" -eq 0 ]
