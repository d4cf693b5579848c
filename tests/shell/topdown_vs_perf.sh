#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# --topdown, --td-level and the topdown metrics side by side with perf 6.1, on fake `cpu` PMUs in
# a private mount namespace whose sysfs events/ are those of real machines (the kernel's
# arch/x86/events/intel/core.c encodings):
# - skl: Skylake's topdown-total-slots, -slots-issued, -slots-retired, -fetch-bubbles and
#   -recovery-bubbles (.scale 2, as with SMT): --topdown needs -a and counts per core;
# - icl: Icelake's slots and topdown-retiring, -bad-spec, -fe-bound, -be-bound (level 1);
# - spr: Sapphire Rapids' level 2 too (topdown-heavy-ops, -br-mispredict, -fetch-lat,
#   -mem-bound);
# - slm: Silvermont's older events without topdown-recovery-bubbles;
# - none: a cpu PMU without topdown events;
# - adl: hybrid cpu_core (Sapphire Rapids' events) and cpu_atom (none): cpu_core's, with perf's
#   warning (or --cputype's PMU).
# The PMUs have the msr PMU's type and their format terms in config1, so every event counts TSC
# ticks: opens succeed, and the metrics are real. perf's and bperf's outputs (stdout, stderr, exit
# status) must be equal with numbers masked (a number and the blanks before it by their length,
# so that column widths still count: perf widens a coloured --metric-only cell). -vv's attrs must
# be equal, with the msr type and with type 4 (PERF_TYPE_RAW, which perf takes for a core PMU with
# perf metrics: slots then leads topdown groups and the default events end with the topdown group;
# opens fail here). The printed metrics are recomputed from the printed counts (-x,).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
require_cmd perl
unshare -m true 2>/dev/null || skip "needs unshare -m"
if [ -z "${BPERF_TOPDOWN_NS:-}" ]; then
	BPERF_TOPDOWN_NS=1 exec unshare -m bash "$0" "$@"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
devices=/sys/bus/event_source/devices
[ -r $devices/msr/type ] || skip "needs the msr PMU"
msr_type=$(cat $devices/msr/type)
real_pmus=()
for pmu in "$devices"/*; do
	case ${pmu##*/} in cpu | cpu_core | cpu_atom) ;; *) real_pmus+=("${pmu##*/}") ;; esac
done
watchdog=/proc/sys/kernel/nmi_watchdog
[ -e $watchdog ] || skip "needs $watchdog"

. "$(dirname "$0")/../side_lib.sh"

# core_pmu DIR TYPE MODEL [CPUS]: a core PMU with MODEL's topdown events (a hybrid one: CPUS)
core_pmu() {
	local dir=$1 type=$2 model=$3 e word=config1

	mkdir -p "$dir/format" "$dir/events"
	[ -n "${4:-}" ] && echo "$4" >"$dir/cpus"
	if [ "$type" = msr ]; then
		echo "$msr_type" >"$dir/type"
	else
		echo "$type" >"$dir/type"
		word=config
	fi
	echo "$word:0-7" >"$dir/format/event"
	echo "$word:8-15" >"$dir/format/umask"
	echo "$word:18" >"$dir/format/edge"
	echo "$word:21" >"$dir/format/any"
	echo "$word:23" >"$dir/format/inv"
	echo "$word:24-31" >"$dir/format/cmask"
	e=$dir/events
	case $model in
	skl)
		echo event=0x3c,umask=0x0,any=1 >"$e/topdown-total-slots"
		echo 2 >"$e/topdown-total-slots.scale"
		echo event=0xe,umask=0x1 >"$e/topdown-slots-issued"
		echo event=0xc2,umask=0x2 >"$e/topdown-slots-retired"
		echo event=0x9c,umask=0x1 >"$e/topdown-fetch-bubbles"
		echo event=0xd,umask=0x3,cmask=1,any=1 >"$e/topdown-recovery-bubbles"
		echo 2 >"$e/topdown-recovery-bubbles.scale"
		;;
	slm)
		echo event=0x3c >"$e/topdown-total-slots"
		echo 2 >"$e/topdown-total-slots.scale"
		echo event=0xca,umask=0x50 >"$e/topdown-fetch-bubbles"
		echo 2 >"$e/topdown-fetch-bubbles.scale"
		echo event=0xc2,umask=0x10 >"$e/topdown-slots-issued"
		echo event=0xc2,umask=0x10 >"$e/topdown-slots-retired"
		;;
	icl | spr)
		echo event=0x00,umask=0x4 >"$e/slots"
		echo event=0x00,umask=0x80 >"$e/topdown-retiring"
		echo event=0x00,umask=0x81 >"$e/topdown-bad-spec"
		echo event=0x00,umask=0x82 >"$e/topdown-fe-bound"
		echo event=0x00,umask=0x83 >"$e/topdown-be-bound"
		;;
	esac
	if [ "$model" = spr ]; then
		echo event=0x00,umask=0x84 >"$e/topdown-heavy-ops"
		echo event=0x00,umask=0x85 >"$e/topdown-br-mispredict"
		echo event=0x00,umask=0x86 >"$e/topdown-fetch-lat"
		echo event=0x00,umask=0x87 >"$e/topdown-mem-bound"
	fi
}

