#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Repetition, time and control options side by side with perf 6.1: -r (0 too) with --table,
# -n, --pre/--post, -S, -I with --interval-count, --interval-clear, --summary,
# --no-csv-summary (and stat.no-csv-summary), --timeout, -D (and -1), --control (fd: and fifo:,
# with perf-stat(1)'s own fifo script), --filter and --iostat. Both run the same options on
# the deterministic workloads; stderr must agree line for line with numbers masked, exit
# statuses must match, and deterministic counts must be exact. Where perf 6.1 is broken (a
# failing --pre), bperf's documented behaviour is asserted instead.
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PT=$WORKLOADS/pagetouch
SPIN=$WORKLOADS/spin
SLEEP=$WORKLOADS/sleeper

. "$(dirname "$0")/../side_lib.sh"

# bin perf|bperf: the binary of that name
bin() {
	if [ "$1" = perf ]; then echo "$PERF"; else echo "$BPERF"; fi
}

# Every case here goes through check_retry (side_lib.sh): timing-dependent output gets two
# more tries, a real difference fails every try.

# first_line_same NAME RC OPTS...: a refused command line: both exit RC with the same first
# line (the usage that follows names bperf and has bperf's help texts)
first_line_same() {
	local name=$1 rc=$2

	shift 2
	run_both "$name" "$@"
	assert_eq "$rc" "$(norandom "$BPERF" stat "$@" >/dev/null 2>&1; echo $?)" "$name: exit status"
	assert_eq "$(head -n 1 "$tmp/$name.perf")" "$(head -n 1 "$tmp/$name.bperf")" "$name: message"
}

# count FILE EVENT: the count of EVENT in CSV output FILE (summary column dropped)
count() {
	sed 's/^ *summary,//' "$1" | awk -F, -v ev="$2" '$3 == ev || $4 == ev { print $1; exit }'
}

# ---- -r, --table, -n, -S ----------------------------------------------------------------------
# The sign and the bars of --table follow each run's distance from the mean: dropped for the
# masked comparison; the table's indent follows the precision, which follows the spread of the runs.
# The second event counts 0 in every run whatever the load (a context switch of pagetouch, now and
# then, gave cs a noise column in one tool's output and not the other's in CI).
base=$(pagetouch_base) || exit 1
PF100=$((base + 100))
repeat_table() {
	local f

	run_both repeat_table -r 3 --table -e page-faults,alignment-faults "$PT" 100
	for f in perf bperf; do
		sed -E 's/\([+-]([0-9.]+)\) #+$/(\1) #/' "$tmp/repeat_table.$f" \
			>"$tmp/repeat_table.$f.1"
	done
	compare_stat_outputs "$tmp/repeat_table.perf.1" "$tmp/repeat_table.bperf.1" nocolumns
	assert_eq 3 "$(grep -cE '^ +[0-9.]+ \([+-][0-9.]+\) #+$' "$tmp/repeat_table.bperf")" \
		"--table rows"
	# no noise on constant counts (pagetouch 100: pagetouch 0's + 100 faults each run)
	grep -q "^ *$PF100 *page-faults *\$" "$tmp/repeat_table.bperf" ||
		fail "page-faults mean: expected $PF100 without noise"
	# the table's lines start where the mean does
	awk '/# Table of/ { t = index($0, "#") } /seconds time elapsed/ { e = match($0, /[0-9]/) }
	     END { exit !(t && t == e) }' "$tmp/repeat_table.bperf" || fail "--table indent"
}
check_retry repeat_table repeat_table
check_retry repeat_csv side repeat_csv , -x, -r 2 -e page-faults,cs "$PT" 100
check_retry table_without_r first_line_same table_without_r 234 --table -e page-faults true
check_retry table_r1 first_line_same table_r1 234 -r 1 --table -e page-faults true
check_retry null_repeat side null_repeat "" -n -r 2 "$SLEEP" 10
check_retry null_csv side null_csv , -n -x, "$SLEEP" 10
check_retry sync side sync "" -S -e page-faults "$PT" 10

