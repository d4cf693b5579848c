#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Shared BPF counters count exactly what direct counting counts: in one session, NAME and NAME:b
# print the same integer for page-faults, minor-faults and context-switches, for the shipped
# workloads and every kind of target (a workload, one that forks children, -i, -a, -C, -p, -t).
# Known gap: with -a/-C the direct and shared counters start one after the other, so
# context-switches may be a few off under load, allowed and printed (cs_within). Clocks and
# msr/tsc/ (time, not events) agree within 0.5% on CPU-bound work and on pingpong pinned to one
# CPU. Unpinned pingpong on two CPUs is printed with a loose
# bound: most of its switches are from idle, and the switch-in half of each (between the
# sched_switch tracepoint and perf's sched-in hook) is the incoming task's for the leader but
# nobody's for direct counting; no BPF program can run at that hook without trampolines.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup exact
RUNS=${EXACT_RUNS:-3}
# The clocks' bound in percent: 0.5 (the issue's); tools/vmtest sets 2 in its emulated guest,
# where timer ticks and their preemptions cost far more (-0.57% seen there on spin 300)
CLOCK_PCT=${CLOCK_PCT:-0.5}
EVENTS=page-faults,page-faults:b,minor-faults,minor-faults:b,context-switches,context-switches:b
W=$WORKLOADS
nr_cpus=$(nproc)

# pairs WHAT [bperf options] -- command: runs bperf with -x, into $TMP/out, checks the pairs.
pairs() {
	local what=$1

	shift
	# the workload inherits the personality: start-up page faults are exact only this way
	norandom "$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" "$@" ||
		fail "$what: bperf stat exited $?"
	cs_within "$TMP/out" "$what" 1
	check_pairs "$TMP/out" "$what"
}

# cpu_pairs WHAT [bperf options] -- command: pairs for -a / -C. Direct and shared counters start
# and stop one after the other, so what any task does in between (a kworker, bperf itself, other
# work on a busy machine) lands in one of them: on a quiet machine the pairs are equal, on a busy
# one they may differ by 1% (at least 3).
cpu_pairs() {
	local what=$1 ev n slack

	shift
	norandom "$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" "$@" ||
		fail "$what: bperf stat exited $?"
	if grep -q '^CPU[0-9]' "$TMP/out"; then
		near_cpu_pairs "$TMP/out" "$what"
	else
		for ev in page-faults minor-faults context-switches; do
			n=$(count_of "$TMP/out" "$ev" | head -n 1)
			slack=$((${n:-0} / 100))
			near_pair "$TMP/out" "$what" "$ev" $((slack > 3 ? slack : 3))
		done
	fi
	check_pairs "$TMP/out" "$what"
}

# near_cpu_pairs FILE WHAT: cpu_pairs' slack for -A output, CPU by CPU; the near pairs are
# printed and taken out of FILE.
near_cpu_pairs() {
	awk -F, -v what="$2" '
		$1 ~ /^CPU[0-9]+$/ { line[NR] = $0; key[NR] = $1 " " $4; val[$1 " " $4] = $2; next }
		{ line[NR] = $0 }
		END {
			for (k in val) {
				if (k !~ /:b$/ || !((d = substr(k, 1, length(k) - 2)) in val) ||
				    val[k] == val[d])
					continue
				gap = val[k] - val[d]; slack = int(val[d] / 100)
				if (slack < 3) slack = 3
				if (gap > slack || -gap > slack) continue	# check_pairs fails it
				print what ": known gap: " d " " val[d] ", " k " " val[k] > "/dev/stderr"
				drop[k] = drop[d] = 1
			}
			for (i = 1; i <= NR; i++)
				if (!((i in key) && (key[i] in drop)))
					print line[i] > FILENAME ".rest"
		}' "$1"
	mv "$1.rest" "$1"
}

