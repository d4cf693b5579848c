#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Hostile attr maps: whatever sits at the --bpf-attr-map path, bperf either stops with one clear
# line and exit 255, or recovers and still counts exactly (page-faults:b == page-faults); it never
# counts through a program that is not its leader for that event (under the event's key or its
# member key), never crashes, and leaves nothing behind.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup hostile
W=$WORKLOADS
EVENTS=page-faults,page-faults:b,context-switches,context-switches:b

# refused WHAT PATTERN [bperf options]: bperf must exit 255 with one error line matching PATTERN.
refused() {
	local what=$1 pattern=$2 status

	shift 2
	"$BPERF" stat -e page-faults:b --bpf-attr-map "$SHARED_MAP" "$@" -- true 2>"$TMP/err"
	status=$?
	[ "$status" -eq 255 ] || fail "$what: exit $status, expected 255: $(cat "$TMP/err")"
	[ "$(grep -c . "$TMP/err")" -eq 1 ] || fail "$what: expected one error line: $(cat "$TMP/err")"
	grep -q -- "$pattern" "$TMP/err" || fail "$what: '$pattern' not in: $(cat "$TMP/err")"
	echo "$what: $(cat "$TMP/err")"
}

# exact WHAT: a session at $SHARED_MAP still counts exactly; its -v lines go to $TMP/verbose.
exact() {
	norandom "$BPERF" stat -v -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" -e "$EVENTS" -- \
		"$W/pagetouch" 300 2>"$TMP/verbose" || fail "$1: exit $?: $(cat "$TMP/verbose")"
	cs_within "$TMP/out" "$1" 1
	check_pairs "$TMP/out" "$1"
}

# background EVENT: a session sharing EVENT until stop_background; waits until its entry is in
# the map.
background() {
	"$BPERF" stat -x, -o "$TMP/bg" --bpf-attr-map "$SHARED_MAP" -e "$1" -- \
		"$W/sleeper" 600000 &
	BG=$!
	BG_PIDS+=("$BG")
	wait_until one_live_entry 5 || fail "the session for $1 did not show up in the attr map:" \
		"$(bpftool -j map dump pinned "$SHARED_MAP" 2>&1)"
}

# one_live_entry: the map holds one entry, and it names a link that exists
one_live_entry() {
	local link

	[ "$(bpftool -j map dump pinned "$SHARED_MAP" 2>/dev/null | jq length)" = 1 ] || return 1
	link=$(map_link_ids 2>/dev/null | head -n 1)
	[ -n "$link" ] && bpftool link show id "$link" >/dev/null 2>&1
}

# stop_background: ends the background session's sleeper (SIGUSR1: exit 0), then the session.
stop_background() {
	wait_until 'pkill -USR1 -P "$BG" -x sleeper' 10 || fail "no sleeper under session $BG"
	wait "$BG" || fail "the background session failed"
}

# The map's only entry: key and value as bpftool words, and the link id.
read_entry() {
	KEY=$(bpftool -j map dump pinned "$SHARED_MAP" | jq -r '.[0].key | join(" ")')
	VALUE=$(bpftool -j map dump pinned "$SHARED_MAP" | jq -r '.[0].value | join(" ")')
	LINK=$(map_link_ids | head -n 1)
	[ -n "$LINK" ] ||
		fail "no link id in the attr map: $(bpftool -j map dump pinned "$SHARED_MAP")"
}

# le32 N: N as 4 little-endian bpftool bytes
le32() {
	printf '0x%02x 0x%02x 0x%02x 0x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) \
		$(($1 >> 24 & 255))
}

# --- not a map at all ------------------------------------------------------------------------
background page-faults:b
read_entry
PF_KEY=$KEY
prog=$(bpftool -j link show id "$LINK" | jq .prog_id)
saved_map=/sys/fs/bpf/bperf_test_hostile_saved
rm -f "$saved_map"
mv "$SHARED_MAP" "$saved_map" || fail "cannot move the attr map aside"
bpftool prog pin id "$prog" "$SHARED_MAP" || fail "cannot pin the leader program"
refused "a pinned program" "is not a BPF map"
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
bpftool link pin id "$LINK" "$SHARED_MAP" || fail "cannot pin the leader link"
refused "a pinned link" "is not a BPF map"
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
mv "$saved_map" "$SHARED_MAP" || fail "cannot put the attr map back"
stop_background

