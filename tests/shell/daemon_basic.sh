#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon: the CPU-wide series of every event on every online CPU, each cgroup's own
# series, and the number of series as the man page's formula says; cgroups made and removed
# below its --cgroup-root appear and go within a second (nested ones too); a cgroup's scrape
# difference equals a direct `bperf stat -a -G` count of the same run exactly; a parent's own
# count is its direct count less its child's, over the CPUs and in its CPU x cgroup series, the
# cgroup family adds up to the machine's, and a removed child leaves its parent's count as it
# was; its 3 events cost ONE leader program at a switch (a perf group); bperf stat's shared
# sessions of one of its events share that leader (its member keys) and count exactly; SIGTERM
# ends it with status 0 and nothing left (no attr map entry either), after SIGKILL a session
# that shares its leader keeps counting, the next session leaves nothing and a new daemon gets
# the same port; bad input (the CPU x cgroup series' limits too) gets one line, a non-zero exit
# and leaves nothing; 9 or 10 events take as few leaders as open (8 software events to a group,
# msr/tsc/ apart, the alias cs in its twin's group) and count exactly. /metrics is fetched with
# curl where it is installed, else through bash's /dev/tcp (the guests have no curl).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup daemon
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"
ROOT=bperf_daemon_$$
EVENTS=page-faults,context-switches,cpu-clock
FAMILIES="bperf_page_faults_total bperf_context_switches_total bperf_cpu_clock_seconds_total"
mkdir "$MNT/$ROOT" || skip "cannot create cgroups under $MNT"

# Removes the test's cgroups, deepest first, after moving out whatever is left in them.
remove_cgroups() {
	local dir pid

	[ -d "$MNT/$ROOT" ] || return 0
	find "$MNT/$ROOT" -depth -type d | while read -r dir; do
		while read -r pid; do
			echo "$pid" >"$MNT/cgroup.procs" 2>/dev/null
		done <"$dir/cgroup.procs"
		rmdir "$dir"
	done
}
trap 'shared_cleanup; remove_cgroups' EXIT

# in_cgroup CGROUP CMD...: the shell moves itself into CGROUP, then becomes CMD.
IN=$(in_cgroup_script "$TMP" "$MNT")

# start_daemon [PORT [OPTIONS...]]: a daemon on 127.0.0.1:PORT (0: the kernel's choice); sets
# DPID and PORT once it says where it listens. Its -v is bperf's --debug verbose=1, given before
# the command: the leader lines this test reads from daemon.err prove that the daemon takes it.
start_daemon() {
	local port=${1:-0}

	shift
	$DAEMON_WRAP "$BPERF" --debug verbose=1 daemon --listen "127.0.0.1:$port" --socket none \
		--bpf-attr-map "$SHARED_MAP" --cgroup-root "$ROOT" -e "$EVENTS" "$@" 2>"$TMP/daemon.err" &
	DPID=$!
	BG_PIDS+=("$DPID")
	PORT=$(daemon_addr "$DPID" "$TMP/daemon.err") || fail "the daemon did not start"
	PORT=${PORT##*:}
}

# stop_daemon SIGNAL: sends it and waits; sets DSTATUS.
stop_daemon() {
	kill "-$1" "$DPID"
	wait "$DPID" 2>/dev/null
	DSTATUS=$?
}

# scrape: the body of GET /metrics from the daemon on $PORT.
scrape() {
	daemon_scrape "$PORT"
}

# machine FILE FAMILY: "cpu value" of each of FAMILY's per-CPU series (bperf_X_total{cpu=...}).
machine() {
	awk -v fam="$2" 'index($1, fam "{cpu=\"") == 1 {
			cpu = $1; sub(/.*cpu="/, "", cpu); sub(/".*/, "", cpu); print cpu, $2
		}' "$1" | sort -n
}

own() {
	daemon_own "$@"
}

# own_cpu FILE EVENT CGROUP: "cpu value" of the cgroup's CPU x cgroup series of EVENT.
own_cpu() {
	awk -v head="bperf_cgroup_cpu_${2//-/_}_total{cgroup=\"$3\",cpu=\"" 'index($1, head) == 1 {
			cpu = $1; sub(/.*cpu="/, "", cpu); sub(/".*/, "", cpu); print cpu, $2
		}' "$1" | sort -n
}