# fake_cpu MODEL TYPE WATCHDOG: the devices directory with a fake cpu PMU of TYPE ("msr" for the
# msr PMU's, or a number) and MODEL's topdown events; nmi_watchdog reads WATCHDOG.
fake_cpu() {
	local model=$1 type=$2 dir=$tmp/devices-$1-$2 pmu

	umount $devices 2>/dev/null
	umount $watchdog 2>/dev/null
	echo "$3" >"$tmp/nmi_watchdog"
	mount --bind "$tmp/nmi_watchdog" $watchdog || fail "cannot bind $watchdog"
	if [ ! -d "$dir" ]; then
		mkdir "$dir"
		for pmu in "${real_pmus[@]}"; do
			ln -s "$(readlink -f "$devices/$pmu")" "$dir/$pmu"
		done
		if [ "$model" = adl ]; then
			# hybrid: the P-cores' PMU has Sapphire Rapids' events, the E-cores' none
			core_pmu "$dir/cpu_core" "$type" spr 0
			core_pmu "$dir/cpu_atom" "$type" none 1
		else
			core_pmu "$dir/cpu" "$type" "$model"
		fi
	fi
	mount --bind "$dir" $devices || fail "cannot bind the fake devices"
}

# mask KIND < OUTPUT: numbers masked. std: a number with the blanks before it becomes its length
# (alignment and cell widths still compared); csv/json: N, an empty cell N too (a share that
# rounds to -0.0 prints empty, one that rounds to 0.0 does not). A rate's K/M/G follows its value
# (`true` switches once in one run and not in the other beside another test): /sec, its width kept.
mask() {
	case $1 in
	std) perl -pe 's/ *-?\d[\d.]*/"<" . length($&) . ">"/ge; s{[KMG]/sec}{/sec }g' ;;
	csv) perl -pe 's/-?\d[\d.]*/N/g; 1 while s/,,/,N,/; s/,$/,N/; s{[KMG]/sec}{/sec}g' ;;
	json) perl -pe 's/-?\d[\d.]*/N/g; s/"metric-value" : ""/"metric-value" : "N"/g;
		s{[KMG]/sec}{/sec}g' ;;
	esac
}

# same KIND OPTS...: perf stat OPTS and bperf stat OPTS, exit status and masked outputs equal
same() {
	local kind=$1 prc brc s

	shift
	"$PERF" stat "$@" >"$tmp/p.out" 2>"$tmp/p.err"
	prc=$?
	"$BPERF" stat "$@" >"$tmp/b.out" 2>"$tmp/b.err"
	brc=$?
	[ "$prc" = "$brc" ] || fail "exit status: perf $prc, bperf $brc ($(head -3 "$tmp/b.err"))"
	for s in out err; do
		mask "$kind" <"$tmp/p.$s" >"$tmp/p.$s.m"
		mask "$kind" <"$tmp/b.$s" >"$tmp/b.$s.m"
		diff -u "$tmp/p.$s.m" "$tmp/b.$s.m" >&2 || fail "std$s differs"
	done
}

