#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Sessions share leaders: 8 concurrent `--bpf-counters -a` sessions on the same 3 events run
# exactly 3 leaders, that is 3 perf events per CPU in all, where 8 direct sessions open 24 per
# CPU; and 8 concurrent sessions on one shared event each count exactly their own workload.
#
# Where the perf events are: a direct session holds one perf_event fd per event and CPU. A shared
# session holds none (checked); each leader's events live in its PERF_EVENT_ARRAY map "events"
# (BPF_F_PRESERVE_ELEMS keeps them after the fds that installed them close), which has one entry
# per possible CPU and event. So the perf events of the shared sessions are the entries of the
# leaders' events maps: 3 leaders of one event each, 3 events per CPU.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup sharing
NR_SESSIONS=8
EVENTS=page-faults,context-switches,cpu-clock
nr_cpus=$(nproc)
W=$WORKLOADS

# perf_event_fds PID...: how many perf_event fds the processes hold in all.
perf_event_fds() {
	local pid total=0 n

	for pid in "$@"; do
		n=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -c 'anon_inode:\[perf_event\]')
		total=$((total + n))
	done
	echo "$total"
}

# start_sessions [bperf options]: 8 sessions of -a $EVENTS around a shell that waits for
# wait_sessions (the checks between may take seconds in an emulated guest), or for the test's
# files to go (a failed test's sessions are killed, and their shells left behind); sets PIDS.
start_sessions() {
	local i

	rm -f "$TMP/release"
	PIDS=()
	for i in $(seq "$NR_SESSIONS"); do
		"$BPERF" stat -x, -o "$TMP/session$i" --bpf-attr-map "$SHARED_MAP" "$@" -a \
			-e "$EVENTS" -- \
			sh -c 'while [ ! -e "$1" ] && [ -d "${1%/*}" ]; do sleep 0.1; done' sh \
			"$TMP/release" &
		PIDS+=($!)
		BG_PIDS+=($!)
	done
}

# all_joined: whether every session of PIDS has joined (its bperf has a child that is sh by
# now); sets joined to how many have
all_joined() {
	local pid

	joined=0
	for pid in "${PIDS[@]}"; do
		pgrep -P "$pid" -x sh >/dev/null && joined=$((joined + 1))
	done
	[ "$joined" -eq "$NR_SESSIONS" ]
}

wait_sessions() {
	local pid

	touch "$TMP/release"
	for pid in "${PIDS[@]}"; do
		wait "$pid" || fail "a session exited $?"
	done
}

# --- shared: 3 leaders for 8 sessions ---------------------------------------------------------
start_sessions --bpf-counters
# every session has joined once its workload runs
wait_until all_joined 2 || fail "only $joined of $NR_SESSIONS sessions started"

