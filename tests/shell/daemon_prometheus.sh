#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The issue's end-to-end test: a real Prometheus 2.42 (its own config, tsdb and port, scraping
# every second) scrapes `bperf daemon`, which counts page-faults and context-switches for the
# cgroups below a root of this test. A workload with known page faults and context switches runs
# twice in cgroup w, each time counted directly by `bperf stat -a -G` as well; between the runs
# the daemon is killed with SIGKILL and started again on the same port. Prometheus's raw samples
# of w, summed with resets taken into account (b - a, or b after a reset), must EQUAL the two
# direct counts: the cgroup is idle at every scrape that bounds a run and while the daemon is
# down, so nothing falls between scrapes (increase() is not used: it extrapolates). And the
# restart is an ordinary counter reset: resets() >= 1 for every series that had counted before
# it, rate() never negative. Skips where prometheus, promtool or curl is missing (QEMU guests).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

prom_require
require_workloads pagetouch pingpong
MNT=$(perf_cgroup_mount)
[ -n "$MNT" ] || skip "no cgroup hierarchy for perf events (cgroup2 or v1 perf_event)"
shared_setup daemon_prometheus_$$

ROOT=bperf_prom_$$
CG=$ROOT/w
PAGES=3000
ROUND_TRIPS=3000
EVENTS=(page_faults context_switches)

cleanup() {
	shared_cleanup
	[ -d "$MNT/$CG" ] && rmdir "$MNT/$CG"
	[ -d "$MNT/$ROOT" ] && rmdir "$MNT/$ROOT"
}
trap cleanup EXIT

mkdir "$MNT/$ROOT" "$MNT/$CG" || skip "cannot create cgroups under $MNT"
cat >"$TMP/in_cgroup" <<EOF
#!/bin/sh
echo \$\$ >"$MNT/$CG/cgroup.procs" || exit 99
exec "\$@"
EOF
chmod +x "$TMP/in_cgroup"

now() {
	date +%s.%N
}

# wait_scraped_after T: until Prometheus holds, for every series of w, a sample scraped after
# Unix time T (then everything counted before T is in it; both events come in one scrape).
wait_scraped_after() {
	local t=$1 min

	wait_until 'scraped_after "$t"' 20 ||
		fail "no scrape of /$CG after $t (last $min; target: $(prom_target))"
}

# scraped_after T: wait_scraped_after's poll; sets its min (the oldest of the series' last
# scrapes)
scraped_after() {
	min=$(prom_query "min(timestamp(bperf_cgroup_page_faults_total{cgroup=\"/$CG\"}))" |
		jq -r '.data.result[0].value[1] // 0')
	awk -v m="$min" -v t="$1" 'BEGIN { exit !(m > t) }'
}

# run_phase N: the workload in w, counted directly; its counts in $TMP/dN.
run_phase() {
	"$BPERF" stat -a -e page-faults,context-switches -G "$CG,$CG" -x, -o "$TMP/d$1" -- \
		sh -c "'$TMP/in_cgroup' '$WORKLOADS/pagetouch' $PAGES &&
		       '$TMP/in_cgroup' '$WORKLOADS/pingpong' $ROUND_TRIPS" >/dev/null ||
		fail "bperf stat of phase $1: $(cat "$TMP/d$1")"
}

# direct N EVENT: phase N's direct count of EVENT (page-faults, context-switches).
direct() {
	awk -F, -v e="$2" '$3 == e { print $1 }' "$TMP/d$1"
}

start=$(now)
# a fixed port, so that the restarted daemon is the same target
DAEMON_PORT=$(free_port) || fail "no free port"
export DAEMON_PORT
daemon_start daemon1 -e page-faults,context-switches --cgroup-root "$ROOT"
grep -q 'per-cgroup counting is not available' "$TMP/daemon1.err" &&
	fail "the daemon exports no per-cgroup series: $(cat "$TMP/daemon1.err")"
prom_start "$DAEMON_ADDR"
prom_wait_up 20
wait_scraped_after "$(now)"

run_phase 1
wait_scraped_after "$(now)"

# The restart: SIGKILL, one failed scrape recorded, the same port again (SO_REUSEADDR).
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
restart=$(now)
wait_until '[ "$(prom_query up | jq -r ".data.result[0].value[1]")" = 0 ]' 10
assert_eq 0 "$(prom_query up | jq -r '.data.result[0].value[1]')" "up while the daemon is down"
daemon_start daemon2 -e page-faults,context-switches --cgroup-root "$ROOT"
wait_scraped_after "$(now)"
assert_eq 1 "$(prom_query up | jq -r '.data.result[0].value[1]')" "up after the restart"

