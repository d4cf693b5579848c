#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Topology and hybrid machines that this VM is not, through fake sysfs trees (BPERF_SYSFS_ROOT,
# for tests only). The counts come from the VM's two real CPUs, which the fake trees place in the
# described machine; the expected labels and CPU-count columns are written from perf-stat(1)'s
# rules (one line per socket "S0", per (socket, die) "S0-D0", per (socket, die, core)
# "S0-D0-C0", per node "N0", each followed by how many of the counted CPUs it holds; the percore
# term sums a core's hardware threads). The whole 16-CPU layout is in tests/unit/test_topology.c.
#
# Machine 1: 2 sockets x 2 dies x 2 cores x 2 threads, 16 CPUs, NUMA node = socket, in two
# numberings: "interleaved" (cpuN: socket N%2, die N/2%2, core N/4%2, thread N/8), which puts
# the real CPUs 0 and 1 on different sockets, and "siblings" (thread N%2, core N/2%2, die N/4%2,
# socket N/8), which makes them the two threads of core S0-D0-C0.
# Machine 2: hybrid, cpu_core PMU on CPU 0, cpu_atom PMU on CPU 1.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
[ "$(cat /sys/devices/system/cpu/online)" = 0-1 ] || skip "needs exactly CPUs 0-1 online"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PT=$WORKLOADS/pagetouch
SLEEP=$WORKLOADS/sleeper
nfail=0

case_fail() {
	echo "FAIL: $*" >&2
	nfail=$((nfail + 1))
}

put() {
	mkdir -p "$(dirname "$1")"
	printf '%s\n' "$2" >"$1"
}

# make_smt_tree DIR interleaved|siblings
make_smt_tree() {
	local root=$1 order=$2 cpu s d c t sib node0="" node1=""

	for cpu in $(seq 0 15); do
		if [ "$order" = interleaved ]; then
			s=$((cpu % 2)) d=$((cpu / 2 % 2)) c=$((cpu / 4 % 2)) t=$((cpu / 8))
			sib="$((cpu % 8)),$((cpu % 8 + 8))"
		else
			s=$((cpu / 8)) d=$((cpu / 4 % 2)) c=$((cpu / 2 % 2)) t=$((cpu % 2))
			sib="$((cpu - t))-$((cpu - t + 1))"
		fi
		put "$root/devices/system/cpu/cpu$cpu/topology/physical_package_id" $s
		put "$root/devices/system/cpu/cpu$cpu/topology/die_id" $d
		put "$root/devices/system/cpu/cpu$cpu/topology/core_id" $c
		put "$root/devices/system/cpu/cpu$cpu/topology/thread_siblings_list" "$sib"
		if [ $s = 0 ]; then node0+=${node0:+,}$cpu; else node1+=${node1:+,}$cpu; fi
	done
	put "$root/devices/system/node/node0/cpulist" "$node0"
	put "$root/devices/system/node/node1/cpulist" "$node1"
	# the PMUs the tests use, as the kernel describes them
	put "$root/bus/event_source/devices/software/type" 1
	put "$root/bus/event_source/devices/msr/type" \
		"$(cat /sys/bus/event_source/devices/msr/type)"
	put "$root/bus/event_source/devices/msr/format/event" config:0-63
	put "$root/bus/event_source/devices/msr/events/tsc" event=0x00
}

# make_hybrid_tree DIR [TYPE]: cpu_core (type 8, or TYPE) on CPU 0, cpu_atom (9, or TYPE) on
# CPU 1. With TYPE the msr PMU's real type, a raw event on either PMU counts the TSC of its CPU,
# so the hybrid rules (each copy on its PMU's CPUs, --hybrid-merge's sum) show in real counts.
make_hybrid_tree() {
	local root=$1 pmu type cpus

	for pmu in "cpu_core:${2:-8}:0" "cpu_atom:${2:-9}:1"; do
		IFS=: read -r pmu type cpus <<<"$pmu"
		put "$root/bus/event_source/devices/$pmu/type" "$type"
		put "$root/bus/event_source/devices/$pmu/cpus" "$cpus"
		put "$root/bus/event_source/devices/$pmu/format/event" config:0-7
		put "$root/bus/event_source/devices/$pmu/format/umask" config:8-15
		put "$root/bus/event_source/devices/$pmu/events/cpu-cycles" event=0x3c
		put "$root/devices/system/cpu/cpu$cpus/topology/physical_package_id" 0
		put "$root/devices/system/cpu/cpu$cpus/topology/die_id" 0
		put "$root/devices/system/cpu/cpu$cpus/topology/core_id" "$cpus"
	done
	put "$root/bus/event_source/devices/software/type" 1
	put "$root/devices/system/node/node0/cpulist" 0-1
	if [ -n "$2" ]; then
		put "$root/bus/event_source/devices/msr/type" "$2"
		put "$root/bus/event_source/devices/msr/format/event" config:0-63
		put "$root/bus/event_source/devices/msr/events/tsc" event=0x00
	fi
}

