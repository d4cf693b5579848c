#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Unprivileged users: as nobody, at every kernel.perf_event_paranoid level (-1, 0, 1, 2 and 3,
# which kernels without Debian's patch treat as 2), bperf stat prints what perf stat prints and
# exits with its status: the retry without the kernel (events named task-clock:u, page-faults:u,
# ... in human, CSV and JSON output, and in -v/-vv), perf's message when it gives up (the paranoid
# text for -a, -C, :k events and another user's -p process; "No permission" for an EPERM), and
# counts that are right (page faults exactly perf's, N more for N touched pages, and root's :u
# count). Shared counters and -b need capabilities nobody lacks: one line naming the missing ones,
# exit 255, and nothing made (no pin, no bpf() or perf_event_open() call, the workload never run);
# with CAP_SYS_ADMIN shared counters count right and two sessions share one leader. The sysctl is restored whatever
# happens; root, which the other tests run as, does not depend on it.
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
require_cmd setpriv
PARANOID=/proc/sys/kernel/perf_event_paranoid
[ -w "$PARANOID" ] || skip "needs a writable $PARANOID"
NOBODY_UID=$(id -u nobody 2>/dev/null) || skip "needs user nobody"
NOBODY_GID=$(id -g nobody)

orig_paranoid=$(cat "$PARANOID")
tmp=$(mktemp -d)
chmod 755 "$tmp"	# nobody runs the wrappers and reads the config file here
pin=/sys/fs/bpf/bperf_unprivileged_$$
bg_pids=()
cleanup() {
	local pid

	echo "$orig_paranoid" >"$PARANOID"
	for pid in "${bg_pids[@]}"; do
		kill "$pid" 2>/dev/null
	done
	[ "$(type -t unload_targets)" = function ] && unload_targets
	rm -rf "$pin" "$pin"_lock
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

PT=$WORKLOADS/pagetouch
SLEEP=$WORKLOADS/sleeper
ROOT_PERF=$PERF
ROOT_BPERF=$BPERF

# nobody CAPS CMD...: CMD as nobody, with the capabilities CAPS ("+bpf,+perfmon"; "" for none)
nobody() {
	local caps=()

	[ -n "$1" ] && caps=(--inh-caps="$1" --ambient-caps="$1")
	shift
	setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups "${caps[@]}" "$@"
}

# wrapper NAME CAPS PROGRAM: $tmp/NAME runs PROGRAM as nobody (see nobody)
wrapper() {
	local caps=

	[ -n "$2" ] && caps="--inh-caps=$2 --ambient-caps=$2 "
	printf '#!/bin/sh\nexec setpriv --reuid=%s --regid=%s --clear-groups %s%s "$@"\n' \
		"$NOBODY_UID" "$NOBODY_GID" "$caps" "$3" >"$tmp/$1"
	chmod 755 "$tmp/$1"
}
# where file modes keep nobody from running them (the QEMU guest's initramfs), nothing to test
for tool in "$ROOT_PERF" "$ROOT_BPERF"; do
	nobody "" "$tool" stat -e nosuchevent true >/dev/null 2>&1
	[ $? -eq 129 ] || skip "nobody cannot run $tool here"
done
wrapper perf "" "$ROOT_PERF"
wrapper bperf "" "$ROOT_BPERF"
wrapper perf-perfmon +perfmon "$ROOT_PERF"
wrapper bperf-perfmon +perfmon "$ROOT_BPERF"
# the side-by-side helpers run "$PERF" and "$BPERF": nobody's
PERF=$tmp/perf
BPERF=$tmp/bperf

. "$(dirname "$0")/../side_lib.sh"
. "$(dirname "$0")/../bpf_prog_lib.sh"

set_paranoid() {
	echo "$1" >"$PARANOID" 2>/dev/null && [ "$(cat "$PARANOID")" = "$1" ]
}

# ---- side by side with perf --------------------------------------------------------------------
# perf's -v line about its own internals (README, "Differences from perf")
drop_perf_internals() {
	grep -v -e '^Control descriptor is not initialized$'
}

# verbose NAME OPTS...: -v or -vv (the fallback's warning, each attr tried), without columns
verbose() {
	local name=$1

	shift
	run_both "$name" "$@"
	drop_perf_internals <"$tmp/$name.perf" >"$tmp/$name.perf2"
	compare_stat_outputs "$tmp/$name.perf2" "$tmp/$name.bperf" nocolumns
}

# first_csv TOOL OPTS...: "count,event" of the first line of TOOL stat -x, OPTS
first_csv() {
	local tool=$1

	shift
	norandom "$tool" stat -x, "$@" 2>&1 >/dev/null | head -n 1 | cut -d, -f1,3
}

# exact_faults LEVEL: as nobody, page faults of pagetouch 1000 are perf's, pagetouch 0's plus
# 1000, and what root counts with the same exclusions (page-faults:u from level 2 on)
exact_faults() {
	local level=$1 event=page-faults b0 b p r

	[ "$level" -ge 2 ] && event=page-faults:u
	b0=$(first_csv "$BPERF" -e page-faults "$PT" 0)
	b=$(first_csv "$BPERF" -e page-faults "$PT" 1000)
	p=$(first_csv "$PERF" -e page-faults "$PT" 1000)
	r=$(first_csv "$ROOT_BPERF" -e "$event" "$PT" 1000)
	assert_eq "$p" "$b" "level $level: pagetouch 1000 as nobody, perf vs bperf"
	assert_eq "$event" "${b#*,}" "level $level: the event's name"
	assert_eq $((${b0%%,*} + 1000)) "${b%%,*}" "level $level: pagetouch 0's faults + 1000"
	assert_eq "$r" "$b" "level $level: nobody's count vs root's $event"
}

# A process of nobody's that wakes every 10 ms for the whole test, and a sleeping one of root's
setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups \
	sh -c 'while :; do sleep 0.01; done' >/dev/null 2>&1 &
own_pid=$!
wait_until '[ "$(stat -c %u "/proc/$own_pid")" = "$NOBODY_UID" ]' 2 ||
	fail "process $own_pid is not nobody's"
bg_pids+=("$own_pid")
"$SLEEP" 600000 &
root_pid=$!
bg_pids+=("$root_pid")

# the ftrace function tracepoint: the kernel refuses it with EPERM (perf: "No permission")
ftrace_function_id=$(cat /sys/kernel/tracing/events/ftrace/function/id 2>/dev/null ||
		     cat /sys/kernel/debug/tracing/events/ftrace/function/id 2>/dev/null)

levels=(-1 0 1 2)
level3=absent
set_paranoid 3 && levels+=(3)
for level in "${levels[@]}"; do
	set_paranoid "$level" || fail "cannot set kernel.perf_event_paranoid to $level"
	l=${level/-/m}
	human "default_$l" "$PT" 100
	csv "csv_$l" -e task-clock,page-faults,context-switches,duration_time "$PT" 100
	human "kernel_only_$l" -e page-faults:k "$PT" 10
	human "system_wide_$l" -a -e task-clock,duration_time "$SLEEP" 20
	human "cpu_list_$l" -C 0 -e cpu-clock "$SLEEP" 20
	human "pid_own_$l" -p "$own_pid" -e task-clock,page-faults "$SLEEP" 50
	human "pid_other_$l" -p "$root_pid" -e task-clock "$SLEEP" 20
	[ -n "$ftrace_function_id" ] &&
		human "eperm_$l" -e "tracepoint/config=$ftrace_function_id/" "$PT" 10
	# the fallback's other forms where it happens
	if [ "$level" -ge 2 ]; then
		json "json_$l" -e task-clock,page-faults,cycles "$PT" 100
		human "events_$l" -e '{task-clock,page-faults},cpu-clock:u,cs:pp,msr/tsc/,r0' "$PT" 10
		check_retry "verbose_$l" verbose "verbose_$l" -v -e task-clock,page-faults "$PT" 10
		check_retry "vv_$l" verbose "vv_$l" -vv -e task-clock "$PT" 10
		human "repeat_$l" -r 2 -e page-faults "$PT" 100
		csv "tid_own_$l" -t "$own_pid" -e task-clock "$SLEEP" 50
	fi
	# Debian's kernels refuse every event to users at level 3; others treat it as 2
	if [ "$level" = 3 ]; then
		level3=like2
		grep -q 'perf_event_paranoid setting is 3:$' "$tmp/default_3.perf" && level3=refuses
	fi
	[ "$level3" = refuses ] || check_retry "exact_$l" exact_faults "$level"
done

# What the cases above saw is what perf does at these levels, not only what both agree on.
# expect CASE PATTERN: bperf's stderr of CASE has a line matching PATTERN
expect() {
	grep -q -e "$2" "$tmp/$1.bperf" || fail "$1: no line '$2' in $(cat "$tmp/$1.bperf")"
}
# no_line CASE PATTERN: ... and none matching PATTERN
no_line() {
	grep -q -e "$2" "$tmp/$1.bperf" && fail "$1: a line matches '$2': $(cat "$tmp/$1.bperf")"
	return 0
}
premises() {
	local paranoid_text='^Access to performance monitoring and observability operations is'
	local l counting=(m1 0 1 2)

	[ "$level3" = like2 ] && counting+=(3)
	for l in m1 0 1; do
		expect "default_$l" ' page-faults  '
		no_line "default_$l" ':u '
		expect "kernel_only_$l" ' page-faults:k '
	done
	for l in m1 0; do
		expect "system_wide_$l" "Performance counter stats for 'system wide'"
	done
	expect system_wide_1 'perf_event_paranoid setting is 1:$'
	expect cpu_list_1 'perf_event_paranoid setting is 1:$'
	for l in "${counting[@]}"; do
		expect "pid_own_$l" "Performance counter stats for process id '$own_pid'"
		expect "pid_other_$l" "$paranoid_text"
	done
	for l in "${counting[@]:3}"; do
		expect "default_$l" ' task-clock:u  '
		expect "default_$l" ' page-faults:u  '
		expect "default_$l" ' cycles:u *$'
		expect "csv_$l" ',page-faults:u,'
		expect "csv_$l" ',duration_time:u,'
		expect "json_$l" '"event" : "task-clock:u"'
		expect "events_$l" ' cpu-clock:u '
		expect "events_$l" ' cs:ppu '
		[ -e /sys/bus/event_source/devices/msr/events/tsc ] &&
			expect "events_$l" ' msr/tsc/u *$'
		expect "verbose_$l" '^kernel.perf_event_paranoid=[0-9], trying to fall back to'
		expect "vv_$l" '^  exclude_kernel  *1$'
		no_line "tid_own_$l" '^Error:$'
		expect "kernel_only_$l" "perf_event_paranoid setting is $l:$"
		expect "system_wide_$l" "perf_event_paranoid setting is $l:$"
		[ -n "$ftrace_function_id" ] && expect "eperm_$l" \
			"^No permission to enable tracepoint/config=$ftrace_function_id/u event.$"
	done
	# Debian's level 3: no perf event at all for users
	[ "$level3" = refuses ] && expect default_3 'perf_event_paranoid setting is 3:$'
	return 0
}
check premises premises

# CAP_PERFMON lifts the paranoid level: no fallback, no :u
set_paranoid 2 || fail "cannot set kernel.perf_event_paranoid to 2"
PERF=$tmp/perf-perfmon BPERF=$tmp/bperf-perfmon human perfmon_2 -e task-clock,page-faults "$PT" 10
check perfmon_names no_line perfmon_2 ':u '

# perf's text for too many open files, whoever meets it (bperf printed one blank line more)
emfile() {
	ulimit -n 12
	PERF=$ROOT_PERF BPERF=$ROOT_BPERF run_both emfile -a -e \
		cpu-clock,task-clock,page-faults,cs,migrations,faults,minor-faults true
	diff -u "$tmp/emfile.perf" "$tmp/emfile.bperf" >&2 || fail "emfile: messages differ"
}
check emfile emfile

# ---- shared counters and -b: the capabilities they need ------------------------------------------
printf '[stat]\n\tbpf-counter-events = page-faults\n' >"$tmp/perfconfig"
chmod 644 "$tmp/perfconfig"
load_targets
prog_id=${TARGET_IDS[0]}
shared_need='need root, or CAP_SYS_ADMIN: missing CAP_SYS_ADMIN'
prog_need='Counting BPF programs (-b) needs root, or CAP_SYS_ADMIN: missing CAP_SYS_ADMIN'

# refused_bpf CAPS EXPECTED OPTS...: bperf stat OPTS as nobody with CAPS ("" for none) prints the
# line EXPECTED alone and exits 255; its workload never runs, no bpf() or perf_event_open() call
# is made (where strace is), no pin is left
refused_bpf() {
	local caps=$1 expected=$2 rc calls

	shift 2
	PERF_CONFIG=$tmp/perfconfig nobody "$caps" "$ROOT_BPERF" stat "$@" -- sh -c 'echo ran' \
		>"$tmp/try.out" 2>"$tmp/try.err"
	rc=$?
	assert_eq 255 "$rc" "$* ($caps): exit status"
	assert_eq "$expected" "$(cat "$tmp/try.err")" "$* ($caps): stderr"
	[ -s "$tmp/try.out" ] && fail "$* ($caps): the workload ran: $(cat "$tmp/try.out")"
	[ -e "$pin" ] && fail "$* ($caps): $pin left behind"
	command -v strace >/dev/null || return 0
	calls=$(PERF_CONFIG=$tmp/perfconfig nobody "$caps" strace -f -qq \
		-e trace=bpf,perf_event_open "$ROOT_BPERF" stat "$@" -- true 2>&1 |
		grep -E '^(\[pid +[0-9]+\] )?(bpf|perf_event_open)\(')
	[ -z "$calls" ] || fail "$* ($caps): system calls made: $calls"
}

# the paranoid level does not matter to these
for level in "${levels[@]}"; do
	set_paranoid "$level" || fail "cannot set kernel.perf_event_paranoid to $level"
	check "bpf_counters_${level/-/m}" refused_bpf "" \
		"Shared counters (--bpf-counters) $shared_need" \
		--bpf-counters --bpf-attr-map "$pin" -e page-faults
done
set_paranoid 2 || fail "cannot set kernel.perf_event_paranoid to 2"
check modifier_b refused_bpf "" \
	"Shared counters (task-clock:b) $shared_need" \
	--bpf-attr-map "$pin" -e task-clock:b,page-faults
check config_events refused_bpf "" \
	"Shared counters (stat.bpf-counter-events) $shared_need" \
	--bpf-attr-map "$pin" -e task-clock,page-faults
check bpf_prog refused_bpf "" "$prog_need" -b "$prog_id"
# once, not once per run
check repeat_shared refused_bpf "" \
	"Shared counters (--bpf-counters) $shared_need" \
	-r 3 --bpf-counters --bpf-attr-map "$pin" -e page-faults
check repeat_bpf_prog refused_bpf "" "$prog_need" -r 3 -b "$prog_id"
# CAP_BPF and CAP_PERFMON load and count, but the kernel hands leaders' links and maps to others
# by id only with CAP_SYS_ADMIN: no two sessions could share. CAP_BPF alone could create and pin
# the attr map.
check bpf_only refused_bpf +bpf "Shared counters (--bpf-counters) $shared_need" \
	--bpf-counters --bpf-attr-map "$pin" -e page-faults
check bpf_perfmon refused_bpf +bpf,+perfmon "Shared counters (page-faults:b) $shared_need" \
	--bpf-attr-map "$pin" -e page-faults:b
check bpf_prog_caps refused_bpf +bpf,+perfmon "$prog_need" -b "$prog_id"

# CAP_SYS_ADMIN: shared counters work as nobody (in an attr map of nobody's), page faults as root
# counts them, and two of nobody's sessions share one leader
wrapper shared +sys_admin "$ROOT_BPERF"
shared_count() {
	norandom "$tmp/shared" stat --bpf-counters --bpf-attr-map "$pin" -x, -e page-faults "$PT" \
		1000 2>&1 >/dev/null | cut -d, -f1
}
shared_faults() {
	local shared direct

	shared=$(least_count shared_count) || exit 1
	direct=$(first_csv "$ROOT_BPERF" -e page-faults "$PT" 1000)
	assert_eq "${direct%%,*}" "$shared" "shared page-faults as nobody with CAP_SYS_ADMIN"
	[ "$(stat -c %u "$pin")" = "$NOBODY_UID" ] || fail "$pin: not nobody's"
}
check_retry shared_caps shared_faults
# a second session of nobody's joins the first one's leader: one on_switch of nobody's
two_sessions() {
	local leaders first second

	"$tmp/shared" stat --bpf-counters --bpf-attr-map "$pin" -e page-faults "$SLEEP" 1500 \
		2>/dev/null &
	first=$!
	sleep 0.4
	"$tmp/shared" stat --bpf-counters --bpf-attr-map "$pin" -e page-faults "$SLEEP" 500 \
		2>/dev/null &
	second=$!
	sleep 0.3
	leaders=$(bpftool -j prog show | jq --argjson uid "$NOBODY_UID" \
		'[.[] | select(.name == "on_switch" and .uid == $uid)] | length')
	wait "$first" "$second"
	assert_eq 1 "$leaders" "on_switch leaders of nobody's with two sessions sharing"
}
check two_sessions two_sessions
rm -rf "$pin" "$pin"_lock
unload_targets
# the sessions' leader programs went with them (the other tests' are root's); programs are freed
# asynchronously, after their links' grace periods: up to 5 s
nothing_of_nobody() {
	local left

	wait_until 'left=$(bpftool prog show | grep -E -c " uid $NOBODY_UID\$"); [ "$left" = 0 ]' 5
	assert_eq 0 "$left" "BPF programs of nobody's left loaded"
}
check nothing_left nothing_of_nobody

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