# -r 0 prints each run until ^C, which ends it without printing the run it cuts
repeat_forever() {
	local f

	for f in perf bperf; do
		timeout -s INT 0.5 "$(bin "$f")" stat -r 0 -e page-faults "$SLEEP" 200 \
			>/dev/null 2>"$tmp/forever.$f"
	done
	# two runs of 200 ms fit in 500 ms; a loaded machine may manage one only
	n=$(grep -c 'seconds time elapsed' "$tmp/forever.bperf")
	[ "$n" -ge 1 ] && [ "$n" -le 2 ] || fail "-r 0: $n runs printed in 0.5 s"
	head -n 7 "$tmp/forever.perf" >"$tmp/forever.perf.1"
	head -n 7 "$tmp/forever.bperf" >"$tmp/forever.bperf.1"
	compare_stat_outputs "$tmp/forever.perf.1" "$tmp/forever.bperf.1"
	grep -q ' seconds user' "$tmp/forever.bperf" && fail "-r 0: user/sys lines"
	return 0
}
check_retry repeat_forever repeat_forever

# ---- -r when an event cannot be opened ------------------------------------------------------
# perf's rule: a run that cannot count says why and the next run starts. Events refused as not
# supported are not opened again; a refused leader's members are then opened alone, where their
# group read fails (<not counted>). The last run decides: its table and its status, or exit 255
# and no table. The kernel refuses software/config=0x99/ (ENOENT) everywhere; cycles on a host
# without a PMU (elsewhere both count them).
NOSW=software/config=0x99/
NOSW2=software/config=0x98/
check_retry leader_refused_r side leader_refused_r "" -r 2 -e "{$NOSW,cs}" true
check_retry leader_refused_r_csv side leader_refused_r_csv , -x, -r 2 -e "{$NOSW,cs}" true
check_retry leader_refused_r_json side leader_refused_r_json nocolumns -j -r 2 -e "{$NOSW,cs}" \
	true
check_retry leader_refused_r_plus side leader_refused_r_plus "" -r 2 \
	-e "task-clock,{$NOSW,cs},page-faults" "$PT" 10
check_retry cycles_group_r side cycles_group_r "" -r 2 -e '{cycles,cycles}' true
check_retry cycles_weak_group_r side cycles_weak_group_r "" -r 2 -e '{cycles,instructions}:W' true
check_retry cycles_group_r_csv side cycles_group_r_csv , -x, -r 2 -e '{cycles,cycles}' true
check_retry cycles_group_r_json side cycles_group_r_json nocolumns -j -r 2 -e '{cycles,cycles}' \
	true
# the last run's workload status
check_retry leader_refused_r_status side leader_refused_r_status "" -r 3 -e "{$NOSW,$NOSW2}" \
	sh -c 'exit 3'
# the second group's leader fails in run 2: no table, 255; a third run counts
check_retry two_leaders_r2 side two_leaders_r2 "" -r 2 -e "{$NOSW,$NOSW2},{$NOSW,$NOSW2}" true
check_retry two_leaders_r3 side two_leaders_r3 "" -r 3 -e "{$NOSW,$NOSW2},{$NOSW,$NOSW2}" true
# a workload that cannot run: "Workload failed" once per run, 255
check_retry exec_fails_r side exec_fails_r "" -r 2 -e cs "$tmp/no-such-command"

# -v: each run announced ("perf stat" read as "bperf stat"), the refused leader's warning and the
# members' failed reads
leader_refused_verbose() {
	run_both leader_refused_verbose -v -r 2 -e "{$NOSW,cs}" true
	grep -v -e '^Control descriptor is not initialized$' \
		"$tmp/leader_refused_verbose.perf" | sed 's/^\[ perf stat: /[ bperf stat: /' \
		>"$tmp/leader_refused_verbose.perf2"
	compare_stat_outputs "$tmp/leader_refused_verbose.perf2" \
		"$tmp/leader_refused_verbose.bperf" nocolumns
	assert_eq 2 "$(grep -c '^\[ bperf stat: executing run #[12] \.\.\. \]$' \
		"$tmp/leader_refused_verbose.bperf")" "-v -r 2: run lines"
}
check_retry leader_refused_verbose leader_refused_verbose

