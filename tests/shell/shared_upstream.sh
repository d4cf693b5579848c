#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Beside upstream perf on one attr map, played by .output/tests/upstream_perf (a session with
# perf 6.1's leader layout and steps, tests/helpers/upstream_perf.c): an attr map entry whose
# leader someone still uses stays.
# - An upstream follower (fexit) on bperf's leader: bperf's last session leaves the entry, so the
#   next upstream session still shares that leader; a later bperf session counts exactly with a
#   leader of its own and leaves the entry alone. Needs fexit: the 6.1 guest (tools/vmtest).
# - An upstream leader in the map: bperf sessions count exactly beside it with a leader of their
#   own and never touch upstream's entry; once upstream's leader is gone, the next bperf session
#   moves bperf's leader to the event's key, where upstream perf looks.
# Nothing stays behind.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

UPSTREAM=$REPO_TOP/.output/tests/upstream_perf
[ -x "$UPSTREAM" ] || fail "$UPSTREAM is not built: run 'make tests'"
shared_setup upstream
W=$WORKLOADS
EVENTS=page-faults,page-faults:b

# exact WHAT: a session counts exactly (page-faults:b == page-faults); its -v lines go to
# $TMP/verbose.
exact() {
	norandom "$BPERF" stat -v -x, -o "$TMP/out" --bpf-attr-map "$SHARED_MAP" -e "$EVENTS" -- \
		"$W/pagetouch" 300 2>"$TMP/verbose" || fail "$1: exit $?: $(cat "$TMP/verbose")"
	check_pairs "$TMP/out" "$1"
}

# nr_entries: how many entries the attr map holds (0 before it exists).
nr_entries() {
	if [ -e "$SHARED_MAP" ]; then
		bpftool -j map dump pinned "$SHARED_MAP" | jq length
	else
		echo 0
	fi
}

# background: a session sharing page-faults until stop_background; waits until the map holds
# one entry more; BG_LINK: the leader link it uses.
background() {
	local before

	# shellcheck disable=SC2034 # read by wait_until's CMD
	before=$(nr_entries)
	# without the upstream session's stdin, which must end when stop_upstream closes it
	"$BPERF" stat -v -x, -o "$TMP/bg" --bpf-attr-map "$SHARED_MAP" -e page-faults:b -- \
		"$W/sleeper" 600000 2>"$TMP/bg.err" {UP_IN}>&- &
	BG=$!
	BG_PIDS+=("$BG")
	wait_until '[ "$(nr_entries)" -gt "$before" ]' 10 ||
		fail "the background session added no entry"
	BG_LINK=$(sed -n 's/^bperf: new leader link \([0-9]*\)$/\1/p' "$TMP/bg.err")
	[ -n "$BG_LINK" ] || fail "the background session made no leader: $(cat "$TMP/bg.err")"
}

stop_background() {
	wait_until 'pkill -USR1 -P "$BG" -x sleeper' 10 || true
	wait "$BG" || fail "the background session failed: $(cat "$TMP/bg.err")"
}

# entry: the page-faults entry as "LINK DIFF_MAP" (nothing if there is none).
entry() {
	bpftool -j map lookup pinned "$SHARED_MAP" key $KEY 2>/dev/null | jq -r '.value // empty |
		map(ltrimstr("0x")) | [(.[0:4] | reverse | join("")), (.[4:8] | reverse | join(""))] |
		join(" ")' | while read -r link diff; do
			echo "$((16#$link)) $((16#$diff))"
		done
}

