#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Unprivileged users counting shared events through bperf daemon's Unix socket: as nobody (no
# capabilities), `bperf stat --bpf-counters` counts its own workload exactly as `perf stat` as
# nobody does (page-faults:u under perf_event_paranoid 2, context switches of pingpong under 1),
# its own -p and -t targets; what it may not count is refused with one line and a non-zero exit,
# and leaves nothing registered (the leaders' sessions maps hold only the daemon's own slots):
# -p of root's process, -a, -C 0, -G, a session over daemon.max-sessions-per-user, crafted
# requests (a sampling attr, a kernel-counting attr under paranoid 2, malformed messages). A
# member of daemon.allow-system-wide-group counts -a, kernel included, as root does (the daemon's
# own events in the daemon's group leader, by its member keys), and a cgroup
# (-a -G) exactly as root's direct session of the same run. The daemon
# survives garbage, 300 connections and a client killed mid-session (its slot released), its
# memory stays put over 1,000 connections, it serves 32 connections of a user and not 33, closes
# one silent for 5 s, and a client whose daemon dies says so in one line. In the guests
# (KERNEL_CASES_ONLY) the cases of the daemon's own policy, protocol and limits (check_host) are
# left out: what they check does not depend on the kernel.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"
. "$(dirname "$0")/../side_lib.sh"

shared_setup unpriv
require_cmd setpriv
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
PROBE=$(dirname "$BPERF")/.output/tests/daemon_probe
[ -x "$PROBE" ] || fail "$PROBE not built: run make tests"
PARANOID=/proc/sys/kernel/perf_event_paranoid
[ -w "$PARANOID" ] || skip "needs a writable $PARANOID"
NOBODY_UID=$(id -u nobody 2>/dev/null) || skip "needs user nobody"
NOBODY_GID=$(id -g nobody)
GROUP=users
GROUP_GID=$(getent group "$GROUP" | cut -d: -f3)
[ -n "$GROUP_GID" ] || skip "needs group $GROUP"
nobody_can() { setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups "$@"; }
nobody_can "$BPERF" stat -e nosuchevent true >/dev/null 2>&1
[ $? -eq 129 ] || skip "nobody cannot run $BPERF here"