make_smt_tree "$tmp/interleaved" interleaved
make_smt_tree "$tmp/siblings" siblings
# arm64's sysfs (and older kernels'): no die_id file
make_smt_tree "$tmp/nodie" siblings
rm "$tmp"/nodie/devices/system/cpu/cpu*/topology/die_id
make_hybrid_tree "$tmp/hybrid"
make_hybrid_tree "$tmp/hybrid_msr" "$(cat /sys/bus/event_source/devices/msr/type)"

# bstat TREE ARGS...: bperf stat -x, on a fake tree, the counts on stdout
bstat() {
	local tree=$1

	shift
	BPERF_SYSFS_ROOT="$tmp/$tree" "$BPERF" stat -x, "$@" 2>&1 >/dev/null
}

# labels TREE ARGS...: the aggregation fields of each line ("S0,1" for -x, and --per-socket).
# expect_labels WHAT EXPECTED TREE ARGS...: those fields must be EXPECTED (one per line, ';').
expect_labels() {
	local what=$1 expected=$2 fields=$3 got

	shift 3
	got=$(bstat "$@" | grep -v '^$' | cut -d, -f"$fields" | paste -sd';')
	[ "$got" = "$expected" ] || case_fail "$what: expected '$expected', got '$got'"
}

EV=page-faults,cpu-clock
# interleaved: real CPU 0 is S0-D0-C0 thread 0 (node 0), CPU 1 is S1-D0-C0 thread 0 (node 1)
expect_labels "interleaved --per-socket" \
	"S0,1,page-faults;S0,1,cpu-clock;S1,1,page-faults;S1,1,cpu-clock" \
	1,2,5 interleaved --per-socket -a -e $EV "$SLEEP" 20
expect_labels "interleaved --per-die" "S0-D0,1;S0-D0,1;S1-D0,1;S1-D0,1" \
	1,2 interleaved --per-die -a -e $EV "$SLEEP" 20
expect_labels "interleaved --per-core" "S0-D0-C0,1;S0-D0-C0,1;S1-D0-C0,1;S1-D0-C0,1" \
	1,2 interleaved --per-core -a -e $EV "$SLEEP" 20
expect_labels "interleaved --per-node" "N0,1;N0,1;N1,1;N1,1" \
	1,2 interleaved --per-node -a -e $EV "$SLEEP" 20
expect_labels "interleaved --per-socket -C 1" "S1,1;S1,1" \
	1,2 interleaved --per-socket -C 1 -e $EV "$SLEEP" 20
expect_labels "interleaved -A percore" \
	"S0-D0-C0,msr/tsc;S1-D0-C0,msr/tsc;CPU0,page-faults;CPU1,page-faults" \
	1,4 interleaved -A -a -e msr/tsc,percore=1/,page-faults "$SLEEP" 20

# siblings: real CPUs 0 and 1 are the two threads of S0-D0-C0, on node 0
expect_labels "siblings --per-socket" "S0,2;S0,2" 1,2 siblings --per-socket -a -e $EV "$SLEEP" 20
expect_labels "siblings --per-die" "S0-D0,2;S0-D0,2" 1,2 siblings --per-die -a -e $EV "$SLEEP" 20
expect_labels "siblings --per-core" "S0-D0-C0,2;S0-D0-C0,2" \
	1,2 siblings --per-core -a -e $EV "$SLEEP" 20
expect_labels "siblings --per-node" "N0,2;N0,2" 1,2 siblings --per-node -a -e $EV "$SLEEP" 20
expect_labels "siblings -A percore" "S0-D0-C0,msr/tsc;CPU0,page-faults;CPU1,page-faults" \
	1,4 siblings -A -a -e msr/tsc,percore=1/,page-faults "$SLEEP" 20
