#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon follows its cgroup tree from inotify's events alone (no periodic walk): after each
# change below --cgroup-root (nested mkdir -p, a subtree removed deepest first, a cgroup removed
# and made again under its path, 300 made quickly in parallel and half of them removed, a rename
# where the hierarchy allows one: cgroup v1) the registered set equals the tree, three ways: the
# paths its -vv lines register and drop (replayed), the cgroup ids in its leader's cg_index map
# (the directories' inode numbers) and the bperf_daemon_cgroups gauge, within 1.5 s; and it holds
# one inotify watch per directory (cgroupfs never ends the watch of a directory removed: the
# daemon must). The root removed and made again is found by the check every 10 s. Then the two
# repairs: a queue overflow (fs.inotify.max_queued_events lowered while the daemon starts, the
# daemon stopped while 200 cgroups are made) walks the tree once; a watch limit
# (fs.inotify.max_user_watches 0 while it starts) prints one line and walks every 10 s (a mkdir
# is seen after a walk) until the next walk watches everything, after which a mkdir is seen at
# once again. Both sysctls are restored within about a second. In a cgroup v1 hierarchy (the x86
# guest's) a rename is tested too.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup daemon_cgtrack
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
ROOT=bperf_cgtrack_$$
mkdir "$MNT/$ROOT" || skip "cannot create cgroups under $MNT"
QUEUED=$(cat /proc/sys/fs/inotify/max_queued_events)
WATCHES=$(cat /proc/sys/fs/inotify/max_user_watches)

restore_sysctls() {
	echo "$QUEUED" >/proc/sys/fs/inotify/max_queued_events
	echo "$WATCHES" >/proc/sys/fs/inotify/max_user_watches
}
trap 'restore_sysctls; shared_cleanup
	find "$MNT/$ROOT" -depth -type d -exec rmdir {} + 2>/dev/null' EXIT