# Documented difference: from -r 3 on, perf 6.1 dies of SIGSEGV once a refused leader's member
# was opened alone; bperf prints the table it prints for -r 2.
leader_refused_r3() {
	run_both leader_refused_r2 -r 2 -e "{$NOSW,cs}" true
	norandom "$BPERF" stat -r 3 -e "{$NOSW,cs}" true 2>"$tmp/leader_refused_r3.bperf" ||
		fail "-r 3 with a refused leader: exit $?"
	grep -q ' seconds time elapsed' "$tmp/leader_refused_r3.bperf" ||
		fail "-r 3: no elapsed line"
	# two runs counted: the elapsed line may have a noise (from the -r 2 case: one run)
	sed -e 's/ (2 runs):$/ (3 runs):/' -e '/ seconds time elapsed/d' \
		"$tmp/leader_refused_r2.perf" >"$tmp/leader_refused_r3.perf"
	sed -i '/ seconds time elapsed/d' "$tmp/leader_refused_r3.bperf"
	compare_stat_outputs "$tmp/leader_refused_r3.perf" "$tmp/leader_refused_r3.bperf"
}
check_retry leader_refused_r3 leader_refused_r3

# ---- --pre / --post -----------------------------------------------------------------------------
hooks() {
	run_both hooks -r 2 --pre 'echo pre' --post 'echo post' -e page-faults "$PT" 10
	compare_stat_outputs "$tmp/hooks.perf" "$tmp/hooks.bperf"
	assert_eq "$(printf 'pre\npost\npre\npost')" "$(cat "$tmp/hooks.out.bperf")" "hook order"
	diff "$tmp/hooks.out.perf" "$tmp/hooks.out.bperf" >&2 || fail "hooks' stdout"
}
check_retry hooks hooks

# Documented difference: perf 6.1 skips the run, prints <not supported> counts and exits 0 when
# --pre fails; bperf says so and exits 255 without counts.
pre_fails() {
	local rc

	"$PERF" stat --pre 'exit 3' -e page-faults true >/dev/null 2>&1 ||
		fail "perf --pre failure: exit status $? (perf changed?)"
	"$BPERF" stat --pre 'exit 3' -e page-faults true >/dev/null 2>"$tmp/pre_fails"
	rc=$?
	assert_eq 255 "$rc" "failing --pre: exit status"
	assert_eq "--pre command 'exit 3' failed with exit status 3" "$(cat "$tmp/pre_fails")" \
		"failing --pre: message"
	"$BPERF" stat --post 'kill -9 $$' -e page-faults true >/dev/null 2>"$tmp/post_fails"
	assert_eq 255 "$?" "killed --post: exit status"
	grep -q "^--post command 'kill -9 \$\$' killed by signal 9" "$tmp/post_fails" ||
		fail "killed --post: message"
}
check_retry pre_fails pre_fails

# ---- -I, --interval-count, --summary, --no-csv-summary, --interval-clear ----------------------
check_retry interval_count_summary side interval_count_summary , -x, -I 100 --interval-count 3 \
	--summary -e page-faults "$SLEEP" 250
check_retry interval_no_csv_summary side interval_no_csv_summary , -x, -I 100 --summary \
	--no-csv-summary -e page-faults "$SLEEP" 250
config_no_csv_summary() {
	printf '[stat]\n\tno-csv-summary = true\n' >"$tmp/perfconfig"
	PERF_CONFIG=$tmp/perfconfig side config_no_csv_summary , -x, -I 100 --summary \
		-e page-faults "$SLEEP" 250
	grep -q summary "$tmp/config_no_csv_summary.bperf" && fail "stat.no-csv-summary ignored"
	return 0
}
check_retry config_no_csv_summary config_no_csv_summary

