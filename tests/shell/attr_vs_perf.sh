#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# perf_event_attr encoding: bperf stat -vv prints the same attr blocks as perf stat -vv
#
# For each event string (and a few target options) this runs
#   /usr/bin/perf stat -vv <opts> -e STR true
#   $BPERF stat -vv <opts> -e STR true
# and compares the perf_event_attr blocks: the whole sequence of blocks, open
# retries included, for the first CPU of each open (the cpu 0 / cpu -1
# opens). Event names are compared from the count lines (first 32 columns
# after the count). The :b modifier is left out: perf 6.1 here has no BPF
# counters and opens such an event directly, while bperf shares it (the
# parsed attr, which :b leaves alone, is checked in test_events). Exit 0 pass,
# 1 fail, 77 skip.
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).

PERF=${PERF:-/usr/bin/perf}
BPERF=${BPERF:-./bperf}
[ -x "$PERF" ] || { echo "attr_vs_perf: no $PERF, skipping"; exit 77; }

TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

if ! "$BPERF" stat -vv -e task-clock true 2>&1 | grep -q '^perf_event_attr:'; then
	echo "attr_vs_perf: expected '$BPERF stat -vv' to print perf_event_attr blocks, got none"
	exit 1
fi

# Attr blocks from a -vv log: only blocks opened on cpu -1 or cpu 0.
blocks() {
	awk -f "$(dirname "$0")/../attr_blocks.awk"
}

fail=0
n=0
check() {
	opts=$1
	ev=$2
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$PERF" stat -vv $opts -e "$ev" true >"$TMP/p.out" 2>"$TMP/p.err"
	# shellcheck disable=SC2086
	"$BPERF" stat -vv $opts -e "$ev" true >"$TMP/b.out" 2>"$TMP/b.err"
	blocks <"$TMP/p.err" >"$TMP/p.blk"
	blocks <"$TMP/b.err" >"$TMP/b.blk"
	if ! cmp -s "$TMP/p.blk" "$TMP/b.blk"; then
		echo "attr_vs_perf: '$opts -e $ev': expected perf's attr blocks, got:"
		diff "$TMP/p.blk" "$TMP/b.blk" | head -20
		fail=1
	fi
	# names: perf's count lines hold the name from column 25 (human mode)
	grep -E '^ +([0-9.,]+|<not supported>|<not counted>) ' "$TMP/p.err" | grep -v ' seconds ' |
		sed -E 's/^ +([0-9.,]+|<not supported>|<not counted>) +(msec |ns +)?//; s/ +#.*//; s/ +$//' \
		>"$TMP/p.names"
	grep -E '^ +([0-9.,]+|<not supported>|<not counted>) ' "$TMP/b.err" | grep -v ' seconds ' |
		sed -E 's/^ +([0-9.,]+|<not supported>|<not counted>) +(msec |ns +)?//; s/ +#.*//; s/ +$//' \
		>"$TMP/b.names"
	if ! cmp -s "$TMP/p.names" "$TMP/b.names"; then
		echo "attr_vs_perf: '$opts -e $ev': expected names:"
		diff "$TMP/p.names" "$TMP/b.names" | head -10
		fail=1
	fi
}

EVENTS='cycles
cpu-cycles
instructions
cache-references
cache-misses
branches
branch-instructions
branch-misses
bus-cycles
stalled-cycles-frontend
idle-cycles-frontend
stalled-cycles-backend
idle-cycles-backend
ref-cycles
cpu-clock
task-clock
page-faults
faults
minor-faults
major-faults
context-switches
cs
cpu-migrations
migrations
alignment-faults
emulation-faults
dummy
bpf-output
cgroup-switches
duration_time
user_time,system_time
L1-dcache-loads
L1-dcache-load-misses
L1-dcache-stores
L1-dcache-prefetches
l1d-loads-misses
L1-icache-loads
L1-icache-load-misses
L1-icache-prefetch
LLC-loads
LLC-load-misses
LLC-stores
LLC-prefetch-misses
L2
dTLB-loads
dTLB-load-misses
dTLB-store-misses
iTLB-loads
iTLB-load-misses
branch-loads
branch-load-misses
bpu-read-access
node-loads
node-store-misses
node-prefetches
L1-dcache-misses
LLC-speculative-read
r1a8
r0x1a8
rc0:u
4:0x10
1:3
msr/tsc/
msr/smi/
msr/event=0x00/
msr/tsc,percore=1/
msr/event=tsc/
msr/config=1,event=2/
msr/config1=3,config2=4/
msr//
msr/r1/
msr/tsc/u
msr/tsc/name=mytsc/
msr/name=foo,tsc/
tsc
TSC
Tsc:u
msr/TSC/
smi:k
sched:sched_switch
sched:sched_switch:u
sched:sched_s*
sch*:sched_switch
sched:sched_switch/call-graph=no/
mem:0x1000
mem:0x1000/8
mem:0x1000:rw
mem:0x1000/2:w
mem:0x1000:x
mem:0x1000:rw:u
cs:u
cs:k
cs:h
cs:uk
cs:ukh
cs:G
cs:H
cs:GH
cs:I
cs:p
cs:pp
cs:ppp
cs:P
cs:S
cs:D
cs:W
cs:e
cs:up
cs:Gu
cs:uG
cs:
cs//
cs//k
task-clock:ku
cycles/period=1000/
cs/name=switches/
cs/config=2/
cpu-clock/percore/
L1-dcache-load-misses/name=l1m/
{cs,faults}
{cs,faults}:u
{cs:k,faults}:u
{cs,faults}:D
{cs,faults}:e
{cs,faults}:W
{cs}:u
{task-clock,cs:u,msr/tsc/}:k
{sched:sched_switch,cs}
cs,{faults,migrations}:u,task-clock
grp{cs,faults}
faults,faults:u,faults:k'

IFS_SAVE=$IFS
IFS='
'
for ev in $EVENTS; do
	IFS=$IFS_SAVE
	check "" "$ev"
	IFS='
'
done
IFS=$IFS_SAVE
for opts in "-a" "-C 0" "-i" "--all-user" "--all-kernel" "-a -i"; do
	check "$opts" "{cs,faults},sched:sched_switch:k,msr/tsc/"
done
check "-g" "cs,faults,task-clock"

if [ $fail -ne 0 ]; then
	echo "attr_vs_perf: FAIL ($n event strings)"
	exit 1
fi
echo "attr_vs_perf: ok ($n event strings)"
exit 0
