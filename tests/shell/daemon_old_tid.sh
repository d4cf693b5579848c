#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# -t through bperf daemon on a kernel without pidfds of threads (before Linux 6.9; the x86 guest's
# 6.1): the unprivileged client names its threads to the daemon by their ids (-v says so), and
# the daemon checks them against the client's credentials. As nobody, `-t` of its own stopped
# process, which then execs `pagetouch 500`, counts page-faults:b (through the daemon) exactly as
# nobody's direct page-faults of the same run, 500 or more; `-t` of root's process is refused in
# one line and a non-zero exit; nothing is left after the daemon's SIGTERM. On later kernels
# (the host) the client sends pidfds of threads, and daemon_unprivileged.sh counts -t that way.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup old_tid
require_cmd setpriv
IFS=. read -r major minor _ <<<"$(uname -r)"
[ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -lt 9 ]; } ||
	skip "Linux $(uname -r) has pidfds of threads (daemon_unprivileged.sh counts -t with them)"
id -u nobody >/dev/null 2>&1 || skip "needs user nobody"
PARANOID=/proc/sys/kernel/perf_event_paranoid
[ -w "$PARANOID" ] || skip "needs a writable $PARANOID"
orig_paranoid=$(cat "$PARANOID")
trap 'echo "$orig_paranoid" >"$PARANOID"; shared_cleanup' EXIT
# page faults count in the kernel: paranoid 1 lets nobody count them without :u
echo 1 >"$PARANOID"

chmod 755 "$TMP"	# nobody reaches the socket and reads the config here
SOCK=$TMP/sock
printf '[daemon]\n\tsocket = %s\n' "$SOCK" >"$TMP/client.cfg"
chmod 644 "$TMP/client.cfg"
nobody_script "$TMP/nobody" "$TMP/client.cfg" --clear-groups
nobody() { "$TMP/nobody" "$@"; }

"$BPERF" daemon -v --listen none --socket "$SOCK" --bpf-attr-map "$SHARED_MAP" \
	-e page-faults 2>"$TMP/daemon.err" &
daemon=$!
BG_PIDS+=("$daemon")
daemon_says "$daemon" "$TMP/daemon.err" "serving unprivileged sessions on $SOCK\$" 1200 \
	>/dev/null || fail "the daemon did not start"

# nobody's process, stopped until the session counts its thread; then it execs pagetouch 500
"$TMP/nobody" sh -c 'kill -STOP $$; exec "$0" 500' "$WORKLOADS/pagetouch" &
target=$!
BG_PIDS+=("$target")
wait_stopped "$target"
# counting once it answers a ping on its control fifo (its events open and enabled)
mkfifo -m 666 "$TMP/ctl" "$TMP/ack"
"$TMP/nobody" "$BPERF" stat -v -x, -e page-faults,page-faults:b -t "$target" \
	--control "fifo:$TMP/ctl,$TMP/ack" >/dev/null 2>"$TMP/out" &
session=$!
BG_PIDS+=("$session")
control_ping "$TMP/ctl" "$TMP/ack" "the -t session" "$TMP/out"
kill -CONT "$target"
wait "$session" || { rc=$?; cat "$TMP/out" >&2; fail "nobody's -t session exited $rc"; }
wait "$target"
grep -q '^bperf: thread ids to the bperf daemon as numbers' "$TMP/out" ||
	{ cat "$TMP/out" >&2; fail "the client did not name the thread by its id"; }
check_pairs "$TMP/out" "nobody's -t of its own thread"
count=$(count_of "$TMP/out" page-faults:b)
[ "$count" -ge 500 ] || fail "pagetouch 500: $count page faults through the daemon"
echo "nobody's -t $target: page-faults $(count_of "$TMP/out" page-faults), through the daemon" \
	"$count"

# root's process: refused, one line
"$WORKLOADS/sleeper" 600000 &
root_pid=$!
BG_PIDS+=("$root_pid")
nobody "$BPERF" stat -x, -e page-faults:b -t "$root_pid" -- sleep 0.1 >/dev/null 2>"$TMP/err"
rc=$?
[ "$rc" -ne 0 ] || fail "-t of root's process: exit status 0"
assert_eq 1 "$(wc -l <"$TMP/err")" "-t of root's process: lines on stderr: $(cat "$TMP/err")"
grep -q 'refused page-faults:b for thread id [0-9]*: not permitted' "$TMP/err" ||
	{ cat "$TMP/err" >&2; fail "-t of root's process: not refused"; }
echo "-t of root's process: exit $rc: $(cat "$TMP/err")"
kill "$root_pid"

kill -TERM "$daemon"
wait "$daemon" || fail "the daemon exited $?"
assert_nothing_left