# --- maps of the wrong shape -----------------------------------------------------------------
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
bpftool map create "$SHARED_MAP" type array key 4 value 8 entries 4 name bperf_test
refused "an array map" "not a perf attr map (type 2"
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
bpftool map create "$SHARED_MAP" type hash key 64 value 8 entries 4 name bperf_test
refused "64-byte keys" "key size 64"
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
bpftool map create "$SHARED_MAP" type hash key 128 value 16 entries 4 name bperf_test
refused "16-byte values" "value size 16"
rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock

# --- bogus entries: ids of nothing, of a link that is no leader, of another event's leader ----
for id in 0 2147483647 4294967295; do
	bpftool map create "$SHARED_MAP" type hash key 128 value 8 entries 1024 name bperf_test
	bpftool map update pinned "$SHARED_MAP" key $PF_KEY value $(le32 "$id") 0 0 0 0
	exact "entry naming link $id"
	grep -q "new leader" "$TMP/verbose" || fail "link $id: no new leader: $(cat "$TMP/verbose")"
	rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
done

background context-switches:b
read_entry
CS_VALUE=$VALUE
CS_LINK=$LINK
# the leader's on_exec link (created right after its on_switch link): a link, not a leader
exec_link=$((CS_LINK + 1))
bpftool -j link show id "$exec_link" | jq -e '.tp_name == "task_rename"' >/dev/null ||
	fail "link $exec_link is not the leader's on_exec link"
bpftool map update pinned "$SHARED_MAP" key $PF_KEY value $(le32 "$exec_link") 0 0 0 0
exact "entry naming an on_exec link"
grep -q "new leader" "$TMP/verbose" || fail "on_exec link adopted: $(cat "$TMP/verbose")"
# the context-switches leader filed under page-faults (a reused id): never counted through
bpftool map update pinned "$SHARED_MAP" key $PF_KEY value $CS_VALUE
exact "page-faults entry naming the context-switches leader"
grep -q "new leader" "$TMP/verbose" || fail "another event's leader adopted"
grep -q "sharing leader link $CS_LINK" "$TMP/verbose" ||
	fail "the context-switches leader was not shared for context-switches"
# the same under page-faults' member key (__reserved_2, bytes 110-111, = 0xb9e7: what a daemon
# files for its group's members): the leader's .rodata has no page-faults member, never shared
PF_MEMBER_KEY=$(echo "$PF_KEY" | awk '{ $111 = "0xe7"; $112 = "0xb9"; print }')
bpftool map delete pinned "$SHARED_MAP" key $PF_KEY 2>/dev/null
bpftool map update pinned "$SHARED_MAP" key $PF_MEMBER_KEY value $CS_VALUE
exact "page-faults' member key naming the context-switches leader"
grep -q "(member" "$TMP/verbose" && fail "adopted by a member key: $(cat "$TMP/verbose")"
grep -q "new leader" "$TMP/verbose" || fail "no new page-faults leader: $(cat "$TMP/verbose")"
bpftool map delete pinned "$SHARED_MAP" key $PF_MEMBER_KEY

# --- a leader of another layout (its leader_state says another ABI version) -------------------
cs_prog=$(bpftool -j link show id "$CS_LINK" | jq .prog_id)
state_map=$(bpftool -j prog show id "$cs_prog" | jq -r '.map_ids[]' | while read -r m; do
	bpftool -j map show id "$m" | jq -r 'select(.name == "leader_state") | .id'
done)
[ -n "$state_map" ] || fail "no leader_state map in program $cs_prog"
state=$(bpftool -j map lookup id "$state_map" key 0 0 0 0 | jq -r '.value | .[4:] | join(" ")')
bpftool map update id "$state_map" key 0 0 0 0 value 0x63 0 0 0 $state
exact "a leader of ABI version 99"
grep -q "sharing leader link $CS_LINK" "$TMP/verbose" &&
	fail "a leader of another ABI version was shared"
stop_background