# same_attrs MIN OPTS...: -vv's attr blocks equal, at least MIN of them
same_attrs() {
	local min=$1 n

	shift
	"$PERF" stat -vv "$@" 2>&1 | awk -f "$REPO_TOP/tests/attr_blocks.awk" >"$tmp/p.attrs"
	"$BPERF" stat -vv "$@" 2>&1 | awk -f "$REPO_TOP/tests/attr_blocks.awk" >"$tmp/b.attrs"
	diff -u "$tmp/p.attrs" "$tmp/b.attrs" >&2 || fail "attrs differ"
	n=$(grep -c '^--$' "$tmp/p.attrs")
	[ "$n" -ge "$min" ] || fail "perf opened $n events, expected at least $min"
}

# metric_values TOOL OPTS...: the metrics TOOL printed with -x, --no-metric-only, recomputed from
# its printed counts as perf's stat-shadow.c defines them (to 0.05: the printed precision)
metric_values() {
	local tool=$1

	shift
	"$tool" stat -x, --no-metric-only "$@" 2>"$tmp/mv.csv" >/dev/null ||
		fail "$tool stat $* failed"
	awk -F, '
	# per core (--topdown on the older events): the core and its CPUs come first
	{ a = ""; o = 0 }
	/^S[0-9]+-D[0-9]+-C[0-9]+,/ { a = $1; o = 2 }
	$(1 + o) ~ /^[0-9]/ {
		aggs[a] = 1
		ev = $(3 + o)		# "cpu_core/topdown-retiring/" is topdown-retiring
		sub(/^[a-z_]+\//, "", ev)
		sub(/\/$/, "", ev)
		c[a, ev] = $(1 + o)
		for (i = 6 + o; i + 1 <= NF; i += 2)
			if ($i != "")
				m[a, ev, $(i + 1)] = $i
	}
	function near(ev, unit, want) {
		if (!((a, ev, unit) in m))
			return
		checked++
		if (m[a, ev, unit] - want > 0.051 || want - m[a, ev, unit] > 0.051) {
			printf "%s %s %s: printed %s, counts give %.3f\n", a, ev, unit,
			       m[a, ev, unit], want
			bad = 1
		}
	}
	function v(ev) { return c[a, ev] }
	END {
		for (a in aggs) {
			t = v("topdown-total-slots")
			if (t) {
				bs = (v("topdown-slots-issued") - v("topdown-slots-retired") + \
				      v("topdown-recovery-bubbles")) / t
				if (bs < 0 && bs >= -0.02) bs = 0
				near("topdown-slots-retired", "retiring",
				     100 * v("topdown-slots-retired") / t)
				near("topdown-fetch-bubbles", "frontend bound",
				     100 * v("topdown-fetch-bubbles") / t)
				near("topdown-recovery-bubbles", "bad speculation", 100 * bs)
				be = 1 - bs - (v("topdown-slots-retired") + \
					       v("topdown-fetch-bubbles")) / t
				if (be < 0 && be >= -0.02) be = 0
				near("topdown-slots-issued", "backend bound", 100 * be)
				near("topdown-slots-issued", "backend bound/bad spec", 100 * be)
			}
			s = v("topdown-retiring") + v("topdown-bad-spec") + v("topdown-fe-bound") + \
			    v("topdown-be-bound")
			if (!s)
				continue
			near("topdown-retiring", "Retiring", 100 * v("topdown-retiring") / s)
			near("topdown-bad-spec", "Bad Speculation", 100 * v("topdown-bad-spec") / s)
			near("topdown-fe-bound", "Frontend Bound", 100 * v("topdown-fe-bound") / s)
			near("topdown-be-bound", "Backend Bound", 100 * v("topdown-be-bound") / s)
			near("topdown-heavy-ops", "Heavy Operations", 100 * v("topdown-heavy-ops") / s)
			near("topdown-heavy-ops", "Light Operations",
			     100 * (v("topdown-retiring") - v("topdown-heavy-ops")) / s)
			near("topdown-br-mispredict", "Branch Mispredict",
			     100 * v("topdown-br-mispredict") / s)
			near("topdown-br-mispredict", "Machine Clears",
			     100 * (v("topdown-bad-spec") - v("topdown-br-mispredict")) / s)
			near("topdown-fetch-lat", "Fetch Latency", 100 * v("topdown-fetch-lat") / s)
			near("topdown-fetch-lat", "Fetch Bandwidth",
			     100 * (v("topdown-fe-bound") - v("topdown-fetch-lat")) / s)
			near("topdown-mem-bound", "Memory Bound", 100 * v("topdown-mem-bound") / s)
			near("topdown-mem-bound", "Core Bound",
			     100 * (v("topdown-be-bound") - v("topdown-mem-bound")) / s)
		}
		if (!checked) { print "no topdown metric printed"; bad = 1 }
		exit bad
	}' "$tmp/mv.csv" >&2 || fail "metric values"
}

both_values() {
	metric_values "$PERF" "$@"
	metric_values "$BPERF" "$@"
}

W=(sleep 1)	# a workload outliving two 100 ms intervals
for model in skl icl spr none; do
	fake_cpu $model msr 0
	check "$model topdown -a" same std --topdown -a true
	check "$model topdown" same std --topdown true
	check "$model topdown -C" same std --topdown -C 0 true
	check "$model topdown -A" same std --topdown -a -A true
	check "$model topdown per-core" same std --topdown -a --per-core true
	check "$model topdown per-socket" same std --topdown -a --per-socket true
	check "$model topdown no-metric-only" same std --topdown -a --no-metric-only true
	check "$model topdown metric-only" same std --topdown -a --metric-only true
	check "$model td-level 0" same std --topdown --td-level 0 -a true
	check "$model td-level 1" same std --topdown --td-level 1 -a true
	check "$model td-level 2" same std --topdown --td-level 2 -a true
	check "$model td-level 3" same std --topdown --td-level 3 -a true
	check "$model td-level 1 no-metric-only" same std --topdown --td-level 1 -a \
		--no-metric-only true
	check "$model topdown -e" same std --topdown -a -e task-clock true
	check "$model topdown -I" same std --topdown -a -I 100 --interval-count 2 "${W[@]}"
	check "$model topdown -I no-metric-only" same std --topdown -a -I 100 \
		--interval-count 1 --no-metric-only "${W[@]}"
	# (perf writes its -o header before it refuses --topdown, bperf opens -o later)
	[ $model != none ] && check "$model topdown -o" same std --topdown -a --no-metric-only -o /dev/stdout true
	check "$model topdown -x" same csv --topdown -a -x, true
	check "$model topdown -x -A" same csv --topdown -a -x, -A true
	check "$model topdown -x no-metric-only" same csv --topdown -a -x, --no-metric-only true
	check "$model topdown -x -I" same csv --topdown -a -x, -I 100 --interval-count 2 "${W[@]}"
	check "$model topdown -j" same json --topdown -a -j true
	check "$model topdown -j no-metric-only" same json --topdown -a -j --no-metric-only true
	check "$model topdown -j -I" same json --topdown -a -j -I 100 --interval-count 2 "${W[@]}"
	check "$model smi-cost first" same std --smi-cost --topdown -a true
	check "$model attrs" same_attrs 0 --topdown -a true
	case $model in
	skl)
		events=topdown-total-slots,topdown-slots-issued,topdown-slots-retired
		events+=,topdown-fetch-bubbles,topdown-recovery-bubbles
		check "$model attrs count" same_attrs 5 --topdown -a true
		check "$model values" both_values --topdown -a true
		check "$model values -e" both_values -a -e "{$events}" true
		;;
	icl | spr)
		events=slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound
		[ $model = spr ] && events+=,topdown-heavy-ops,topdown-br-mispredict
		[ $model = spr ] && events+=,topdown-fetch-lat,topdown-mem-bound
		check "$model attrs count" same_attrs 5 --topdown -a true
		check "$model values" both_values --topdown -a true
		check "$model values workload" both_values --topdown true
		check "$model values -e" both_values -e "{$events}" true
		;;
	esac
	[ $model = none ] && continue
	check "$model -e" same std -a -e "{$events}" true
	check "$model -e td-level 1" same std --td-level 1 -a -e "{$events}" true
	check "$model -e -x" same csv -x, -a -e "{$events}" true
	check "$model default events" same std true
	check "$model -e topdown reversed" same_attrs 1 -e "{${events#*,},${events%%,*}}" true