# upstream MODE: an upstream perf session (upstream_perf MODE) until stop_upstream; UP_LINK,
# UP_DIFF: the entry it used, UP_FOLLOWER: yes or no (fexit refused); returns 77 if `follow`
# was refused.
upstream() {
	local dir line status

	dir=$(mktemp -d)
	mkfifo "$dir/in"
	"$UPSTREAM" "$1" "$SHARED_MAP" $KEY <"$dir/in" >"$TMP/upstream.out" 2>&1 &
	UP=$!
	BG_PIDS+=("$UP")
	exec {UP_IN}>"$dir/in"
	rm -rf "$dir"
	wait_until 'line=$(grep "^link " "$TMP/upstream.out") || ! kill -0 "$UP" 2>/dev/null' \
		30 || true
	if [ -z "$line" ]; then
		exec {UP_IN}>&-
		wait "$UP"
		status=$?
		[ "$status" -eq 77 ] && return 77
		fail "upstream_perf $1: exit $status: $(cat "$TMP/upstream.out")"
	fi
	read -r _ UP_LINK _ UP_DIFF _ UP_FOLLOWER <<<"$line"
}

stop_upstream() {
	exec {UP_IN}>&-
	wait "$UP" || fail "upstream_perf failed: $(cat "$TMP/upstream.out")"
}

# the event's attr map key, as bperf files it
exec {UP_IN}>/dev/null
background
KEY=$(bpftool -j map dump pinned "$SHARED_MAP" | jq -r '.[0].key | join(" ")')

# --- an upstream follower on bperf's leader ---------------------------------------------------
if upstream follow; then
	assert_eq "$BG_LINK" "$UP_LINK" "the leader upstream perf follows"
	stop_background
	assert_eq "$UP_LINK $UP_DIFF" "$(entry)" \
		"the entry after bperf's last session, with an upstream follower on its leader"
	echo "upstream follower: the entry stays after bperf's last session (link $UP_LINK)"
	exact "beside an upstream follower on a leader bperf left"
	grep -q "new leader" "$TMP/verbose" || fail "bperf joined a leader it left"
	assert_eq "$UP_LINK $UP_DIFF" "$(entry)" "the entry after a bperf session beside it"
	assert_eq 1 "$(nr_entries)" "entries after the bperf session"
	stop_upstream
	runs=$(sed -n 's/^follower_runs //p' "$TMP/upstream.out")
	[ "${runs:-0}" -gt 0 ] || fail "the upstream follower never ran: $(cat "$TMP/upstream.out")"
	echo "upstream follower ran $runs times"
	# the leader went with its last user; the next session replaces its entry (shared_hostile)
	! bpftool link show id "$UP_LINK" >/dev/null 2>&1 || fail "link $UP_LINK outlived its users"
	rm -rf "$SHARED_MAP" "$SHARED_MAP"_lock
else
	echo "no upstream follower: $(tail -n 1 "$TMP/upstream.out")"
	stop_background
fi

# --- an upstream leader -----------------------------------------------------------------------
upstream leader
echo "upstream leader: link $UP_LINK, follower $UP_FOLLOWER"
assert_eq "$UP_LINK $UP_DIFF" "$(entry)" "upstream perf's entry"
exact "beside an upstream leader"
grep -q "new leader" "$TMP/verbose" || fail "bperf joined upstream perf's leader"
assert_eq "$UP_LINK $UP_DIFF" "$(entry)" "upstream perf's entry after bperf's last session"
assert_eq 1 "$(nr_entries)" "entries after bperf's last session"

# a bperf leader beside upstream's goes where upstream perf looks once upstream's is gone
background
assert_eq "$UP_LINK $UP_DIFF" "$(entry)" "upstream perf's entry beside a bperf session"
stop_upstream
exact "after the upstream leader"
grep -q "sharing leader link $BG_LINK" "$TMP/verbose" ||
	fail "bperf did not share its own leader: $(cat "$TMP/verbose")"
read -r link _ <<<"$(entry)"
assert_eq "$BG_LINK" "$link" "the entry once upstream perf's leader is gone"
assert_eq 1 "$(nr_entries)" "entries once upstream perf's leader is gone"
stop_background
assert_eq 0 "$(nr_entries)" "entries after the last session"

assert_nothing_left
echo "beside upstream perf: entries in use stay, bperf counts exactly, nothing left"