# total FILE FAMILY: the sum of every series of FAMILY (integers).
total() {
	awk -v fam="$2" 'index($1, fam "{") == 1 { s += $2 } END { printf "%d\n", s }' "$1"
}

# wait_cgroups PRESENT|ABSENT CGROUP...: polls until each cgroup's page-faults series is there
# (or gone); fails after 1.5 s (the daemon promises 1 s).
wait_cgroups() {
	local want=$1 cg missing t0

	shift
	local cgs=("$@")
	t0=$(date +%s%N)
	wait_until cgroups_as_wanted 1.5 || fail "cgroups still not $want after 1.5 s:$missing"
	echo "cgroups $want after $((($(date +%s%N) - t0) / 1000000)) ms: $*"
}

# cgroups_as_wanted: one scrape of wait_cgroups's poll; sets its missing to those of its cgs
# not yet as it wants, and succeeds when there are none.
cgroups_as_wanted() {
	scrape >"$TMP/poll" || fail "scrape failed"
	missing=
	for cg in "${cgs[@]}"; do
		if [ -n "$(own "$TMP/poll" page-faults "/$cg")" ]; then
			[ "$want" = ABSENT ] && missing+=" $cg"
		else
			[ "$want" = PRESENT ] && missing+=" $cg"
		fi
	done
	[ -z "$missing" ]
}

# cg_index_entries: cgroups registered in the live leader the attr map names (one is expected).
cg_index_entries() {
	cg_index_dump | jq length
}

# cg_exact WHOSE: pagetouch 500 then pingpong 2000 in $CG under a direct `bperf stat -a -G $CG`:
# the daemon's scrape differences of page-faults and context-switches in $CG equal its counts.
cg_exact() {
	local ev fam direct before after

	scrape >"$TMP/before" || fail "scrape failed"
	"$BPERF" stat -a -e page-faults,context-switches -G "$CG" -x, -o "$TMP/direct" -- \
		sh -c "$IN $CG $WORKLOADS/pagetouch 500; $IN $CG $WORKLOADS/pingpong 2000" \
		>/dev/null || fail "direct bperf stat -G beside $1 failed"
	scrape >"$TMP/after" || fail "scrape failed"
	for ev in page-faults context-switches; do
		direct=$(awk -F, -v ev="$ev" '$3 == ev { print $1 }' "$TMP/direct")
		before=$(own "$TMP/before" "$ev" "/$CG")
		after=$(own "$TMP/after" "$ev" "/$CG")
		[[ $direct =~ ^[0-9]+$ ]] || { cat "$TMP/direct" >&2; fail "no direct count of $ev"; }
		assert_count "$ev" "$direct" "$((after - before))" "$1 $ev in $CG"
		echo "$ev in $CG: direct -G $direct, $1 $after - $before"
	done
}

# --- the CPU-wide series: every event on every online CPU ---------------------------------
mkdir "$MNT/$ROOT/old"
switch_progs=$(count_on_switch)
# CPU x cgroup series for one cgroup, made later (own counts, below)
printf '[daemon]\n\tcgroup-cpu-series = /%s/p\n' "$ROOT" >"$TMP/cpu.conf"
PERF_CONFIG=$TMP/cpu.conf start_daemon
assert_eq $((switch_progs + 1)) "$(count_on_switch)" \
	"on_switch programs after the start of a daemon of 3 events (one more)"
scrape >"$TMP/m1" || fail "GET /metrics failed"
online=$(awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
	for (c = r[1]; c <= r[n]; c++) print c } }' /sys/devices/system/cpu/online | paste -sd' ' -)
for fam in $FAMILIES; do
	cpus=$(machine "$TMP/m1" "$fam" | cut -d' ' -f1 | paste -sd' ' -)
	assert_eq "$online" "$cpus" "CPUs of $fam{cpu=...}"
done
echo "per-CPU series on CPUs $online for $FAMILIES"
[ -n "$(own "$TMP/m1" page-faults "/$ROOT/old")" ] ||
	fail "the cgroup made before the start is not counted"
[ -n "$(own "$TMP/m1" page-faults "/$ROOT")" ] || fail "the cgroup root itself is not counted"
[ -n "$(own "$TMP/m1" page-faults /)" ] || fail "no series of what ran outside the cgroups (\"/\")"
[ -z "$(own_cpu "$TMP/m1" page-faults "/$ROOT")" ] ||
	fail "CPU x cgroup series that no configuration asked for"