ours=$(map_link_ids | sort -n)
assert_eq 3 "$(echo "$ours" | grep -c .)" "entries in the attr map"
# the on_switch programs of the links our map names, and their events maps
progs=$(bpftool -j link show | jq -r --arg ids "$(echo "$ours" | paste -sd, -)" \
	'($ids | split(",") | map(tonumber)) as $l | .[] | select(.id as $i | $l | index($i)) |
	.prog_id')
assert_eq 3 "$(echo "$progs" | grep -c .)" "live leader links named by the attr map"
leaders=$(bpftool -j prog show | jq --arg ids "$(echo "$progs" | paste -sd, -)" \
	'($ids | split(",") | map(tonumber)) as $p |
	[.[] | select(.name == "on_switch" and (.id as $i | $p | index($i)))] | length')
assert_eq 3 "$leaders" "on_switch programs of the 8 sessions"
new_on_switch=$(comm -13 <(echo "$BASELINE_PROGS") <(leader_prog_ids) | while read -r id; do
	bpftool -j prog show id "$id" | jq -r 'select(.name == "on_switch") | .id'
done | grep -c .)
assert_eq 3 "$new_on_switch" "on_switch programs loaded since the test started"
map_ids=$(bpftool -j prog show | jq -r --arg ids "$(echo "$progs" | paste -sd, -)" \
	'($ids | split(",") | map(tonumber)) as $p | .[] | select(.id as $i | $p | index($i)) |
	.map_ids[]' | paste -sd, -)
leader_events=$(bpftool -j map show | jq --arg ids "$map_ids" \
	'($ids | split(",") | map(tonumber)) as $m | [.[] | select(.type == "perf_event_array" and
	.name == "events" and (.id as $i | $m | index($i))) | .max_entries] | add')
assert_eq $((3 * nr_cpus)) "$leader_events" "perf events in the leaders' events maps"
assert_eq 0 "$(perf_event_fds "${PIDS[@]}")" "perf_event fds held by the shared sessions"
echo "shared: $NR_SESSIONS sessions, $leaders leaders, $((leader_events / nr_cpus))" \
	"perf events per CPU ($leader_events on $nr_cpus CPUs), 0 perf_event fds in the sessions"
wait_sessions
for i in $(seq "$NR_SESSIONS"); do
	for ev in page-faults context-switches cpu-clock; do
		[[ $(count_of "$TMP/session$i" "$ev") =~ ^[0-9.]+$ ]] ||
			fail "session $i did not count $ev: $(cat "$TMP/session$i")"
	done
done

# --- direct: 24 perf events per CPU for the same 8 sessions ----------------------------------
start_sessions
wait_until 'fds=$(perf_event_fds "${PIDS[@]}")
	[ "$fds" -eq $((NR_SESSIONS * 3 * nr_cpus)) ]' 2
assert_eq $((NR_SESSIONS * 3 * nr_cpus)) "$fds" "perf_event fds of $NR_SESSIONS direct sessions"
echo "direct: $NR_SESSIONS sessions, $((fds / nr_cpus)) perf events per CPU ($fds fds)"
wait_sessions

# --- 8 sessions on one shared event, each exact for its own workload --------------------------
# Each target waits stopped before its exec while all 8 sessions attach, then all run at once.
# pagetouch N takes N faults more than pagetouch 0 (25 here, a few more on a busy machine): the
# Ns are 100 apart, so a session counting anything but its own target would be far off.
declare -A expected_n
PIDS=()
for i in $(seq "$NR_SESSIONS"); do
	n=$((i * 100))
	start_stopped "$W/pagetouch" "$n"
	"$BPERF" stat -x, -o "$TMP/exact$i" --bpf-attr-map "$SHARED_MAP" -p "$STOPPED_PID" \
		-e page-faults,page-faults:b,context-switches,context-switches:b &
	PIDS+=($!)
	BG_PIDS+=($!)
	TARGETS[i]=$STOPPED_PID
	expected_n[$i]=$n
done
wait_until '[ "$(perf_event_fds "${PIDS[@]}")" -eq $((NR_SESSIONS * 2)) ]' 2 || true
sleep 0.2
assert_eq 2 "$(map_link_ids | grep -c .)" "leaders of the 8 sessions (faults, switches)"
kill -CONT "${TARGETS[@]}"
wait_sessions
extras=
for i in $(seq "$NR_SESSIONS"); do
	cs_within "$TMP/exact$i" "session $i" 1
	check_pairs "$TMP/exact$i" "session $i, pagetouch ${expected_n[$i]}"
	extra=$(($(count_of "$TMP/exact$i" page-faults:b) - expected_n[$i]))
	[ "$extra" -ge 0 ] && [ "$extra" -lt 50 ] ||
		fail "session $i: page-faults:b is N + $extra, not its own pagetouch ${expected_n[$i]}"
	extras="$extras $extra"
done
echo "8 concurrent sessions: page-faults:b = N + start-up faults ($extras ), equal to direct"

assert_nothing_left
echo "sharing works"
