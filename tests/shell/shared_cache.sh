#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A leader keeps, per CPU, the sessions that count each thread switched out there (task_slots),
# valid while the filters' generations stay as they were. Each change to the filters must move
# them, or a CPU goes on crediting what its cache says:
# - a session that joins a thread the cache already knows (user space's generation): the thread
#   stops itself once while a first session counts it, on the CPU it is pinned to, then a second
#   session joins and the thread takes pagetouch's faults; both count exactly what direct
#   counting does;
# - a child that takes the tid of a thread nobody counted, which ran on the same CPU while the
#   session counted (the leader's generation, as the child joins the filter), and a thread nobody
#   counts that takes the tid of that child once it has exited (as the child leaves the filter):
#   the session's shared counts equal its direct ones, which follow the child and not the other.
#   The tid is reused by writing /proc/sys/kernel/ns_last_pid before the fork;
# - a thread nobody counts whose tid shares the counted thread's cache entry (tid + 256 k).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup cache
W=$WORKLOADS
pin=$(($(nproc) - 1))
EVENTS=page-faults,page-faults:b,context-switches,context-switches:b

# attach NAME PID: a session on $EVENTS counting PID (-p), started disabled and enabled through
# --control; returns once it acks (its slots in the leaders are taken); sets NAME_pid.
attach() {
	local name=$1 reply

	mkfifo "$TMP/$name.ctl" "$TMP/$name.ack"
	"$BPERF" stat -x, -o "$TMP/$name.out" --bpf-attr-map "$SHARED_MAP" -e "$EVENTS" -D -1 \
		--control "fifo:$TMP/$name.ctl,$TMP/$name.ack" -p "$2" &
	eval "${name}_pid=\$!"
	BG_PIDS+=($!)
	timeout 60 bash -c 'echo enable >"$1"' _ "$TMP/$name.ctl" || fail "$name: no control fifo"
	read -r -t 60 reply <"$TMP/$name.ack"
	[ "$reply" = ack ] || fail "$name: no ack ($reply)"
}

# faults_ok FILE WHAT LEAST: direct and shared equal, and at least LEAST page faults.
faults_ok() {
	cs_within "$1" "$2" 1
	check_pairs "$1" "$2"
	[ "$(count_of "$1" page-faults)" -ge "$3" ] ||
		fail "$2: $(count_of "$1" page-faults) page faults, fewer than $3"
}

# A session on a thread that sleeps throughout: the leaders keep the cache only while two
# sessions or more count threads (with one, a lookup in the filters costs less).
"$W/sleeper" 600000 &
sleeper=$!
BG_PIDS+=("$sleeper")
attach bystander "$sleeper"

# --- a session joins a thread the cache knows -------------------------------------------------
taskset -c "$pin" setarch "$(uname -m)" -R sh -c 'kill -STOP $$; kill -STOP $$; exec "$0" "$@"' \
	"$W/pagetouch" 1000 &
task=$!
BG_PIDS+=("$task")
wait_stopped "$task"
attach first "$task"
# it runs, and stops itself on CPU $pin: the leaders cache its slots there
kill -CONT "$task"
sleep 0.05
wait_stopped "$task"
attach second "$task"
kill -CONT "$task"
wait "$first_pid" || fail "first session: exit $?"
wait "$second_pid" || fail "second session: exit $?"
faults_ok "$TMP/first.out" "first session" 1000
faults_ok "$TMP/second.out" "session that joined later" 1000

# --- a tid comes back: a counted child, then a thread nobody counts ----------------------------
[ -w /proc/sys/kernel/ns_last_pid ] || skip "no /proc/sys/kernel/ns_last_pid to reuse a tid"

# reuse_tid TID CMD...: runs CMD in the background as TID, pinned to CPU $pin; returns its pid
# in REUSED (another fork on the machine may take TID first: tried again a few times).
reuse_tid() {
	local tid=$1 try

	shift
	for try in 1 2 3 4 5 6 7 8 9 10; do
		echo $((tid - 1)) >/proc/sys/kernel/ns_last_pid
		taskset -c "$pin" "$@" &
		REUSED=$!
		wait "$REUSED"
		[ "$REUSED" -eq "$tid" ] && return 0
	done
	fail "could not run $* as tid $tid"
}

# --- two tids that share a cache entry: the entry is the counted thread's alone -----------------
# the counted thread stops itself on CPU $pin (its slots cached in entry tid % 256 there), then
# a thread nobody counts, whose tid has the same low bits, makes 500 page faults on that CPU
taskset -c "$pin" sh -c 'kill -STOP $$; kill -STOP $$; exec "$0" "$@"' "$W/pagetouch" 1000 &
task=$!
BG_PIDS+=("$task")
wait_stopped "$task"
attach shares "$task"
kill -CONT "$task"
sleep 0.05
wait_stopped "$task"
# a free tid of the same entry (a live process keeps its tid: ns_last_pid cannot give it): the
# next one above, or, near pid_max, the first from 300 (where the kernel's pids wrap to) up
pid_max=$(cat /proc/sys/kernel/pid_max)
alias_tid=
for cand in $(seq $((task + 256)) 256 $((pid_max - 1))) \
	$(seq $((300 + (task - 300 % 256 + 256) % 256)) 256 $((task - 1))); do
	[ -e "/proc/$cand" ] || { alias_tid=$cand; break; }
done
[ -n "$alias_tid" ] || fail "no free tid of the same entry as $task below $pid_max"
reuse_tid "$alias_tid" "$W/pagetouch" 500
kill -CONT "$task"
wait "$shares_pid" || fail "session: exit $?"
faults_ok "$TMP/shares.out" "pagetouch 500 uncounted as tid $alias_tid" 1000

reuse_ok=
for attempt in 1 2 3 4 5; do
	rm -f "$TMP"/session.* "$TMP/child"
	# the parent forks the child when continued, then stops again once the child has exited
	taskset -c "$pin" sh -c 'kill -STOP $$; "$0" "$1" & echo $! >"$2"; wait; kill -STOP $$' \
		"$W/pagetouch" 1000 "$TMP/child" &
	parent=$!
	BG_PIDS+=("$parent")
	wait_stopped "$parent"
	attach session "$parent"
	# a thread nobody counts switches out on CPU $pin as tid, its slots (none) cached there
	taskset -c "$pin" sleep 0.05 &
	tid=$!
	wait "$tid"
	echo $((tid - 1)) >/proc/sys/kernel/ns_last_pid
	kill -CONT "$parent"
	# builtins only until the child is forked: a fork of ours would take the tid
	SECONDS=0
	while [ ! -s "$TMP/child" ] && [ "$SECONDS" -lt 60 ]; do :; done
	wait_stopped "$parent"
	child=$(<"$TMP/child")
	if [ "$child" -eq "$tid" ]; then
		# the counted child has left the filter: a thread nobody counts takes its tid
		reuse_tid "$tid" "$W/pagetouch" 500
		reuse_ok=1
	fi
	kill -CONT "$parent"
	wait "$session_pid" || fail "session: exit $?"
	[ -n "$reuse_ok" ] && break
	echo "attempt $attempt: the child got tid $child, not $tid (another fork took it)"
done
[ -n "$reuse_ok" ] || fail "no child got the tid of the thread before it in 5 attempts"
faults_ok "$TMP/session.out" "child as tid $tid, then pagetouch 500 uncounted as tid $tid" 1000

kill "$sleeper"
wait "$bystander_pid" || fail "bystander session: exit $?"
check_pairs "$TMP/bystander.out" "bystander session"

assert_nothing_left
echo "the cached slots of a thread follow every change to the filters"