orig_paranoid=$(cat "$PARANOID")
chmod 755 "$TMP"	# nobody reaches the socket and reads the config here
SOCK=$TMP/sock
LIMIT=3
cleanup() {
	echo "$orig_paranoid" >"$PARANOID"
	shared_cleanup
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
set_paranoid() {
	echo "$1" >"$PARANOID" && [ "$(cat "$PARANOID")" = "$1" ] ||
		fail "cannot set kernel.perf_event_paranoid to $1"
}

# the daemon's policy (its config) and the clients' socket (theirs)
printf '[daemon]\n\tallow-system-wide-group = %s\n\tmax-sessions-per-user = %s\n' \
	"$GROUP" "$LIMIT" >"$TMP/daemon.cfg"
printf '[daemon]\n\tsocket = %s\n' "$SOCK" >"$TMP/client.cfg"
chmod 644 "$TMP/daemon.cfg" "$TMP/client.cfg"

# $TMP/nobody CMD...: CMD as nobody, no groups, no capabilities, the socket in its config;
# $TMP/member CMD...: the same in the policy group. Scripts that exec: $! is CMD's pid.
nobody_script "$TMP/nobody" "$TMP/client.cfg" --clear-groups
nobody_script "$TMP/member" "$TMP/client.cfg" "--groups=$GROUP_GID"
nobody() { "$TMP/nobody" "$@"; }
member() { "$TMP/member" "$@"; }

# The daemon counts page-faults and context-switches itself: its one slot is in their group's
# leader, which the clients' sessions of either event share through its member keys.
DAEMON_EVENTS=page-faults,context-switches
start_daemon() {
	PERF_CONFIG=$TMP/daemon.cfg $DAEMON_WRAP "$BPERF" daemon -v --listen none \
		--socket "$SOCK" --bpf-attr-map "$SHARED_MAP" -e "$DAEMON_EVENTS" 2>"$TMP/daemon.err" &
	DPID=$!
	BG_PIDS+=("$DPID")
	# its -v line, not the socket file: a dead daemon's is there until the new one replaces it
	daemon_says "$DPID" "$TMP/daemon.err" "serving unprivileged sessions on $SOCK\$" \
		>/dev/null || fail "the daemon did not start"
}

# first_csv TOOL OPTS...: "count,event" of the first line of TOOL stat -x, OPTS
first_csv() {
	local tool=$1

	shift
	nobody setarch "$(uname -m)" -R "$tool" stat -x, "$@" 2>&1 >/dev/null | head -n 1 |
		cut -d, -f1,3
}

start_daemon
BASE=1
wait_registered "$BASE"
# a connection that never says HELLO is closed after 5 s (checked at the end)
"$TMP/nobody" "$PROBE" "$SOCK" idle 7 >"$TMP/idle" 2>&1 &
BG_PIDS+=($!)

# ---- counted: its own workload, -p and -t --------------------------------------------------------
set_paranoid 2
PT=$WORKLOADS/pagetouch
own_faults() {
	local b p b0

	b=$(first_csv "$BPERF" --bpf-counters -e page-faults "$PT" 1000)
	p=$(first_csv "$PERF" -e page-faults "$PT" 1000)
	b0=$(first_csv "$BPERF" --bpf-counters -e page-faults "$PT" 0)
	assert_eq "$p" "$b" "pagetouch 1000 as nobody: perf vs bperf through the daemon"
	assert_eq "page-faults:u" "${b#*,}" "the event's name under paranoid 2"
	assert_eq $((${b0%%,*} + 1000)) "${b%%,*}" "pagetouch 0's faults + 1000"
}
check_retry own_faults own_faults
check own_faults_left wait_registered "$BASE"

# Both ways in one run: each NAME:b (through the daemon) equals NAME (nobody's direct counter of
# the same workload). Context switches count in the kernel: paranoid 1 lets nobody count them.
both_ways() {
	set_paranoid "$1"
	nobody setarch "$(uname -m)" -R "$BPERF" stat -x, \
		-e page-faults,page-faults:b,context-switches,context-switches:b \
		"$WORKLOADS/pingpong" 2000 2>"$TMP/both_$1" >/dev/null
	set_paranoid 2
	check_pairs "$TMP/both_$1" "paranoid $1" >/dev/null
	# about two switches a round trip, now and then one fewer (1,999 for 1,000 seen elsewhere)
	[ "$(count_of "$TMP/both_$1" context-switches:b)" -ge 3000 ] ||
		fail "pingpong 2000: fewer than 3000 context switches: $(cat "$TMP/both_$1")"
}
check_retry both_ways_1 both_ways 1

# nobody's own process, which wakes every 10 ms; and root's sleeper
setpriv --reuid="$NOBODY_UID" --regid="$NOBODY_GID" --clear-groups \
	sh -c 'while :; do sleep 0.01; done' >/dev/null 2>&1 &
own_pid=$!
BG_PIDS+=("$own_pid")
"$WORKLOADS/sleeper" 600000 &
root_pid=$!
BG_PIDS+=("$root_pid")
wait_until '[ "$(stat -c %u "/proc/$own_pid")" = "$NOBODY_UID" ]' 2 || true

# counted TARGET...: nobody counts page-faults of TARGET for 0.3 s: exit 0, a count > 0
counted() {
	local out rc

	out=$(nobody "$BPERF" stat --bpf-counters -x, -e page-faults "$@" -- sleep 0.3 2>&1)
	rc=$?
	assert_eq 0 "$rc" "$*: exit status ($out)"
	[ "$(echo "$out" | cut -d, -f1)" -gt 0 ] 2>/dev/null || fail "$*: no count: $out"
}
check own_pid counted -p "$own_pid"
check own_tid counted -t "$own_pid"
check own_pid_left wait_registered "$BASE"

# ---- refused: one line, a non-zero exit, nothing registered --------------------------------------
# refused EXPECTED OPTS...: bperf stat --bpf-counters OPTS as nobody prints one line matching
# EXPECTED, exits non-zero, and leaves only the daemon's slots (and those of $HELD sessions)
refused() {
	local expected=$1 rc

	shift
	nobody "$BPERF" stat --bpf-counters -e page-faults "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	[ "$rc" -ne 0 ] || fail "$*: exit status 0"
	assert_eq 1 "$(wc -l <"$TMP/err")" "$*: lines on stderr: $(cat "$TMP/err")"
	grep -q -e "$expected" "$TMP/err" || fail "$*: no '$expected' in $(cat "$TMP/err")"
	wait_registered $((BASE + ${HELD:-0}))
}
perm='^Error: the bperf daemon refused page-faults:u for'
check root_pid refused "$perm process id $root_pid: not permitted" -p "$root_pid" sleep 0.1
check_host system_wide refused "$perm CPU-wide counting (-a, -C): not permitted" -a sleep 0.1
check_host cpu_0 refused "$perm CPU-wide counting (-a, -C): not permitted" -C 0 sleep 0.1
MNT=$(perf_cgroup_mount)
CG=bperf_unpriv_$$
HAVE_CG=
[ -n "$MNT" ] && mkdir "$MNT/$CG" 2>/dev/null && HAVE_CG=1
[ -n "$HAVE_CG" ] &&
	check_host cgroup refused \
		"^Error: the bperf daemon refused page-faults\(:u\)\? for cgroup $CG: " \
		-a -G "$CG" sleep 0.1

# a session over the limit: LIMIT sessions of nobody's hold their slots meanwhile
over_limit() {
	local pids=() i ok

	trap 'kill -KILL "${pids[@]}" 2>/dev/null' EXIT
	for i in $(seq "$LIMIT"); do
		"$TMP/nobody" "$BPERF" stat --bpf-counters -e page-faults -p "$own_pid" \
			>/dev/null 2>&1 &
		pids+=($!)
	done
	# the sessions go whatever happens
	(wait_registered $((BASE + LIMIT)) && HELD=$LIMIT refused \
		'too many sessions (daemon.max-sessions-per-user)$' -p "$own_pid" sleep 0.1)
	ok=$?
	kill -TERM "${pids[@]}"
	wait "${pids[@]}" 2>/dev/null
	[ "$ok" -eq 0 ] || exit 1
	wait_registered "$BASE"
}
check_host over_limit over_limit

# Users other than root never hold more than half (64) of a leader's 128 slots: three
# connections (the session limit) of 32, 32 and 6 OPENs
half_the_slots() {
	local got

	got=$(nobody "$PROBE" "$SOCK" fill 70 | tail -n 1)
	assert_eq "granted 64 err -87" "$got" "70 OPENs of one leader"
	wait_registered "$BASE"
}

# probe_says MODE... EXPECTED: the probe's reply lines, as nobody
probe_says() {
	local expected=${*: -1} got

	got=$(nobody "$PROBE" "$SOCK" "${@:1:$#-1}" | paste -sd' ' -)
	assert_eq "$expected" "$got" "daemon_probe ${*:1:$#-1}"
	wait_registered "$BASE"
	kill -0 "$DPID" || fail "the daemon died"
}
check sample_attr probe_says sample "err 0 err -95"
check kernel_attr probe_says kernel "err 0 err -13"
check root_pid_probe probe_says pid "$root_pid" "err 0 err -13"
# short, long, wrong version, random, READ before HELLO; then HELLO, a READ of no session and an
# unknown type on one connection (that one ends it)
check_host half_the_slots half_the_slots
# The same over the daemon's two events, which share its group's leader (paranoid 1: nobody's
# attrs count the kernel, as the daemon's do): the half is the leader's, not each event's.
half_of_the_group() {
	local got

	set_paranoid 1
	got=$(nobody "$PROBE" "$SOCK" fillgroup 70 | tail -n 1)
	set_paranoid 2
	assert_eq "granted 64 err -87" "$got" "70 OPENs of the daemon's two events"
	[ "$(map_link_ids | sort -u | wc -l)" = 1 ] || fail "the OPENs made leaders of their own"
	wait_registered "$BASE"
}
check_host half_of_the_group half_of_the_group
# Another user's process (not root's) is refused as root's is, with -p and -t; a thread named by
# its number (as -t before Linux 6.9) gets the same reply whether it is another user's or no
# thread at all, so the daemon tells nobody which pids exist
setpriv --reuid=4242 --regid=4242 --clear-groups sleep 600 >/dev/null 2>&1 &
other_pid=$!
BG_PIDS+=("$other_pid")
wait_until '[ "$(stat -c %u "/proc/$other_pid" 2>/dev/null)" = 4242 ]' 2 || true
check other_pid refused "$perm process id $other_pid: not permitted" -p "$other_pid" sleep 0.1
check other_tid refused "$perm thread id $other_pid: not permitted" -t "$other_pid" sleep 0.1
free_tid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
while [ -e "/proc/$free_tid" ]; do free_tid=$((free_tid - 1)); done
check other_tid_number probe_says tidnum "$other_pid" "err 0 err -13"
check no_tid_number probe_says tidnum "$free_tid" "err 0 err -13"

# 1,000 refused OPENs on one connection: the first few are checked (a helper forked for each),
# the rest answered -EAGAIN with no work (uid_bucket.h: 20 tokens a refusal, a burst of 400, 200
# a second); the user gets its rate back within 2 s, other users keep theirs meanwhile
refusal_rate() {
	local eacces eagain

	nobody "$PROBE" "$SOCK" refuse "$root_pid" 1000 >"$TMP/refuse"
	eacces=$(grep -c '^err -13$' "$TMP/refuse")
	eagain=$(grep -c '^err -11$' "$TMP/refuse")
	echo "1000 refused OPENs: $eacces checked, $eagain over the rate"
	assert_eq 1000 "$((eacces + eagain))" "refusals of 1000 OPENs ($(sort "$TMP/refuse" |
		uniq -c | paste -sd' ' -))"
	[ "$eacces" -ge 19 ] && [ "$eacces" -le 60 ] ||
		fail "$eacces of 1000 refused OPENs checked, not 19 to 60"
	sleep 2
	counted -p "$own_pid"
}
check_host refusal_rate refusal_rate
check_host garbage probe_says garbage "err -71 err -93 err -93 err -93 err -71 err 0 err -2 err -71"