# -I 100 --interval-count 5 system-wide: exactly 5 intervals, which add up to the --summary
# total within 1%; the same through shared BPF counters (cs and cpu-clock are shared with -a)
interval_sum() {
	local name=$1 ev total sum

	shift
	"$BPERF" stat -a -I 100 --interval-count 5 --summary -x, "$@" 2>"$tmp/$name"
	for ev in cpu-clock cs; do
		grep -q ",$ev," "$tmp/$name" || fail "$name: no $ev line"
		assert_eq 5 "$(grep -c "^ *[0-9.]*,[0-9.]*,[a-z]*,$ev," "$tmp/$name")" \
			"$name: $ev intervals"
		total=$(grep "summary,.*,$ev," "$tmp/$name" | cut -d, -f2)
		sum=$(grep "^ *[0-9.]*,[0-9.]*,[a-z]*,$ev," "$tmp/$name" |
			awk -F, '{ s += $2 } END { print s }')
		awk -v s="$sum" -v t="$total" 'BEGIN { d = s - t; if (d < 0) d = -d
			exit !(t > 0 && d <= t / 100 + 1) }' ||
			fail "$name: $ev intervals add up to $sum, total $total"
	done
}
check_retry interval_sum interval_sum interval_sum -e cpu-clock,cs
check_retry interval_sum_bpf interval_sum interval_sum_bpf --bpf-counters -e cpu-clock,cs
check_retry interval_count_5 side interval_count_5 , -x, -a -I 100 --interval-count 5 -e cpu-clock,cs

# deterministic: the intervals' page faults add up to the total, which is sleeper's
interval_exact() {
	local total sum

	norandom "$BPERF" stat -I 100 --summary -x, -e page-faults "$SLEEP" 250 2>"$tmp/exact"
	total=$(grep '^ *summary,' "$tmp/exact" | cut -d, -f2)
	sum=$(grep -v summary "$tmp/exact" | awk -F, '{ s += $2 } END { print s }')
	assert_eq "$total" "$sum" "-I page-faults: intervals vs total"
	norandom "$PERF" stat -x, -e page-faults "$SLEEP" 250 2>"$tmp/exact.perf"
	assert_eq "$(cut -d, -f1 "$tmp/exact.perf")" "$total" "-I total vs perf's count"
}
check_retry interval_exact interval_exact

# --interval-clear needs a terminal: under script(1), perf's ESC[H ESC[2J and a header each time
interval_clear() {
	local f

	require_cmd script
	for f in perf bperf; do
		script -qec "$(bin "$f") stat -I 100 --interval-clear -e page-faults $SLEEP 250" \
			/dev/null | tr -d '\r' >"$tmp/clear.$f"
	done
	assert_eq 3 "$(grep -c $'^\e\\[H\e\\[2J$' "$tmp/clear.bperf")" "clear sequences"
	compare_stat_outputs "$tmp/clear.perf" "$tmp/clear.bperf" nocolumns
}
check_retry interval_clear interval_clear
# --interval-clear without a terminal: perf 6.1.192 refuses it (exit 255), as upstream does; perf
# 6.1.176 and older print the clear sequences into the pipe. bperf refuses it: compared with
# perf where perf refuses it too, else checked alone.
interval_clear_no_tty() {
	local msg='--interval-clear does not work with output' opts
	opts=(-I 100 --interval-clear -e page-faults true)

	if "$PERF" stat "${opts[@]}" 2>&1 >/dev/null | grep -qx -- "$msg"; then
		first_line_same interval_clear_no_tty 255 "${opts[@]}"
		return
	fi
	"$BPERF" stat "${opts[@]}" >/dev/null 2>"$tmp/clear_no_tty.bperf"
	assert_eq 255 $? "--interval-clear without a terminal: exit status"
	assert_eq "$msg" "$(head -n 1 "$tmp/clear_no_tty.bperf")" "--interval-clear: message"
}
check_retry interval_clear_no_tty interval_clear_no_tty

