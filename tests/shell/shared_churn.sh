#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Churn and faults: 32 session slots, each restarted as soon as its session ends, for
# CHURN_SECONDS (default 60, the issue's minute). About half
# are "survivors" that count a pagetouch or pingpong workload with direct and shared counters side
# by side; the others are "victims" (sleeper workloads sharing the same leaders), SIGKILLed at
# random, including while they load leaders or hold the attr map lock. Every survivor must count
# page faults exactly (NAME:b == NAME); after all exit, no leader program or link stays loaded
# and the attr map is empty. Before the churn, one deterministic case of it: a session whose
# leader's other session was SIGKILLed leaves no dead entry when it ends.
#
# Known gaps (see finish_session): now and then a survivor counts page-faults:b a few faults above
# direct counting (up to 64 allowed), or context switches off (up to 6); each case is printed,
# and page faults off in more than one survivor in a hundred fail.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup churn
CHURN_SECONDS=${CHURN_SECONDS:-60}
NR_SLOTS=32
W=$WORKLOADS

SURVIVOR_EVENTS=(
	page-faults,page-faults:b
	page-faults,page-faults:b,context-switches,context-switches:b
	page-faults,page-faults:b,minor-faults,minor-faults:b,cpu-clock:b
)
VICTIM_ARGS=(
	"--bpf-counters -a -e page-faults,context-switches,cpu-clock"
	"-e page-faults:b,context-switches:b,task-clock:b"
	"-e minor-faults:b,page-faults:b"
	"--bpf-counters -e cpu-clock,page-faults"
)

declare -a slot_pid slot_kind slot_out alive
started=0 killed=0 checked=0 victims_done=0 fault_gaps=0