# ---- granted: the policy group counts CPUs, kernel included --------------------------------------
granted() {
	local root out

	# root's session counts before the member's starts (they share no lock: other attr maps)
	rm -f "$TMP/root.ctl" "$TMP/root.ack"
	mkfifo "$TMP/root.ctl" "$TMP/root.ack"
	"$BPERF" stat --bpf-counters -a -x, -e page-faults \
		--control "fifo:$TMP/root.ctl,$TMP/root.ack" -- sleep 2 2>"$TMP/root.err" &
	root=$!
	control_ping "$TMP/root.ctl" "$TMP/root.ack" "root's -a" "$TMP/root.err"
	member "$BPERF" stat --bpf-counters -a -x, -e page-faults -- "$PT" 5000 2>"$TMP/member.err"
	assert_eq 0 $? "the member's -a: exit status ($(cat "$TMP/member.err"))"
	wait "$root"
	out=$(cut -d, -f1,3 "$TMP/member.err")
	assert_eq page-faults "${out#*,}" "the member's event (no :u)"
	[ "${out%%,*}" -ge 5000 ] || fail "the member's -a: ${out%%,*} page faults, expected 5000+"
	out=$(cut -d, -f1,3 "$TMP/root.err")
	[ "${out%%,*}" -ge 5000 ] || fail "root's -a: ${out%%,*} page faults, expected 5000+"
	wait_registered "$BASE"
}
check granted granted
# The member's sessions of the daemon's own events take slots in the daemon's group leader (its
# member keys): one leader in the attr map, two more slots in it, no leader of their own.
granted_shares() {
	local client n

	# the workload ends once the slots are seen: in an emulated guest one look takes seconds
	rm -f "$TMP/release"
	member "$BPERF" stat --bpf-counters -a -x, -e page-faults,context-switches -- \
		sh -c "while [ ! -e $TMP/release ] && [ -d $TMP ]; do sleep 0.02; done" \
		2>"$TMP/shares.err" &
	client=$!
	wait_registered $((BASE + 2))
	n=$(map_link_ids | sort -u | wc -l)
	touch "$TMP/release"
	wait "$client"
	assert_eq 0 $? "the member's -a of both events ($(cat "$TMP/shares.err"))"
	assert_eq 1 "$n" "leaders in the attr map while the member counts the daemon's events"
	for ev in page-faults context-switches; do
		[ "$(count_of "$TMP/shares.err" "$ev")" -gt 0 ] ||
			fail "the member's -a $ev: $(cat "$TMP/shares.err")"
	done
	wait_registered "$BASE"
}
check granted_shares granted_shares
granted_cpu0() {
	member "$BPERF" stat --bpf-counters -C 0 -x, -e page-faults sleep 0.1 2>"$TMP/cpu0.err"
	assert_eq 0 $? "the member's -C 0: exit status ($(cat "$TMP/cpu0.err"))"
	wait_registered "$BASE"
}
check granted_cpu0 granted_cpu0