for run in $(seq "$RUNS"); do
	# pagetouch itself now and then takes a fault or two more under load (perf and the direct
	# counter see them too, and the pairs check that the shared one does): another try then
	for try in 1 2 3; do
		pairs "pagetouch 1000 (run $run)" -e "$EVENTS" -- "$W/pagetouch" 1000
		pf1000=$(count_of "$TMP/out" page-faults:b)
		direct1000=$(count_of "$TMP/out" page-faults)
		pairs "pagetouch 0 (run $run)" -e "$EVENTS" -- "$W/pagetouch" 0
		pf0=$(count_of "$TMP/out" page-faults:b)
		direct0=$(count_of "$TMP/out" page-faults)
		[ $((direct1000 - direct0)) = 1000 ] && break
		echo "pagetouch 1000 minus 0 took $((direct1000 - direct0)) faults (direct), try $try"
	done
	assert_eq 1000 $((pf1000 - pf0)) "page-faults:b of pagetouch 1000 minus pagetouch 0"
	pairs "pingpong 1000, forked child (run $run)" -e "$EVENTS" -- "$W/pingpong" 1000
	pairs "pingpong -t 1000 (run $run)" -e "$EVENTS" -- "$W/pingpong" -t 1000
	pairs "sleeper 50 (run $run)" -e "$EVENTS" -- "$W/sleeper" 50
	pairs "-i pingpong 1000 (run $run)" -i -e "$EVENTS" -- "$W/pingpong" 1000
	cpu_pairs "-a pingpong 1000 (run $run)" -a -e "$EVENTS" -- "$W/pingpong" 1000
	cpu_pairs "-a -A pagetouch 1000 (run $run)" -a -A -e page-faults,page-faults:b -- \
		"$W/pagetouch" 1000
	cpu=$((nr_cpus > 1 ? 1 : 0))
	cpu_pairs "-C $cpu taskset pingpong 1000 (run $run)" -C "$cpu" -e "$EVENTS" -- \
		taskset -c "$cpu" "$W/pingpong" 1000
done

# -p and -t on a process started elsewhere: it is stopped before its exec while the session
# attaches, so direct and shared counting both see all of it, children (forked after the
# attach) included. The session ends when the target exits.
for run in $(seq "$RUNS"); do
	for target in -p -t; do
		for workload in "pingpong 1000" "pingpong -t 1000" "pagetouch 1000"; do
			# shellcheck disable=SC2086 # the workload's words
			start_stopped "$W/"$workload
			"$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" \
				"$target" "$STOPPED_PID" -e "$EVENTS" &
			bperf_pid=$!
			# attached: the 3 direct events open, the 3 leaders in the map
			wait_until '[ "$(find "/proc/$bperf_pid/fd" \
				-lname "anon_inode:\[perf_event\]" 2>/dev/null | wc -l)" -eq 3 ] &&
				[ "$(map_link_ids | wc -l)" -eq 3 ]' 5 || true
			sleep 0.3
			kill -CONT "$STOPPED_PID"
			wait "$bperf_pid" || fail "$target $workload: bperf stat exited $?"
			wait "$STOPPED_PID"
			cs_within "$TMP/out" "$target $workload (run $run)" 1
			check_pairs "$TMP/out" "$target $workload (run $run)"
		done
	done
done

# An exit beside a CPU hog on the same CPU: freeing a large address space yields the CPU again
# and again after perf has stopped counting the task (6.16 and the stable kernels it went back
# to stop it before exit_mm()): those switches are nobody's. Before the leader knew, 4 or 5
# too many shared on every run. Two short windows remain, seen only in the emulated guest:
# a preemption by the hog between perf_event_exit_task() and exit_mm()'s clearing of the mm is
# counted shared and not direct (+1, about one run in four), and once a run of the 6.1 guest
# counted one fewer shared (-1 after two exact-try failures; its window is not found yet). Two
# tries must be exact; a third may be one off (printed as a known gap), never more.
hog_pair() {
	taskset -c "$pin" "$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" \
		-e context-switches,context-switches:b -- "$W/pagetouch" 100000 ||
		fail "pagetouch beside a hog: bperf stat exited $?"
	if [ -n "${2:-}" ]; then
		near_pair "$TMP/out" "pagetouch 100000 beside a CPU hog (run $1)" context-switches 1
		grep -q ',context-switches:b,' "$TMP/out" || return 0
	fi
	check_pairs "$TMP/out" "pagetouch 100000 beside a CPU hog (run $1)"
}
pin=$((nr_cpus - 1))
taskset -c "$pin" sh -c 'while :; do :; done' &
hog=$!
BG_PIDS+=("$hog")
for run in $(seq "$RUNS"); do
	quiet_tries hog_pair "$run" || (hog_pair "$run" one-off) || exit 1