done

# Silvermont: no topdown-recovery-bubbles, so perf's backend bound says "backend bound/bad spec"
fake_cpu slm msr 0
check "slm topdown" same std --topdown -a true
check "slm topdown no-metric-only" same std --topdown -a --no-metric-only true
check "slm topdown -x" same csv --topdown -a -x, true
check "slm attrs" same_attrs 4 --topdown -a true
check "slm values" both_values --topdown -a true

# events named with their PMU are topdown events too
fake_cpu icl msr 0
check "icl pmu/event/" same std -a -e cpu/slots/,cpu/topdown-retiring/,cpu/topdown-bad-spec/ \
	-e topdown-fe-bound,cpu/topdown-be-bound/ true
check "icl pmu/event/ values" both_values -a -e cpu/topdown-retiring/,cpu/topdown-bad-spec/ \
	-e cpu/topdown-fe-bound/,cpu/topdown-be-bound/ true

# hybrid: cpu_core's events, with perf's warning
fake_cpu adl msr 0
check "adl topdown" same std --topdown -a true
check "adl topdown no-metric-only" same std --topdown -a --no-metric-only true
check "adl topdown cputype" same std --topdown --cputype core -a true
check "adl attrs" same_attrs 9 --topdown -a true
check "adl values" both_values --topdown -a true