# without die_id perf counts one die per socket: D0, never D-1
expect_labels "nodie --per-die" "S0-D0,2;S0-D0,2" 1,2 nodie --per-die -a -e $EV "$SLEEP" 20
expect_labels "nodie --per-core" "S0-D0-C0,2;S0-D0-C0,2" 1,2 nodie --per-core -a -e $EV \
	"$SLEEP" 20
expect_labels "siblings -A --percore-show-thread" \
	"CPU0,msr/tsc;CPU1,msr/tsc;CPU0,page-faults;CPU1,page-faults" \
	1,4 siblings -A --percore-show-thread -a -e msr/tsc,percore=1/,page-faults "$SLEEP" 20

# Counts: a percore event counts its whole core. Counted in one group with the same event per
# CPU (one enable for both), the core's value is exactly the sum of its threads' values.
PCG='{page-faults,software/config=2,percore=1/}'
check_percore_sum() {
	local what=$1 out plain pc

	shift
	out=$(bstat siblings -A -a "$@" -e "$PCG" "$PT" 2000)
	plain=$(grep ',page-faults,' <<<"$out" | cut -d, -f2 | paste -sd+ | bc)
	pc=$(grep 'percore=1' <<<"$out" | cut -d, -f2 | sort -u)
	[ -n "$plain" ] && [ "$plain" -ge 2000 ] || { case_fail "$what: no faults: $out"; return; }
	[ "$pc" = "$plain" ] || case_fail "$what: core sum '$pc', threads' sum '$plain': $out"
}
check_percore_sum "siblings -A percore sum"
check_percore_sum "siblings -A --percore-show-thread sum" --percore-show-thread
# interleaved: each real CPU is alone in its core, so percore changes no count
out=$(bstat interleaved -A -a -e "$PCG" "$PT" 2000)
[ "$(grep ',page-faults,' <<<"$out" | cut -d, -f2 | paste -sd,)" = \
  "$(grep 'percore=1' <<<"$out" | cut -d, -f2 | paste -sd,)" ] ||
	case_fail "interleaved percore: a lone thread's core count differs: $out"
# one aggregate of every counted CPU counts what the global mode counts: the workload's faults
for mode in --per-socket --per-die --per-core --per-node; do
	n=$(bstat siblings "$mode" -a -e page-faults:u "$PT" 3000 | cut -d, -f3)
	[ -n "$n" ] && [ "$n" -ge 3000 ] || case_fail "siblings $mode: $n faults, want >= 3000"
done

# The human layout of a topology line: "S%-5d %4d " then the count in 18 columns.
line=$(BPERF_SYSFS_ROOT="$tmp/interleaved" "$BPERF" stat --per-socket -a -e page-faults \
	"$SLEEP" 20 2>&1 | grep page-faults | head -1)
[[ $line =~ ^S0\ {8}1\ +[0-9]+\ {6}page-faults ]] && [ "${#line}" = 103 ] ||
	case_fail "human --per-socket line: '$line'"
line=$(BPERF_SYSFS_ROOT="$tmp/siblings" "$BPERF" stat -A -a -e msr/tsc,percore=1/ \
	"$SLEEP" 20 2>&1 | grep tsc | head -1)
[[ $line =~ ^S0-D0-C0\ {3}\ *[0-9]+\ {6}msr/tsc,percore=1/ ]] ||
	case_fail "human -A percore line: '$line'"
[ "${#line}" = 102 ] || case_fail "human -A percore line: ${#line} columns, want 102"

# Hybrid machine: --cputype names a hybrid PMU (cpu_<type>) that must exist, before -e.
BPERF_SYSFS_ROOT="$tmp/hybrid" "$BPERF" stat --cputype atom -a -e page-faults "$SLEEP" 20 \
	2>"$tmp/err" || case_fail "hybrid --cputype atom: refused: $(cat "$tmp/err")"
BPERF_SYSFS_ROOT="$tmp/hybrid" "$BPERF" stat --cputype foo -e page-faults "$SLEEP" 20 \
	2>"$tmp/err"
rc=$?
[ $rc = 129 ] && [ "$(head -1 "$tmp/err")" = "--cputype foo is not supported!" ] ||
	case_fail "hybrid --cputype foo: rc $rc: $(head -1 "$tmp/err")"