# the number of series: 2 gauges and a counter, and for each of the 3 events C + G series (G: "/" and the
# counted cgroups); no comment is a series
nr_cg=$(awk '$1 == "bperf_daemon_cgroups" { print $2 }' "$TMP/m1")
assert_eq "$((3 + 3 * ($(wc -w <<<"$online") + nr_cg + 1)))" "$(grep -vc '^#' "$TMP/m1")" \
	"series of 3 events on $(wc -w <<<"$online") CPUs and $nr_cg cgroups"

# --- cgroups made and removed while it runs ------------------------------------------------
mkdir "$MNT/$ROOT/a"
wait_cgroups PRESENT "$ROOT/a"
mkdir -p "$MNT/$ROOT/n1/n2/n3"
wait_cgroups PRESENT "$ROOT/n1" "$ROOT/n1/n2" "$ROOT/n1/n2/n3"
rmdir "$MNT/$ROOT/n1/n2/n3" "$MNT/$ROOT/n1/n2" "$MNT/$ROOT/n1"
wait_cgroups ABSENT "$ROOT/n1" "$ROOT/n1/n2" "$ROOT/n1/n2/n3"
rmdir "$MNT/$ROOT/a"
wait_cgroups ABSENT "$ROOT/a"

# --- exactness: a cgroup's scrape difference = a direct -G count of the same run -----------
CG=$ROOT/x
mkdir "$MNT/$CG"
wait_cgroups PRESENT "$CG"
cg_exact "the daemon's"

# --- own counts: a cgroup's own tasks, not its child's; the family adds up to the machine's ------
# pagetouch 500 and pingpong 1000 in p/c, pagetouch 300 in p, under a direct -G of p and of p/c
# (perf's cgroup events count descendants): p's own count is p's direct count less p/c's, and
# so is the sum of p's CPU x cgroup series (daemon.cgroup-cpu-series = /ROOT/p); then p/c is
# removed: p's own count stays as it was (p/c's counts are folded into p, not added again)
mkdir -p "$MNT/$ROOT/p/c"
wait_cgroups PRESENT "$ROOT/p" "$ROOT/p/c"
scrape >"$TMP/own0" || fail "scrape failed"
"$BPERF" stat -a -e page-faults,page-faults,context-switches,context-switches \
	-G "$ROOT/p,$ROOT/p/c,$ROOT/p,$ROOT/p/c" -x, -o "$TMP/own.direct" -- sh -c \
	"$IN $ROOT/p/c $WORKLOADS/pagetouch 500; $IN $ROOT/p $WORKLOADS/pagetouch 300;
	 $IN $ROOT/p/c $WORKLOADS/pingpong 1000" >/dev/null || fail "direct -G of p and p/c failed"