# a watchdog holds a counter: the older events go ungrouped, with perf's warning
fake_cpu skl msr 1
check "skl watchdog" same std --topdown -a true
check "skl watchdog attrs" same_attrs 5 --topdown -a true
fake_cpu icl msr 1
check "icl watchdog" same std --topdown -a true

# a core PMU of type 4 (PERF_TYPE_RAW): perf's perf-metrics rules (no such PMU here: opens fail)
for model in skl icl spr; do
	fake_cpu $model 4 0
	check "$model raw topdown" same std --topdown -a true
	check "$model raw attrs" same_attrs 1 --topdown -a true
	check "$model raw default events" same std true
	check "$model raw default attrs" same_attrs 1 true
	[ $model = skl ] && continue
	check "$model raw slots leads" same std -e '{topdown-retiring,topdown-fe-bound,slots}' true
	check "$model raw slots leads attrs" same_attrs 1 -e '{topdown-retiring,slots}:u' true
done

# perf 6.1 crashes printing the -A JSON header of --topdown (a NULL unit): bperf names the units
fake_cpu icl msr 0
out=$("$BPERF" stat --topdown -a -A -j true 2>&1) || failed_cases+=("icl -A -j: bperf failed")
[[ $out == *'"unit" : "Retiring", "unit" : "Bad Speculation"'* ]] ||
	failed_cases+=("icl -A -j: header: $out")
nr_cases=$((nr_cases + 1))

umount $devices
umount $watchdog
[ ${#failed_cases[@]} -eq 0 ] || fail "${#failed_cases[@]} of $nr_cases cases: ${failed_cases[*]}"
echo "$nr_cases cases"