expect_labels "hybrid --per-core" "S0-D0-C0,1;S0-D0-C1,1" 1,2 hybrid --per-core -a \
	-e page-faults "$SLEEP" 20

# Hybrid events (perf-stat(1), perf's intel-hybrid notes): a hardware or cache event is one
# event per hybrid PMU, cpu_core first, the PMU's type in config[63:32]; each prints as
# "pmu/event/"; --cputype keeps one PMU; --hybrid-merge prints one line under the event's name.
expect_labels "hybrid cycles" "cpu_core/cycles/;cpu_atom/cycles/" 3 hybrid -e cycles true
expect_labels "hybrid cache event" "cpu_core/L1-dcache-loads/;cpu_atom/L1-dcache-loads/" 3 \
	hybrid -e L1-dcache-loads true
expect_labels "hybrid --cputype atom" "cpu_atom/cycles/" 3 hybrid --cputype atom -e cycles true
expect_labels "hybrid --hybrid-merge" "cycles;page-faults" 3 hybrid --hybrid-merge \
	-e cycles,page-faults true
# perf 6.1's default events there: the software ones, then cycles, instructions, branches and
# branch-misses on each PMU
expect_labels "hybrid default events" "task-clock;context-switches;cpu-migrations;page-faults;\
cpu_core/cycles/;cpu_atom/cycles/;cpu_core/instructions/;cpu_atom/instructions/;\
cpu_core/branches/;cpu_atom/branches/;cpu_core/branch-misses/;cpu_atom/branch-misses/" 3 \
	hybrid true
configs=$(BPERF_SYSFS_ROOT="$tmp/hybrid" "$BPERF" stat -vv -e cycles,L1-dcache-load-misses true \
	2>&1 | awk '$1 == "config" { print $2 }' | paste -sd';')
[ "$configs" = "0x800000000;0x900000000;0x800010000;0x900010000" ] ||
	case_fail "hybrid attrs: config words '$configs'"

# Raw events take the PMU's type (here msr's: r0 counts the TSC). With -a each copy is opened on
# its PMU's CPUs only (-vv's open trace), -A prints each on its own CPU, and --hybrid-merge sums
# them: the merged r0 is the TSC of both CPUs, as msr/tsc/ counted in the same run.
opens=$(BPERF_SYSFS_ROOT="$tmp/hybrid_msr" "$BPERF" stat -vv -a -e r0 "$SLEEP" 20 2>&1 |
	grep -o 'sys_perf_event_open: pid -1  cpu [0-9]*' | awk '{ print $NF }' | uniq |
	paste -sd';')
[ "$opens" = "0;1" ] || case_fail "hybrid -a opens: CPUs '$opens', want 0 (core) then 1 (atom)"
expect_labels "hybrid -A raw" "CPU0,cpu_core/r0/;CPU1,cpu_atom/r0/" 1,4 hybrid_msr -A -a -e r0 \
	"$SLEEP" 20
expect_labels "hybrid -A --hybrid-merge" "CPU0,r0;CPU1,r0" 1,4 hybrid_msr -A -a --hybrid-merge \
	-e r0 "$SLEEP" 20
# ratio MERGED SUM: merged/sum within 1% (the events start one after the other)
merged=$(bstat hybrid_msr -a --hybrid-merge -e r0,msr/tsc/ "$SLEEP" 100)
r0=$(echo "$merged" | awk -F, '$3 == "r0" { print $1 }')
tsc=$(echo "$merged" | awk -F, '$3 == "msr/tsc/" { print $1 }')
awk -v a="$r0" -v b="$tsc" 'BEGIN { exit !(b > 0 && a / b > 0.99 && a / b < 1.01) }' ||
	case_fail "hybrid --hybrid-merge: r0 $r0 is not both CPUs' TSC ($tsc)"
split=$(bstat hybrid_msr -a -e r0,msr/tsc/ "$SLEEP" 100)
core=$(echo "$split" | awk -F, '$3 == "cpu_core/r0/" { print $1 }')
tsc=$(echo "$split" | awk -F, '$3 == "msr/tsc/" { print $1 }')
awk -v a="$core" -v b="$tsc" 'BEGIN { exit !(b > 0 && a / b > 0.49 && a / b < 0.51) }' ||
	case_fail "hybrid -a: cpu_core/r0/ $core is not one CPU's TSC of both ($tsc)"

[ $nfail = 0 ] || fail "$nfail checks failed"
echo "ok"
