#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf daemon with more hardware events than the PMU has counters (the arm64 guest's
# armv8_pmuv3: 6 event counters and the cycle counter): it takes as few leaders as open, rather
# than one leader (one BPF program at a switch) per event. A hardware group keeps a counter
# spare (a full one would never run beside a pinned event), so the 8 events are a group of 6
# (cycles:u on the cycle counter, 5 event counters) and one of r8:u and r11:u. The two leaders
# need the cycle counter both, so the PMU multiplexes them for real: over a pinned loop's run,
# every event's series on the loop's CPU ran part of the time it was enabled, a group's members
# ran the same time (the PMU schedules a group as one), and the loop's user-mode instructions,
# scaled as the man page tells Prometheus users to (count x enabled / running), come within a
# bound of the loop's count on a quiet PMU. Skipped where the kernel has no hardware PMU.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup hw_daemon
"$PERF" stat -e instructions true 2>&1 | grep -q '<not supported>' &&
	skip "no hardware PMU: perf counts no instructions here"
require_qemu_virt_pmu "its PMU: 6 counters and the cycle counter"
nr_cpus=$(nproc)
[ "$nr_cpus" -ge 2 ] || skip "needs 2 CPUs: the loop on one, the daemon on another"
cpu=$((nr_cpus - 1))
LOOP=(taskset -c "$cpu" "$WORKLOADS/insnloop" 10000000)
EVENTS=instructions,cycles:u,r8,r11,r3,r4,r8:u,r11:u
# The bound of the scaled estimate against the quiet count: the emulated PMU counts the whole
# machine's instructions on each CPU's counters (QEMU's icount is one count), so the daemon's and
# the shell's user-mode work on the other CPU between the scrapes lands in it too, and the two
# leaders run about half the time each (measured: 0.38% off, running 49.8% of the time; a
# count left unscaled would be 50% short).
BOUND_PCT=${HW_DAEMON_BOUND_PCT:-5}

"$PERF" stat -e instructions:u -x, -- "${LOOP[@]}" 2>"$TMP/quiet" >/dev/null
quiet=$(awk -F, '$3 == "instructions:u" { print $1 }' "$TMP/quiet")
[[ $quiet =~ ^[0-9]+$ ]] || { cat "$TMP/quiet" >&2; fail "no quiet count of the loop"; }

switch_progs=$(count_on_switch)
"$BPERF" daemon -v --listen 127.0.0.1:0 --socket none --bpf-attr-map "$SHARED_MAP" \
	-e "$EVENTS" 2>"$TMP/daemon.err" &
daemon=$!
BG_PIDS+=("$daemon")
# each leader's loading takes about 10 s under TCG: up to 120 s
daemon_says "$daemon" "$TMP/daemon.err" ready 2400 >/dev/null || fail "the daemon did not start"
port=$(daemon_addr "$daemon" "$TMP/daemon.err") || fail "the daemon says no address"
port=${port##*:}
[ "$(grep -c '^bperf: new leader link' "$TMP/daemon.err")" = 2 ] ||
	{ cat "$TMP/daemon.err" >&2; fail "the daemon's leaders are not 2"; }
assert_eq $((switch_progs + 2)) "$(count_on_switch)" "on_switch programs after its start"
grep -q '^bperf daemon: leader 1: 6 event(s) from instructions$' "$TMP/daemon.err" &&
	grep -q '^bperf daemon: leader 2: 2 event(s) from r8:u$' "$TMP/daemon.err" ||
	{ cat "$TMP/daemon.err" >&2; fail "the daemon's groups are not 6 events and 2"; }

daemon_scrape "$port" >"$TMP/before" || fail "scrape failed"
"${LOOP[@]}" >/dev/null
daemon_scrape "$port" >"$TMP/after" || fail "scrape failed"
kill -TERM "$daemon"
wait "$daemon" || fail "the daemon exited $?"
assert_nothing_left

# per event of the loop's CPU, "event count enabled running", the differences of the scrapes
awk -v cpu="$cpu" '
	!/^#/ && index($1, "{cpu=\"" cpu "\"}") && !index($1, "cgroup=") {
		fam = substr($1, 1, index($1, "{") - 1)
		kind = "count"
		if (sub(/_enabled_seconds_total$/, "", fam))
			kind = "enabled"
		else if (sub(/_running_seconds_total$/, "", fam))
			kind = "running"
		else
			sub(/_total$/, "", fam)
		v[fam, kind] += (FILENAME ~ /after$/ ? $2 : -$2)
		fams[fam] = 1
	}
	END {
		for (f in fams)
			printf "%s %d %.6f %.6f\n", f, v[f, "count"], v[f, "enabled"], v[f, "running"]
	}' "$TMP/before" "$TMP/after" | sort >"$TMP/deltas"
cat "$TMP/deltas"
assert_eq 8 "$(wc -l <"$TMP/deltas")" "events exported with their times on CPU $cpu"

# every event ran part of its enabled time; each group's members ran the same time to 0.1%
awk '$4 <= 0 || $4 >= $3 * 0.999 { print }' "$TMP/deltas" | grep . &&
	fail "events above ran all their enabled time (or none): the PMU did not multiplex them"
for group in '$1 !~ /_u$/ || $1 == "bperf_cycles_u"' '$1 ~ /_u$/ && $1 != "bperf_cycles_u"'; do
	awk "$group"' { print $4 }' "$TMP/deltas" | sort -n | sed -n '1p;$p' | paste -sd' ' |
		awk '{ exit !($2 <= $1 * 1.001) }' || fail "a group's members ran different times"
done

read -r _ count enabled running < <(grep '^bperf_r8_u ' "$TMP/deltas")
scaled=$(awk -v c="$count" -v e="$enabled" -v r="$running" 'BEGIN { printf "%d", c * e / r }')
off=$(awk -v s="$scaled" -v q="$quiet" 'BEGIN { printf "%.2f", (s - q) * 100 / q }')
echo "r8:u on CPU $cpu: $count in ${running}s of ${enabled}s, scaled $scaled; quiet $quiet" \
	"($off% off)"
awk -v off="$off" -v b="$BOUND_PCT" 'BEGIN { exit !(off <= b && off >= -b) }' ||
	fail "the loop's scaled r8:u is $off% off its quiet count (bound $BOUND_PCT%)"