run_phase 2
wait_scraped_after "$(now)"

window=$(awk -v s="$start" -v n="$(now)" 'BEGIN { printf "%d", n - s + 5 }')
for ev in "${EVENTS[@]}"; do
	perf_name=${ev//_/-}
	d1=$(direct 1 "$perf_name")
	d2=$(direct 2 "$perf_name")
	[[ $d1 =~ ^[0-9]+$ && $d2 =~ ^[0-9]+$ ]] || fail "direct $perf_name counts: '$d1' '$d2'"
	prom_query "bperf_cgroup_${ev}_total{cgroup=\"/$CG\"}[${window}s]" >"$TMP/$ev.json"
	# the reset-aware sum of the raw samples of its series (one: summed over the CPUs)
	sum=$(jq '[.data.result[] | [.values[][1] | tonumber] | . as $v |
		reduce range(1; length) as $i (0; . + (if $v[$i] >= $v[$i - 1] then
		$v[$i] - $v[$i - 1] else $v[$i] end))] | add' "$TMP/$ev.json")
	series=$(jq '.data.result | length' "$TMP/$ev.json")
	[ "$series" -ge 1 ] || fail "no $ev series of /$CG in Prometheus"
	echo "$perf_name: direct $d1 + $d2, Prometheus $sum ($series series)"
	# Known gap (tests/README.md, shared_churn.sh): this host's guest agent threads switch
	# without the sched_switch tracepoint, so now and then a slice of the workload is read in
	# another cgroup's: context switches 3 of 11,931 once, 9 of 11,999 once; page faults 6 of
	# 6,133 once (0.1% allowed). A larger gap fails, with what the samples and the daemons say
	# (once in CI, under load: 2,000 of 6,134, and 2,410 of 3,066 in the phase after the
	# restart: not understood yet).
	gap=$((sum - d1 - d2))
	if [ "${gap#-}" -gt $(((d1 + d2) / 1000 + 1)) ]; then
		samples=$(jq -c '[.data.result[] | [.values[][1] | tonumber]]' "$TMP/$ev.json")
		grep -h -v '^bperf: \(kernel feature\|leader\)' "$TMP/daemon1.err" \
			"$TMP/daemon2.err" | tail -n 8 >&2
		fail "$perf_name of /$CG in Prometheus: $sum against bperf stat -G" \
			"$((d1 + d2)) ($d1 + $d2; samples $samples)"
	fi

	# every series that had counted before the restart saw a reset there
	counted=$(jq -r --argjson r "$restart" '.data.result[] |
		select(([.values[] | select(.[0] < $r)] | last // [0, "0"]) | .[1] | tonumber > 0) |
		.metric.cgroup' "$TMP/$ev.json" | sort)
	[ -n "$counted" ] || fail "$ev: no series counted before the restart"
	reset=$(prom_query "resets(bperf_cgroup_${ev}_total{cgroup=\"/$CG\"}[${window}s]) >= 1" |
		jq -r '.data.result[].metric.cgroup' | sort)
	[ -z "$(comm -23 <(echo "$counted") <(echo "$reset"))" ] ||
		fail "$ev: resets() < 1 in cgroups $(comm -23 <(echo "$counted") <(echo "$reset") |
			paste -sd,)"
	# rate() over every series of the daemon (all cgroups, all CPUs) never went negative
	any="{__name__=~\"bperf_(cgroup_)?${ev}_total\"}"
	low=$(prom_query "min(min_over_time(rate($any[3s])[${window}s:1s]))" |
		jq -r '.data.result[0].value[1]')
	if [ "$low" = null ] || ! awk -v l="$low" 'BEGIN { exit !(l + 0 >= 0) }'; then
		fail "$ev: rate() went down to $low"
	fi
done
[ "$(direct 1 page-faults)" -ge $PAGES ] || fail "phase 1: fewer page faults than $PAGES pages"
# about two switches a round trip, now and then a few fewer (5,995 for 3,000 seen)
[ "$(direct 1 context-switches)" -ge $((3 * ROUND_TRIPS / 2)) ] ||
	fail "phase 1: fewer context switches than 1.5 x $ROUND_TRIPS round trips"

kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "bperf daemon exited $? on SIGTERM"
assert_nothing_left
echo "Prometheus's samples equal bperf stat -G over a SIGKILL and restart; resets seen, rate >= 0"