start_session() {
	local i=$1 events n

	slot_out[i]=$TMP/slot$i.$started
	if ((RANDOM % 2)); then
		slot_kind[i]=survivor
		events=${SURVIVOR_EVENTS[RANDOM % ${#SURVIVOR_EVENTS[@]}]}
		if ((RANDOM % 4)); then
			n=$((RANDOM % 2000))
			"$BPERF" stat -x, -o "${slot_out[i]}" --bpf-attr-map "$SHARED_MAP" \
				-e "$events" -- "$W/pagetouch" "$n" &
		else
			"$BPERF" stat -x, -o "${slot_out[i]}" --bpf-attr-map "$SHARED_MAP" \
				-e "$events" -- "$W/pingpong" 300 &
		fi
	else
		slot_kind[i]=victim
		# its own process group, so that SIGKILL takes the workload with it
		# shellcheck disable=SC2086 # the options' words
		setsid "$BPERF" stat -x, -o "${slot_out[i]}" --bpf-attr-map "$SHARED_MAP" \
			${VICTIM_ARGS[RANDOM % ${#VICTIM_ARGS[@]}]} -- \
			"$W/sleeper" $((200 + RANDOM % 2000)) &
	fi
	slot_pid[i]=$!
	BG_PIDS+=($!)
	started=$((started + 1))
}

# finish_session I: reaps the slot's session and checks a survivor's counts.
finish_session() {
	local i=$1 status

	wait "${slot_pid[i]}"
	status=$?
	if [ "${slot_kind[i]}" = victim ]; then
		victims_done=$((victims_done + 1))
		[ "$status" -eq 0 ] || [ "$status" -eq 137 ] ||
			fail "victim session exited $status: $(cat "${slot_out[i]}" 2>/dev/null)"
		rm -f "${slot_out[i]}"
		return
	fi
	[ "$status" -eq 0 ] || fail "survivor session exited $status: $(cat "${slot_out[i]}")"
	# Known gaps (tests/README.md, shared_churn.sh): on this host's kernel the switches out of
	# its guest agent's threads run no tracepoint, so a counted task that runs right after one
	# gets the agent's slice too (page faults +1 and +10 in 2 of 4,170 survivors); the emulated
	# 6.1 guest once counted one context switch fewer than direct counting (1 in 53), not found.
	# Each is printed; a larger difference fails, and so do page faults off too often.
	local before

	near_pair "${slot_out[i]}" "survivor $started" context-switches 6 >&2
	before=$NEAR_PAIRS
	near_pair "${slot_out[i]}" "survivor $started" page-faults 64 >&2
	near_pair "${slot_out[i]}" "survivor $started" minor-faults 64 >/dev/null
	[ "$NEAR_PAIRS" = "$before" ] || fault_gaps=$((fault_gaps + 1))
	# the near pairs are taken out of the file: the rest, if any, must be equal
	# (a shared-only event such as cpu-clock:b may be all that is left: nothing to pair)
	awk -F, '{ n[$3] = 1 } END { for (e in n) if (e ~ /:b$/ && substr(e, 1, length(e) - 2) in n)
		exit 0; exit 1 }' "${slot_out[i]}" &&
		check_pairs "${slot_out[i]}" "survivor $started" >/dev/null
	checked=$((checked + 1))
	rm -f "${slot_out[i]}"
}

# A session has ended when its process is gone or a zombie.
ended() {
	local pid comm state

	# a builtin read, no fork: under emulation (tools/vmtest) a fork per slot is too slow
	read -r pid comm state _ 2>/dev/null <"/proc/$1/stat" || return 0
	[ "$state" = Z ]
}

# controlled NAME WORKLOAD...: a session on minor-faults:b that opens its counters, is enabled
# through --control and acks; returns once its slot in the leader is taken.
controlled() {
	local name=$1 reply

	shift
	mkfifo "$TMP/$name.ctl" "$TMP/$name.ack"
	setsid "$BPERF" stat -x, -o "$TMP/$name.out" --bpf-attr-map "$SHARED_MAP" \
		-e minor-faults:b -D -1 --control "fifo:$TMP/$name.ctl,$TMP/$name.ack" -- "$@" \
		>/dev/null &
	eval "${name}_pid=\$!"
	timeout 60 bash -c 'echo enable >"$1"' _ "$TMP/$name.ctl" || fail "$name: no control fifo"
	read -r -t 60 reply <"$TMP/$name.ack"
	[ "$reply" = ack ] || fail "$name: no ack ($reply)"
}

# A leader whose other session was SIGKILLed: the live session, closing, finds the killed one's
# slot dead, is the last user and takes the entry out with its leader (none is left dead).
mkfifo "$TMP/go"
controlled live head -c 1 "$TMP/go"
controlled killed "$W/sleeper" 600000
kill -KILL -- "-$killed_pid"
wait "$killed_pid" 2>/dev/null
echo x >"$TMP/go"
wait "$live_pid" || fail "the live session failed"
assert_nothing_left
assert_eq 0 "$(bpftool -j map dump pinned "$SHARED_MAP" | jq length)" \
	"entries left after the last live sharer of a killed session"
echo "killed sharer: the last live session took the leader's entry out"

for i in $(seq 0 $((NR_SLOTS - 1))); do
	start_session "$i"
done
end=$((SECONDS + CHURN_SECONDS))
while [ "$SECONDS" -lt "$end" ]; do
	for i in $(seq 0 $((NR_SLOTS - 1))); do
		if ended "${slot_pid[i]}"; then
			finish_session "$i"
			start_session "$i"
		fi
	done
	# SIGKILL a random running victim, one time in two (the first time always: in the emulated
	# guest 15 s once went by without one): its process group, workload included
	alive=()
	for i in $(seq 0 $((NR_SLOTS - 1))); do
		[ "${slot_kind[i]}" = victim ] && ! ended "${slot_pid[i]}" && alive+=("$i")
	done
	if [ ${#alive[@]} -gt 0 ] && { [ "$killed" -eq 0 ] || ((RANDOM % 2)); }; then
		i=${alive[RANDOM % ${#alive[@]}]}
		kill -KILL -- "-${slot_pid[i]}" 2>/dev/null && killed=$((killed + 1))
	fi
	sleep 0.02
done
# the rest end by themselves: the sessions that close clean up after the killed ones
for i in $(seq 0 $((NR_SLOTS - 1))); do
	finish_session "$i"
done
BG_PIDS=()
# A victim SIGKILLed just before the end may die after the last survivor's clean-up (seen in the
# emulated guest): its entry then waits for the next session that looks, by design. That next
# session is this one, started once every process is gone; it must count exactly and leave
# nothing behind.
"$BPERF" stat -x, -o "$TMP/last" --bpf-attr-map "$SHARED_MAP" -e page-faults,page-faults:b \
	-- "$W/pagetouch" 100 || fail "the last session failed"
check_pairs "$TMP/last" "the last session" >/dev/null
echo "$started sessions in ${CHURN_SECONDS}s: $checked survivors with exact page faults" \
	"($NEAR_PAIRS near pairs printed above), $killed victims SIGKILLed," \
	"$victims_done victims in all"
[ "$checked" -gt 0 ] || fail "no survivor finished"
[ "$fault_gaps" -le $((checked / 100 + 1)) ] ||
	fail "$fault_gaps of $checked survivors off by page faults: more than one in a hundred"
[ "$killed" -gt 0 ] || fail "no victim was killed"

assert_nothing_left
entries=$(bpftool -j map dump pinned "$SHARED_MAP" | jq length)
assert_eq 0 "$entries" "entries left in the attr map"
echo "nothing left: no leader program or link, an empty attr map"