done
kill "$hog"
wait "$hog" 2>/dev/null

# clock_pair WHAT CPUS WORKLOAD...: task-clock and cpu-clock of WORKLOAD run on CPUS (taskset's
# list), direct and shared, within CLOCK_PCT. This host's guest agent (process_api's tokio-rt-worker threads) switches
# out with no sched_switch tracepoint (tests/README.md): when it preempts the workload, its run
# (2 to 5 ms, about one run in fifteen of spin 100) goes to the workload's shared count. A try
# that meets it is tried again, up to three tries.
clock_pair() {
	local what=$1 cpus=$2 ev direct shared

	shift 2
	taskset -c "$cpus" "$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" \
		-e task-clock,task-clock:b,cpu-clock,cpu-clock:b -- "$@" || fail "$what: exit $?"
	for ev in task-clock cpu-clock; do
		direct=$(count_of "$TMP/out" "$ev")
		shared=$(count_of "$TMP/out" "$ev:b")
		within_pct "$shared" "$direct" "$CLOCK_PCT" ||
			fail "$what $ev: direct $direct, shared $shared"
		echo "$what $ev: direct $direct msec, shared $shared msec" \
			"($(pct_gap "$shared" "$direct")%)"
	done
}

# Clocks: the same interval, so within 0.5% on CPU-bound work, and on an exit that frees a large
# address space (perf stops counting before it: 2 to 3% more shared before the leader read at
# sched_process_exit on this host).
all_cpus=0-$((nr_cpus - 1))
retry3 clock_pair "spin 300" "$all_cpus" "$W/spin" 300 || exit 1
retry3 clock_pair "pagetouch 50000" "$all_cpus" "$W/pagetouch" 50000 || exit 1

# Switch-heavy work on one CPU (every switch from task to task): within 0.5% too.
retry3 clock_pair "pingpong 20000 on CPU $pin" "$pin" "$W/pingpong" 20000 || exit 1

# Unpinned on two CPUs, the switches from idle: measured 1-3% high (task-clock) and 4-11%
# (cpu-clock, which perf itself counts 2-5% below task-clock here); 15% is the documented bound.
"$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" \
	-e task-clock,task-clock:b,cpu-clock,cpu-clock:b -- "$W/pingpong" 20000 ||
	fail "pingpong: exit $?"
for ev in task-clock cpu-clock; do
	direct=$(count_of "$TMP/out" "$ev")
	shared=$(count_of "$TMP/out" "$ev:b")
	within_pct "$shared" "$direct" 15 || fail "pingpong 20000 $ev: direct $direct, shared $shared"
	echo "pingpong 20000 $ev (known gap): direct $direct msec, shared $shared msec" \
		"($(pct_gap "$shared" "$direct")%)"
done

# msr/tsc/ counts time-stamp cycles while the task runs: like the clocks, within 0.5%, and tried
# up to three times as they are (the host agent's unseen switches: +2 to +5 ms, seen once on
# pingpong 20000, +1.0%).
tsc_pair() {
	local direct shared

	# shellcheck disable=SC2086 # the workload's words
	taskset -c "$pin" "$BPERF" stat -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" \
		-e msr/tsc/,msr/tsc/b -- "$W/"$1 || fail "$1 tsc: exit $?"
	direct=$(count_of "$TMP/out" msr/tsc/)
	shared=$(count_of "$TMP/out" msr/tsc/b)
	within_pct "$shared" "$direct" "$CLOCK_PCT" ||
		fail "$1 on CPU $pin msr/tsc/: direct $direct, shared $shared"
	echo "$1 on CPU $pin msr/tsc/: direct $direct, shared $shared" \
		"($(pct_gap "$shared" "$direct")%)"
}
if [ -d /sys/bus/event_source/devices/msr ]; then
	for workload in "spin 300" "pingpong 20000"; do
		retry3 tsc_pair "$workload" || exit 1
	done
else
	echo "no msr PMU: msr/tsc/ not checked"
fi

assert_nothing_left
echo "shared counts equal direct counts ($NEAR_PAIRS pairs off by the known gaps)"