# ---- --timeout, -D -------------------------------------------------------------------------------
check_retry timeout side timeout "" --timeout 100 -e page-faults "$SLEEP" 1000
check_retry timeout_small first_line_same timeout_small 234 --timeout 5 true
delay() {
	local e

	side delay "" -D 50 -e page-faults,task-clock "$SLEEP" 100
	# counting (and the elapsed time) starts after the delay
	e=$(awk '/seconds time elapsed/ { print $1 }' "$tmp/delay.bperf")
	awk -v e="$e" 'BEGIN { exit !(e >= 0.045 && e < 0.075) }' || fail "-D 50: elapsed $e"
	# the faults after the delay (the exit path's: 1 on some machines, 0 on others), as perf's
	[ "$(awk '/ page-faults/ { print $1 }' "$tmp/delay.bperf")" = \
	  "$(awk '/ page-faults/ { print $1 }' "$tmp/delay.perf")" ] ||
		fail "-D 50: page faults after the delay differ from perf's"
}
check_retry delay delay
check_retry delay_disabled side delay_disabled "" -D -1 -e page-faults "$PT" 10
# -D 3000 on a workload that exits at once: the wait ends with the workload, as in perf (bperf
# took the whole delay), and nothing is counted; perf 6.1 then loses the workload's exit status
# and rusage (exit 0, 0 s user and sys), bperf keeps them (README: Differences)
delay_past_exit() {
	local f start rc ms

	for f in perf bperf; do
		start=$(date +%s%N)
		"$(bin "$f")" stat -D 3000 -e page-faults -- sh -c 'exit 3' \
			2>"$tmp/delay_past_exit.$f"
		rc=$?
		ms=$((($(date +%s%N) - start) / 1000000))
		[ "$ms" -lt 1500 ] || fail "$f: -D 3000 on 'exit 3' took $ms ms"
		[ "$f" = perf ] || assert_eq 3 "$rc" "-D 3000 on 'exit 3': exit status"
	done
	compare_stat_outputs "$tmp/delay_past_exit.perf" "$tmp/delay_past_exit.bperf"
	grep -q '<not counted> *page-faults' "$tmp/delay_past_exit.bperf" ||
		fail "-D 3000 on 'exit 3': page-faults counted"
}
check_retry delay_past_exit delay_past_exit
# the workload ends midway between two ticks: at a tick, the fixed schedule of bperf's ticks
# and perf's drifting one can differ by one short interval (README: Differences)
check_retry delay_interval side delay_interval "" -D 150 -I 100 -e page-faults "$SLEEP" 400

# ---- --control -----------------------------------------------------------------------------------
# perf-stat(1)'s example script, shortened (seconds become tenths) and on software events
man_page_control() {
	local f

	for f in perf bperf; do
		PERF_BIN=$(bin "$f") CTL_DIR=$tmp/ bash -c '
			ctl_fifo=${CTL_DIR}perf_ctl.fifo
			test -p ${ctl_fifo} && unlink ${ctl_fifo}
			mkfifo ${ctl_fifo}
			exec {ctl_fd}<>${ctl_fifo}
			ctl_ack_fifo=${CTL_DIR}perf_ctl_ack.fifo
			test -p ${ctl_ack_fifo} && unlink ${ctl_ack_fifo}
			mkfifo ${ctl_ack_fifo}
			exec {ctl_fd_ack}<>${ctl_ack_fifo}
			$PERF_BIN stat -D -1 -e task-clock,cs -a -I 200 \
				--control fd:${ctl_fd},${ctl_fd_ack} \
				-- sleep 1.1 2>${CTL_DIR}ctl.err &
			perf_pid=$!
			sleep 0.3 && echo "enable" >&${ctl_fd} && read -u ${ctl_fd_ack} e1 &&
				echo "enabled(${e1})"
			sleep 0.4 && echo "disable" >&${ctl_fd} && read -u ${ctl_fd_ack} d1 &&
				echo "disabled(${d1})"
			exec {ctl_fd_ack}>&-
			unlink ${ctl_ack_fifo}
			exec {ctl_fd}>&-
			unlink ${ctl_fifo}
			wait -n ${perf_pid}
			exit $?' >"$tmp/man_ctl.out.$f" || fail "$f: the man page script failed"
		mv "$tmp/ctl.err" "$tmp/man_ctl.$f"
	done
	assert_eq "$(printf 'enabled(ack)\ndisabled(ack)')" "$(cat "$tmp/man_ctl.out.bperf")" "acks"
	compare_stat_outputs "$tmp/man_ctl.perf" "$tmp/man_ctl.bperf"
	# enabled from 0.3 to 0.7 s: the 0.2 and 1.0 intervals are not counted, 0.4 and 0.6 are
	grep -A1 -E '^ +0\.2' "$tmp/man_ctl.bperf" | grep -q '<not counted> msec task-clock' ||
		fail "counted before the enable"
	grep -E '^ +0\.6' "$tmp/man_ctl.bperf" | grep -q '[0-9] msec task-clock' ||
		fail "not counted after the enable"
	grep -E '^ +1\.0' "$tmp/man_ctl.bperf" | grep -q '<not counted> msec task-clock' ||
		fail "counted after the disable"
}
check_retry man_page_control man_page_control