# A root workload in the cgroup while the member (-a -G, through the daemon) and root (direct)
# count it: the same counts, exactly (nothing else runs in the cgroup)
granted_cgroup() {
	local wait_release="while [ ! -e $TMP/release ] && [ -d $TMP ]; do sleep 0.02; done" root ev

	rm -f "$TMP/release"
	trap 'touch "$TMP/release"' EXIT
	"$BPERF" stat -a -x, -e page-faults,context-switches -G "$CG,$CG" -- sh -c "$wait_release" \
		2>"$TMP/cg_root" &
	root=$!
	member "$BPERF" stat --bpf-counters -a -x, -e page-faults,context-switches \
		-G "$CG,$CG" -- sh -c "$wait_release" 2>"$TMP/cg_member" &
	wait_registered $((BASE + 2))
	sleep 0.3	# the direct session opens meanwhile
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 3000' sh "$MNT/$CG" "$PT"
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" 500' sh "$MNT/$CG" "$WORKLOADS/pingpong"
	touch "$TMP/release"
	wait "$root" $!
	for ev in page-faults context-switches; do
		assert_eq "$(count_of "$TMP/cg_root" "$ev")" "$(count_of "$TMP/cg_member" "$ev")" \
			"$ev in cgroup $CG: root's direct -G vs the member's through the daemon"
	done
	[ "$(count_of "$TMP/cg_member" page-faults)" -ge 3000 ] ||
		fail "the member's -G: fewer than 3000 page faults: $(cat "$TMP/cg_member")"
	wait_registered "$BASE"
}
[ -n "$HAVE_CG" ] && check_retry granted_cgroup granted_cgroup
[ -n "$HAVE_CG" ] && rmdir "$MNT/$CG"