scrape >"$TMP/own1" || fail "scrape failed"
ncpu=$(wc -w <<<"$online")
for ev in page-faults context-switches; do
	dp=$(awk -F, -v ev="$ev" -v cg="$ROOT/p" '$3 == ev && $4 == cg { print $1 }' \
		"$TMP/own.direct")
	dc=$(awk -F, -v ev="$ev" -v cg="$ROOT/p/c" '$3 == ev && $4 == cg { print $1 }' \
		"$TMP/own.direct")
	[[ $dp =~ ^[0-9]+$ && $dc =~ ^[0-9]+$ ]] ||
		{ cat "$TMP/own.direct" >&2; fail "no direct -G counts of $ev"; }
	assert_count "$ev" "$dc" "$(($(own "$TMP/own1" "$ev" "/$ROOT/p/c") - $(own "$TMP/own0" \
		"$ev" "/$ROOT/p/c")))" "the own $ev of p/c (no child): its direct -G count"
	assert_count "$ev" "$((dp - dc))" "$(($(own "$TMP/own1" "$ev" "/$ROOT/p") - \
		$(own "$TMP/own0" "$ev" "/$ROOT/p")))" "the own $ev of p: direct -G p less p/c"
	assert_eq "$ncpu" "$(own_cpu "$TMP/own1" "$ev" "/$ROOT/p" | wc -l)" \
		"CPU x cgroup series of p's $ev"
	assert_eq "$(own "$TMP/own1" "$ev" "/$ROOT/p")" \
		"$(own_cpu "$TMP/own1" "$ev" "/$ROOT/p" | awk '{ s += $2 } END { print s }')" \
		"p's own $ev: its series over the CPUs and its CPU x cgroup series added up"
	fam=${ev//-/_}_total
	assert_eq "$(total "$TMP/own1" "bperf_$fam")" "$(total "$TMP/own1" "bperf_cgroup_$fam")" \
		"$ev: the cgroup family's sum and the machine's"
	echo "$ev: direct -G p $dp, p/c $dc; own p $(own "$TMP/own1" "$ev" "/$ROOT/p")," \
		"p/c $(own "$TMP/own1" "$ev" "/$ROOT/p/c"); families add up to $(total "$TMP/own1" \
		"bperf_$fam")"
done
[ -z "$(own_cpu "$TMP/own1" page-faults "/$ROOT/p/c")" ] ||
	fail "CPU x cgroup series of p/c, which the configuration does not name"
nr_cg=$(awk '$1 == "bperf_daemon_cgroups" { print $2 }' "$TMP/own1")
assert_eq "$((3 + 3 * (ncpu + nr_cg + 1 + ncpu)))" "$(grep -vc '^#' "$TMP/own1")" \
	"series of 3 events on $ncpu CPUs, $nr_cg cgroups and one with CPU x cgroup series"
rmdir "$MNT/$ROOT/p/c"
wait_cgroups ABSENT "$ROOT/p/c"
scrape >"$TMP/own2" || fail "scrape failed"
assert_eq "$(own "$TMP/own1" page-faults "/$ROOT/p")" "$(own "$TMP/own2" page-faults "/$ROOT/p")" \
	"p's own page-faults after its child's removal"
assert_eq "$(own_cpu "$TMP/own1" page-faults "/$ROOT/p")" \
	"$(own_cpu "$TMP/own2" page-faults "/$ROOT/p")" "p's CPU x cgroup page-faults after it"
echo "p/c removed: p's own page-faults stay $(own "$TMP/own2" page-faults "/$ROOT/p")"

# --- bperf stat shares the daemon's leaders ------------------------------------------------
base=$(pagetouch_base) || exit 1
"$BPERF" stat --bpf-counters -a -e page-faults -v -x, --bpf-attr-map "$SHARED_MAP" \
	-- "$WORKLOADS/pagetouch" 100 >/dev/null 2>"$TMP/a.err" || fail "shared -a session failed"
grep -q '^bperf: sharing leader link [0-9]* (member 0 of its group)' "$TMP/a.err" ||
	{ cat "$TMP/a.err" >&2; fail "a shared -a session did not share the daemon's leader"; }
grep -q '^bperf: new leader link' "$TMP/a.err" && fail "a shared -a session made a leader"
count=$(awk -F, '$3 == "page-faults" { print $1 }' "$TMP/a.err")
[[ $count =~ ^[0-9]+$ ]] && [ "$count" -ge $((base + 100)) ] ||
	fail "shared -a page-faults $count, less than pagetouch's $((base + 100))"
# a thread session of the same event shares it too (member 0), and its count is exact; one of
# context-switches (member 1) and its direct twin count the same
"$BPERF" stat --bpf-counters -e context-switches -v -x, --bpf-attr-map "$SHARED_MAP" \
	-- "$WORKLOADS/pagetouch" 1 >/dev/null 2>"$TMP/t.err" || fail "shared thread session failed"
grep -q '^bperf: sharing leader link [0-9]* (member 1 of its group)' "$TMP/t.err" ||
	{ cat "$TMP/t.err" >&2; fail "a thread session did not share the daemon's leader"; }
norandom "$BPERF" stat -e context-switches,context-switches:b,page-faults,page-faults:b -x, \
	--bpf-attr-map "$SHARED_MAP" -o "$TMP/pairs" -- "$WORKLOADS/pingpong" 1000 ||
	fail "direct and shared thread counters beside the daemon failed"
cs_within "$TMP/pairs" "a workload's counters beside the daemon" 1
check_pairs "$TMP/pairs" "a workload's direct and shared counters beside the daemon"
one_shared() {
	norandom "$BPERF" stat --bpf-counters -e page-faults -x, --bpf-attr-map "$SHARED_MAP" \
		-- "$WORKLOADS/pagetouch" 300 2>&1 >/dev/null | cut -d, -f1
}
count=$(least_count one_shared) || exit 1
assert_eq "$((base + 300))" "$count" "shared page-faults of pagetouch 300 beside the daemon"
echo "bperf stat --bpf-counters shares the daemon's leaders: -a $(grep -c sharing "$TMP/a.err")" \
	"sharing line(s); pagetouch 300: $count page-faults"
grep -c '^bperf: new leader link' "$TMP/daemon.err" | grep -qx 1 ||
	fail "the daemon did not make one leader for its 3 events"
assert_eq $((switch_progs + 1)) "$(count_on_switch)" \
	"on_switch programs after sessions of its events beside the daemon (still one more)"

# --- SIGTERM: status 0, nothing left ---------------------------------------------------------
stop_daemon TERM
assert_eq 0 "$DSTATUS" "the daemon's exit status after SIGTERM"
assert_nothing_left
assert_eq 0 "$(bpftool -j map dump pinned "$SHARED_MAP" | jq length)" \
	"attr map entries (group and member keys) after SIGTERM"
echo "SIGTERM: exit 0, nothing left"

# --- a session shares the daemon's leader; SIGKILL: it keeps counting, the next session cleans
# up, the next daemon gets the port ------------------------------------------------------------
start_daemon 0
port=$PORT
mkfifo "$TMP/go"
"$BPERF" stat --bpf-counters -a -e page-faults -v -x, --bpf-attr-map "$SHARED_MAP" \
	-o "$TMP/k.out" -- sh -c "read -r _ <$TMP/go" 2>"$TMP/k.err" &
spid=$!
BG_PIDS+=("$spid")
wait_until 'grep -q "^bperf: sharing leader link" "$TMP/k.err"' 10
grep -q '^bperf: sharing leader link [0-9]* (member 0 of its group)' "$TMP/k.err" ||
	{ cat "$TMP/k.err" >&2; fail "the session did not share the daemon's leader"; }
# the session holds the daemon's leader after the daemon dies: the next session's reclaim frees
# the daemon's slot and its cgroup registrations there
before=$(cg_index_entries)
[ "$before" -ge 2 ] || fail "the daemon's cgroups are not in the leader's cg_index ($before)"
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
"$BPERF" stat --bpf-counters -a -e page-faults,context-switches,cpu-clock -x, -v \
	--bpf-attr-map "$SHARED_MAP" -- true >/dev/null 2>"$TMP/n.err" ||
	fail "the next session failed"
assert_eq 3 "$(grep -c '^bperf: sharing leader link [0-9]* (member' "$TMP/n.err")" \
	"the next session's events sharing the dead daemon's leader (still held)"
after=$(cg_index_entries)
assert_eq 0 "$after" "cgroups registered in the shared leader after the daemon's SIGKILL"
echo >"$TMP/go"
wait "$spid" || { cat "$TMP/k.out" >&2; fail "the session across the daemon's SIGKILL failed"; }
[[ $(awk -F, '$3 == "page-faults" { print $1 }' "$TMP/k.out") =~ ^[0-9]+$ ]] ||
	{ cat "$TMP/k.out" >&2; fail "the session across the daemon's SIGKILL counted nothing"; }
assert_eq 0 "$(bpftool -j map dump pinned "$SHARED_MAP" | jq length)" \
	"attr map entries after the last session of the killed daemon's leader"
assert_nothing_left
start_daemon "$port"
assert_eq "$port" "$PORT" "the new daemon's port"
scrape >"$TMP/m2" || fail "the new daemon does not answer"
[ -n "$(own "$TMP/m2" page-faults /)" ] || fail "the new daemon exports nothing"
echo "SIGKILL: nothing left after the next session; a new daemon listens on port $port again"

# --- perf's config files: [daemon] keys, stat.bpf-counter-events as the default events ---------
# config_daemon FILE: a daemon with no options but the attr map, reading FILE; its exposition in
# $TMP/conf.metrics, then SIGTERM
config_daemon() {
	local cpid cport

	PERF_CONFIG=$1 $DAEMON_WRAP "$BPERF" daemon --bpf-attr-map "$SHARED_MAP" 2>"$TMP/conf.err" &
	cpid=$!
	BG_PIDS+=("$cpid")
	cport=$(daemon_addr "$cpid" "$TMP/conf.err") || fail "no daemon with config $1"
	cport=${cport##*:}
	PORT=$cport scrape >"$TMP/conf.metrics" || fail "scrape failed"
	kill -TERM "$cpid"
	wait "$cpid" || fail "the daemon of config $1 exited with $?"
}
# families FILE: the counter families of an exposition, on one line
families() {
	awk '$1 == "#" && $2 == "TYPE" && $4 == "counter" && $3 !~ /^bperf_daemon_/ { print $3 }' \
		"$1" | paste -sd' ' -
}
printf '[stat]\n\tbpf-counter-events = page-faults\n[daemon]\n\tlisten = 127.0.0.1:0\n' \
	>"$TMP/conf1"
printf '\tsocket = none\n\tcgroup-root = %s\n' "$ROOT/x" >>"$TMP/conf1"
config_daemon "$TMP/conf1"
assert_eq "bperf_page_faults_total bperf_cgroup_page_faults_total" \
	"$(families "$TMP/conf.metrics")" "the families with stat.bpf-counter-events = page-faults"
[ -n "$(own "$TMP/conf.metrics" page-faults "/$ROOT/x")" ] &&
	[ -z "$(own "$TMP/conf.metrics" page-faults "/$ROOT/old")" ] ||
	fail "daemon.cgroup-root = $ROOT/x: not its cgroups only"
printf '[daemon]\n\tevents = context-switches\n' >>"$TMP/conf1"
config_daemon "$TMP/conf1"
assert_eq "bperf_context_switches_total bperf_cgroup_context_switches_total" \
	"$(families "$TMP/conf.metrics")" "the families with daemon.events = context-switches"
echo "config: stat.bpf-counter-events, daemon.events, listen, socket and cgroup-root taken"

# --- the Unix socket: its directory made 0755, the socket gone after SIGTERM ------------------
$DAEMON_WRAP "$BPERF" daemon --listen none --socket "$TMP/run/daemon.sock" \
	--bpf-attr-map "$SHARED_MAP" -e page-faults --cgroup-root "$ROOT" 2>"$TMP/sock.err" &
spid=$!
BG_PIDS+=("$spid")
wait_until '[ -S "$TMP/run/daemon.sock" ] || ! kill -0 "$spid" 2>/dev/null' 10
[ -S "$TMP/run/daemon.sock" ] || { cat "$TMP/sock.err" >&2; fail "no socket $TMP/run/daemon.sock"; }
assert_eq 755 "$(stat -c %a "$TMP/run")" "the mode of the socket's directory"
kill -TERM "$spid"
wait "$spid" || fail "the daemon with a socket exited with $?"
[ ! -e "$TMP/run/daemon.sock" ] || fail "the socket file stays after SIGTERM"
echo "socket: its directory made 0755, the socket removed at SIGTERM"

# --- bad input: one line, non-zero exit, nothing left ---------------------------------------
# bad CODE WHAT OPTIONS...: the daemon exits with CODE and says one line
bad() {
	local code=$1 what=$2 status lines

	shift 2
	timeout 10 $DAEMON_WRAP "$BPERF" daemon --socket none --bpf-attr-map "$SHARED_MAP" "$@" \
		>/dev/null 2>"$TMP/bad.err"
	status=$?
	lines=$(wc -l <"$TMP/bad.err")
	[ "$status" = "$code" ] ||
		{ cat "$TMP/bad.err" >&2; fail "$what: exit $status, not $code"; }
	[ "$code" = 129 ] || [ "$lines" = 1 ] ||
		{ cat "$TMP/bad.err" >&2; fail "$what: $lines lines of error, not one"; }
	echo "$what: exit $status: $(head -n 1 "$TMP/bad.err")"
}
bad 1 "unknown event" --listen 127.0.0.1:0 -e nosuchevent_$$
bad 1 "an event group" --listen 127.0.0.1:0 -e '{page-faults,context-switches}'
bad 1 "two events, one metric" --listen 127.0.0.1:0 -e page-faults,page-faults
bad 1 "malformed --listen" --listen 127.0.0.1
bad 1 "malformed --listen port" --listen 127.0.0.1:99999
bad 1 "port in use" --listen "127.0.0.1:$PORT"
bad 1 "missing --cgroup-root" --listen 127.0.0.1:0 --cgroup-root "$ROOT/nosuch"
# the CPU x cgroup series a configuration asks for: past daemon.max-cgroup-cpu-series at the
# start (a list, or all of the cgroups there), or a path that is not one
printf '[daemon]\n\tcgroup-cpu-series = /%s/a,/%s/b,/%s/c\n\tmax-cgroup-cpu-series = 5\n' \
	"$ROOT" "$ROOT" "$ROOT" >"$TMP/cpu-over.conf"
PERF_CONFIG=$TMP/cpu-over.conf bad 1 "CPU x cgroup series past the limit" --listen 127.0.0.1:0 \
	-e page-faults --cgroup-root "$ROOT"
printf '[daemon]\n\tcgroup-cpu-series = all\n\tmax-cgroup-cpu-series = 5\n' >"$TMP/cpu-all.conf"
PERF_CONFIG=$TMP/cpu-all.conf bad 1 "CPU x cgroup series of all cgroups past the limit" \
	--listen 127.0.0.1:0 -e page-faults --cgroup-root "$ROOT"
printf '[daemon]\n\tcgroup-cpu-series = relative/path\n' >"$TMP/cpu-bad.conf"
PERF_CONFIG=$TMP/cpu-bad.conf bad 1 "a CPU x cgroup series path that is not one" \
	--listen 127.0.0.1:0 -e page-faults --cgroup-root "$ROOT"
printf '[daemon]\n\tmax-cgroup-cpu-series = -1\n' >"$TMP/cpu-neg.conf"
PERF_CONFIG=$TMP/cpu-neg.conf bad 1 "a negative daemon.max-cgroup-cpu-series" \
	--listen 127.0.0.1:0 -e page-faults --cgroup-root "$ROOT"
bad 129 "unknown option" --nosuchoption
bad 129 "an argument" --listen none stray
stop_daemon TERM
assert_eq 0 "$DSTATUS" "the daemon's exit status after SIGTERM"
assert_nothing_left
echo "bad input: nothing left"

# --- more events than one group holds: as few leaders as open, software and msr ones apart -----
# 9 software events and msr/tsc/ where the msr PMU is (it may multiplex: never in a software
# group), second in the list, so the first group is not contiguous: 8 software events, msr/tsc/
# alone, and cs alone, which joins the first group as context-switches, its member 2 (an alias:
# the same attr). page-faults (member 4) and context-switches count a cgroup's run as a direct
# -G session does, and cs is context-switches' series exactly.
PACKED=cpu-clock
leaders=1
if [ -e /sys/bus/event_source/devices/msr/events/tsc ]; then
	PACKED+=,msr/tsc/
	leaders=2
fi
PACKED+=,task-clock,context-switches,cpu-migrations,page-faults,major-faults,alignment-faults
PACKED+=,emulation-faults,cs
switch_progs=$(count_on_switch)
EVENTS=$PACKED start_daemon 0
assert_eq "$leaders" "$(grep -c '^bperf: new leader link' "$TMP/daemon.err")" \
	"the daemon's new leaders for $PACKED"
assert_eq "$((switch_progs + leaders))" "$(count_on_switch)" \
	"on_switch programs after the start of a daemon of $leaders leaders"
grep -q '^bperf daemon: leader 1: 8 event(s) from cpu-clock$' "$TMP/daemon.err" &&
	grep -q "^bperf daemon: leader $((leaders + 1)): 1 event(s) from cs\$" "$TMP/daemon.err" &&
	grep -q '^bperf: sharing leader link [0-9]* (member 2 of its group)$' "$TMP/daemon.err" ||
	{ cat "$TMP/daemon.err" >&2; fail "the daemon's groups are not 8 events and cs alone"; }
wait_cgroups PRESENT "$CG"
scrape >"$TMP/families" || fail "scrape failed"
assert_eq "$(tr , '\n' <<<"$PACKED" | wc -l)" \
	"$(awk '$1 == "#" && $2 == "TYPE" && $4 == "counter" && $3 !~ /_(enabled|running)_/ &&
		$3 !~ /^bperf_(cgroup|daemon)_/' "$TMP/families" | wc -l)" \
	"per-CPU counter families of the daemon of $PACKED"
cg_exact "the packed daemon's"
assert_eq "$(machine "$TMP/after" bperf_context_switches_total)" \
	"$(machine "$TMP/after" bperf_cs_total)" "cs and context-switches on each CPU"
for cg in / "/$CG"; do
	assert_eq "$(own "$TMP/after" context-switches "$cg")" "$(own "$TMP/after" cs "$cg")" \
		"cs and context-switches in $cg"
done
stop_daemon TERM
assert_eq 0 "$DSTATUS" "the packed daemon's exit status after SIGTERM"
assert_nothing_left
echo "$(tr , '\n' <<<"$PACKED" | wc -l) events: $leaders new leaders and cs in the first group;" \
	"page-faults and context-switches in $CG as direct -G counts them, cs as context-switches"