# --- a workload killed before its exec --------------------------------------------------------
# The workload waits at a pipe until its counters are open (here: while its leader loads); one
# killed meanwhile has closed that pipe. bperf must say so in one line and exit 255 (it died of
# SIGPIPE, 141, and left its entry naming a dead leader), or, killed just after its release,
# report the workload's death as usual (exit 0). At least one of 10 kills must land in time.
hits=0
for _ in $(seq 10); do
	"$BPERF" stat -e page-faults:b --bpf-attr-map "$SHARED_MAP" -- "$W/sleeper" 10 \
		2>"$TMP/err" &
	bp=$!
	BG_PIDS+=("$bp")
	killed=false
	# shell builtins only: the window is the leader's load, tens of milliseconds
	while ! $killed && kill -0 "$bp" 2>/dev/null; do
		kids=
		read -r kids <"/proc/$bp/task/$bp/children" 2>/dev/null
		for c in $kids; do
			[ "/proc/$c/exe" -ef "$BPERF" ] && kill -KILL "$c" 2>/dev/null &&
				killed=true
		done
	done
	wait "$bp"
	status=$?
	case $status in
	255)
		assert_eq "Workload failed: Killed before its exec" "$(cat "$TMP/err")" \
			"stderr of a session whose workload was killed before its exec"
		hits=$((hits + 1)) ;;
	0)
		! $killed || grep -q "^.*sleeper: Killed$" "$TMP/err" ||
			fail "workload killed after its release: $(cat "$TMP/err")" ;;
	*)
		fail "workload killed before its exec: exit $status: $(cat "$TMP/err")" ;;
	esac
	dead=$(map_dead_entries | paste -sd' ' -)
	[ -z "$dead" ] || fail "workload killed before its exec: dead entries (links $dead)"
done
[ "$hits" -gt 0 ] || fail "no kill of 10 landed before the workload's release"
echo "workload killed before its exec: $hits of 10 in time, one line and exit 255 each"

# --- a directory another user made on bpffs ----------------------------------------------------
# A root without CAP_DAC_OVERRIDE (a container's root, say) may not create a pin in nobody's
# directory, nor look into a 0700 one: the line names the directory and its owner (it said that
# shared counters need root).
other_dir=${SHARED_MAP}_dir
rm -rf "$other_dir"
nobody_uid=$(id -u nobody)
mkdir -m 0755 "$other_dir" "$other_dir/sub"
chmod 0700 "$other_dir/sub"
chown "$nobody_uid:$(id -g nobody)" "$other_dir" "$other_dir/sub" ||
	fail "cannot give $other_dir to nobody"
for dir in "$other_dir" "$other_dir/sub"; do
	setpriv --bounding-set=-dac_override,-dac_read_search "$BPERF" stat -e page-faults:b \
		--bpf-attr-map "$dir/map" -- true 2>"$TMP/err"
	assert_eq 255 $? "exit status with an attr map in $dir"
	mode=0755
	[ "$dir" = "$other_dir" ] || mode=0700
	assert_eq "Failed to open the BPF attr map $dir/map: Permission denied ($dir belongs to \
nobody, uid $nobody_uid, mode $mode)" "$(cat "$TMP/err")" "attr map in nobody's $dir"
done
rm -rf "$other_dir"
echo "attr map in a directory of nobody's: $(cat "$TMP/err")"

# --- paths that are not on bpffs ---------------------------------------------------------------
"$BPERF" stat -e page-faults:b --bpf-attr-map "$TMP/attr_map" -- true 2>"$TMP/err"
assert_eq 255 $? "exit status with an attr map in $TMP"
grep -q "is not on a bpf filesystem" "$TMP/err" || fail "no cause given: $(cat "$TMP/err")"
[ ! -e "$TMP/attr_map" ] || fail "something was created at $TMP/attr_map"
echo "attr map on tmpfs: $(cat "$TMP/err")"
"$BPERF" stat -e page-faults:b --bpf-attr-map /sys/fs/bpf/bperf_test_no_dir/map -- true \
	2>"$TMP/err"
assert_eq 255 $? "exit status with an attr map in a missing directory"
grep -q "No such file or directory" "$TMP/err" || fail "no cause given: $(cat "$TMP/err")"
echo "attr map in a missing directory: $(cat "$TMP/err")"

assert_nothing_left
echo "hostile attr maps: clear errors or exact counts, nothing left"