# every perf 6.1 command through fifo:ctl,ack: acks (or none) and messages as perf's
control_commands() {
	local f c ack

	for f in perf bperf; do
		rm -f "$tmp/c.fifo" "$tmp/a.fifo"
		mkfifo "$tmp/c.fifo" "$tmp/a.fifo"
		"$(bin "$f")" stat -D -1 -e task-clock,cs,page-faults \
			--control "fifo:$tmp/c.fifo,$tmp/a.fifo" "$SLEEP" 1500 2>"$tmp/cmds.$f" &
		sleep 0.3
		exec 7>"$tmp/c.fifo" 8<"$tmp/a.fifo"
		for c in ping evlist 'evlist -v' 'evlist -F' 'enable cs' bogus enable \
			'disable page-faults' snapshot stop 'enable nosuch' enablex 'evlist x' ack \
			disable; do
			echo "$c" >&7
			read -t 0.3 -u 8 ack || ack=none
			echo "$c: $ack"
		done >"$tmp/cmds.acks.$f"
		exec 7>&- 8<&-
		wait
	done
	diff -u "$tmp/cmds.acks.perf" "$tmp/cmds.acks.bperf" >&2 || fail "acks differ"
	compare_stat_outputs "$tmp/cmds.perf" "$tmp/cmds.bperf"
}
check_retry control_commands control_commands

check_retry control_bad_spec first_line_same control_bad_spec 129 --control foo true
check_retry control_bad_fd first_line_same control_bad_fd 129 --control fd:3,x true
check_retry control_missing_fifo first_line_same control_missing_fifo 129 \
	--control "fifo:$tmp/nosuch" true
# fd: takes any number, as perf does (an fd that is not open is never readable)
check_retry control_closed_fd side control_closed_fd "" --control fd:99 -e page-faults "$PT" 10

# ---- --filter --------------------------------------------------------------------------------
# two of the three execs run pagetouch: exactly 2, as perf counts them
filter_exact() {
	local f

	side filter_exact , -x, -e sched:sched_process_exec --filter 'filename ~ "*pagetouch"' \
		sh -c "$PT 1; $PT 1; true"
	for f in perf bperf; do
		assert_eq 2 "$(count "$tmp/filter_exact.$f" sched:sched_process_exec)" "$f count"
	done
	# shared counters cannot filter: bperf counts the filtered event directly, same count
	norandom "$BPERF" stat --bpf-counters -x, -e sched:sched_process_exec \
		--filter 'filename ~ "*pagetouch"' sh -c "$PT 1; $PT 1; true" 2>"$tmp/filter_bpf"
	assert_eq 2 "$(count "$tmp/filter_bpf" sched:sched_process_exec)" "--bpf-counters count"
}
check_retry filter_exact filter_exact
# filters on one event join with &&; a filter applies to its -e only (not sched_wakeup)
check_retry filter_twice side filter_twice "" -e sched:sched_process_exec --filter 'pid > 0' \
	--filter 'filename ~ "*pagetouch"' -e sched:sched_process_exit sh -c "$PT 1; true"
check_retry filter_glob side filter_glob "" -e 'sched:sched_process_*' --filter 'pid > 0' "$PT" 1
check_retry filter_bad side filter_bad "" -e sched:sched_switch --filter 'nosuch > 0' "$PT" 1
check_retry filter_no_event first_line_same filter_no_event 129 --filter 'pid > 0' true
check_retry filter_software first_line_same filter_software 129 -e task-clock --filter x true

# ---- --iostat: no IIO PMU here, and perf says so --------------------------------------------
check_retry iostat first_line_same iostat 129 --iostat true
check_retry iostat_list first_line_same iostat_list 129 --iostat=list true
iostat_usage() {
	run_both iostat_usage --iostat=list true
	assert_eq "$(wc -l <"$tmp/iostat_usage.perf")" "$(wc -l <"$tmp/iostat_usage.bperf")" \
		"--iostat=list: usage without the option's line"
}
check_retry iostat_usage iostat_usage

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