# ---- the daemon holds up -------------------------------------------------------------------------
vmrss() { awk '/^VmRSS:/ { print $2 }' "/proc/$DPID/status"; }
connects() {
	local before after

	nobody "$PROBE" "$SOCK" connects 300 >/dev/null || fail "300 connections"
	before=$(vmrss)
	nobody "$PROBE" "$SOCK" connects 1000 >/dev/null || fail "1000 connections"
	after=$(vmrss)
	echo "VmRSS over 1000 connections: $before kB -> $after kB"
	[ $((after - before)) -le 256 ] || fail "VmRSS grew by $((after - before)) kB"
	kill -0 "$DPID" || fail "the daemon died"
	wait_registered "$BASE"
}
check_host connects connects

# 32 connections of one user are served, the 33rd is not (-EUSERS); the idle one went
per_user_conns() {
	assert_eq "err 0" "$(nobody "$PROBE" "$SOCK" many 32 | tail -n 1)" "32 connections"
	assert_eq "err -87" "$(nobody "$PROBE" "$SOCK" many 33 | tail -n 1)" "33 connections"
}
check_host per_user_conns per_user_conns
idle_closed() {
	wait_until '[ -s "$TMP/idle" ]' 10
	assert_eq closed "$(cat "$TMP/idle")" "a connection silent for 7 s"
}
check_host idle_closed idle_closed

killed_client() {
	local pid

	"$TMP/nobody" "$PROBE" "$SOCK" hold >"$TMP/hold" &
	pid=$!
	trap 'kill -KILL "$pid" 2>/dev/null' EXIT
	wait_until 'grep -q ready "$TMP/hold"' 2 || true
	wait_registered $((BASE + 1))
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	wait_registered "$BASE"
}
check killed_client killed_client

# a daemon that dies under a session: one line, a non-zero exit
lost_daemon() {
	local client rc

	"$TMP/nobody" "$BPERF" stat --bpf-counters -I 100 -x, -e page-faults -p "$own_pid" \
		>/dev/null 2>"$TMP/lost" &
	client=$!
	trap 'kill -KILL "$client" 2>/dev/null' EXIT
	wait_registered $((BASE + 1))
	kill -KILL "$DPID"
	# not this subshell's child, so no wait: until it is a zombie (its socket closed) or gone,
	# or the next case's daemon finds it still answering
	wait_until '[ ! -e "/proc/$DPID" ] || grep -q "^[0-9]* (.*) Z " "/proc/$DPID/stat"' \
		5 || true
	wait "$client"
	rc=$?
	[ "$rc" -ne 0 ] || fail "the client exited 0"
	assert_eq "bperf: lost the connection to the bperf daemon" \
		"$(grep -v '^ *[0-9.]*,' "$TMP/lost")" "the client's message"
}
check lost_daemon lost_daemon

# a new daemon replaces the dead one's socket, and stops cleanly: its leaders gone
restart() {
	# cases run in subshells: what one starts goes with it, whatever happens
	trap 'kill -KILL "$DPID" 2>/dev/null' EXIT
	start_daemon
	nobody "$BPERF" stat --bpf-counters -e page-faults true 2>/dev/null ||
		fail "no session after the restart"
	kill -TERM "$DPID"
	wait "$DPID"
	assert_eq 0 $? "the daemon's exit status"
	[ -e "$SOCK" ] && fail "the socket is left"
	# the leaders of the test's attr map, not every new one: other tests may run meanwhile
	[ -z "$(map_link_ids)" ] || fail "attr map entries left (links $(map_link_ids))"
}
check restart restart

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