# start_daemon: a -vv daemon of page-faults on $ROOT; sets DPID and PORT once it is ready.
start_daemon() {
	$DAEMON_WRAP "$BPERF" daemon -vv --listen 127.0.0.1:0 --socket none \
		--bpf-attr-map "$SHARED_MAP" --cgroup-root "$ROOT" -e page-faults 2>"$TMP/daemon.err" &
	DPID=$!
	BG_PIDS+=("$DPID")
	PORT=$(daemon_addr "$DPID" "$TMP/daemon.err") || fail "the daemon did not start"
	PORT=${PORT##*:}
	daemon_says "$DPID" "$TMP/daemon.err" 'ready' >/dev/null || fail "the daemon is not ready"
}

stop_daemon() {
	kill -TERM "$DPID"
	wait "$DPID" || fail "the daemon exited with $?"
	BG_PIDS=()
}

# tree: the cgroup paths below the mount of the root and everything below it, sorted
tree() {
	(cd "$MNT" && find "$ROOT" -type d 2>/dev/null) | sed 's|^|/|' | sort
}

# registered: the paths the daemon's -vv lines registered and did not drop since, sorted
registered() {
	awk '/^bperf daemon: counting cgroup / { set[$5] = 1 }
	     /^bperf daemon: dropped cgroup / { delete set[$5] }
	     END { for (p in set) print p }' "$TMP/daemon.err" | sort
}

# leader_ids: the cgroup ids the daemon's leader has registered (its cg_index's keys: u64s, no
# BTF, so little-endian bytes), sorted
leader_ids() {
	cg_index_dump | jq -r '.[].key | reverse | map(ltrimstr("0x")) | join("")' |
		while read -r hex; do echo $((16#$hex)); done | sort -n
}

# watches: the inotify watches the daemon holds (its inotify fd's fdinfo lines)
watches() {
	local fd

	for fd in /proc/"$DPID"/fd/*; do
		[ "$(readlink "$fd")" = "anon_inode:inotify" ] || continue
		grep -c '^inotify wd:' "/proc/$DPID/fdinfo/${fd##*/}"
		return
	done
	echo none
}

gauge() {
	daemon_scrape "$PORT" | awk '$1 == "bperf_daemon_cgroups" { print $2 }'
}

# check WHAT [SECONDS]: waits (1.5 s unless said) until the registered paths, the leader's ids
# and the gauge all match the tree, and the daemon watches as many directories (unless
# WATCHED=no); fails with the difference
WATCHED=yes
check() {
	local what=$1 limit=${2:-1.5} t0 ms paths ids want

	t0=$(date +%s%N)
	wait_until tree_alike "$limit" ||
		fail "$what: after $ms ms the daemon has not the tree's cgroups" \
			"(paths: ${paths:-alike}; ids alike: $([ "$ids" = "$(leader_ids |
			md5sum)" ] && echo yes || echo no); gauge $(gauge)," \
			"watches $(watches) for $want)"
	echo "$what: $(wc -l <"$TMP/tree") cgroups registered alike after $ms ms"
}

# tree_alike: one look of check's poll, setting its paths, ids, ms and want: whether the daemon
# has the tree's cgroups
tree_alike() {
	tree >"$TMP/tree"
	registered >"$TMP/registered"
	paths=$(diff "$TMP/tree" "$TMP/registered" | grep '^[<>]' | head -n 5 | tr '\n' ' ')
	ids=$(cd "$MNT" && find "$ROOT" -type d -exec stat -c %i {} + 2>/dev/null |
		sort -n | md5sum)
	ms=$((($(date +%s%N) - t0) / 1000000))
	want=$(wc -l <"$TMP/tree")
	[ -z "$paths" ] && [ "$ids" = "$(leader_ids | md5sum)" ] &&
		[ "$(gauge)" = "$want" ] &&
		{ [ "$WATCHED" = no ] || [ "$(watches)" = "$want" ]; }
}

mkdir -p "$MNT/$ROOT/a/b/c" "$MNT/$ROOT/x"
start_daemon
check "at the start"
walks=$(grep -c 'cgroups walked' "$TMP/daemon.err")

mkdir -p "$MNT/$ROOT/n1/n2/n3/n4" "$MNT/$ROOT/a/b/c/d/e"
check "nested mkdir -p"
find "$MNT/$ROOT/n1" -depth -type d -exec rmdir {} +
check "a subtree removed"
# removed and made again under its path: a new id, which the leader must have instead
old=$(stat -c %i "$MNT/$ROOT/x")
rmdir "$MNT/$ROOT/x" && mkdir "$MNT/$ROOT/x"
[ "$old" != "$(stat -c %i "$MNT/$ROOT/x")" ] || fail "x made again has its old id $old"
check "a cgroup made again"
# parallel mkdir -p: children made before the daemon's watch on their parent is added
mkdir "$MNT/$ROOT/many"
makers=()
for j in 0 1 2; do
	for ((i = j; i < 300; i += 3)); do
		mkdir -p "$MNT/$ROOT/many/m$i/s/t"
	done &
	makers+=($!)
done
wait "${makers[@]}"
check "900 made at once" 3
for ((i = 0; i < 300; i += 2)); do
	rmdir "$MNT/$ROOT/many/m$i/s/t" "$MNT/$ROOT/many/m$i/s" "$MNT/$ROOT/many/m$i"
done
check "450 removed"
if mv "$MNT/$ROOT/a" "$MNT/$ROOT/a2" 2>/dev/null; then
	check "a renamed (a subtree of 5)"
else
	echo "renames: refused by this hierarchy (cgroup2 has none)"
fi
assert_eq "$walks" "$(grep -c 'cgroups walked' "$TMP/daemon.err")" \
	"full walks after the start (inotify alone)"
# the root itself removed and made again: cgroupfs says nothing of the root's own end, the check
# every 10 s finds it gone (a walk of nothing), then back
find "$MNT/$ROOT" -depth -type d -exec rmdir {} +
check "the root removed, found by the 10 s check" 12
mkdir -p "$MNT/$ROOT/back/again" "$MNT/$ROOT/many"
check "the root made again, found by the 10 s check" 12
stop_daemon

# --- a queue overflow: one walk ------------------------------------------------------------
echo 64 >/proc/sys/fs/inotify/max_queued_events
start_daemon
restore_sysctls
kill -STOP "$DPID"
for ((i = 0; i < 200; i++)); do
	mkdir "$MNT/$ROOT/many/o$i"
done
kill -CONT "$DPID"
check "200 made while the daemon was stopped"
grep -q 'inotify lost events: walking the cgroups' "$TMP/daemon.err" ||
	fail "no overflow seen (max_queued_events 64, 200 events)"
for ((i = 0; i < 200; i++)); do
	rmdir "$MNT/$ROOT/many/o$i"
done
check "200 removed after the overflow"
stop_daemon

# --- the watch limit: walks every 10 s until every directory is watched -------------------
echo 0 >/proc/sys/fs/inotify/max_user_watches
start_daemon
restore_sysctls
assert_eq 1 "$(grep -c 'inotify cannot watch every cgroup' "$TMP/daemon.err")" \
	"lines saying the watch limit was met"
assert_eq 0 "$(watches)" "watches of the daemon started at the limit"
WATCHED=no
check "at the start without watches"
mkdir "$MNT/$ROOT/late"
check "a mkdir found by the periodic walk" 12
# registered after a walk besides the start's: by it, or by the watches it added once the limit
# was restored (a slow machine's checks may take until then)
walks=$(awk -v cg="/$ROOT/late" '/cgroups walked/ { n++ }
	$0 == "bperf daemon: counting cgroup " cg { print n; exit }' "$TMP/daemon.err")
[ "${walks:-0}" -ge 2 ] || fail "a mkdir seen without a watch before a walk (walks: $walks)"
grep -q 'inotify watches every cgroup' "$TMP/daemon.err" ||
	fail "the walk after the limit was raised did not watch everything"
WATCHED=yes
mkdir "$MNT/$ROOT/later"
check "a mkdir once watched again"
assert_eq 1 "$(grep -c 'inotify cannot watch every cgroup' "$TMP/daemon.err")" \
	"lines saying the watch limit was met, at the end"
stop_daemon
assert_nothing_left
