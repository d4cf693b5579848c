#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A fleet through Prometheus: two `bperf daemon`s (two ports, two attr maps: two sets of leaders)
# scraped as the targets of one job by a real Prometheus 2.42 that loads the shipped rules
# (tools/prometheus/bperf.rules.yml, evaluated every second). At every evaluation, the fleet's
# job:bperf_EVENT:rate1m equals the two daemons' instance:bperf_EVENT:rate1m added, and at each
# evaluation that no scrape straddles, each of those equals the daemon's own series queried at
# that time, sum without(cpu) (rate(bperf_EVENT_total[1m])): exact, for page-faults and
# context-switches. Scrapes every 700 ms, so that scrapes and evaluations drift apart: a scrape
# that starts before an evaluation and ends after it is in a later query, not in the rule's
# input. With the msr PMU, msr/tsc/ (an event that may multiplex, never multiplexed here) has a
# running/enabled ratio of exactly 1 on both daemons and no alert. Every rule evaluates without
# an error. Skips where prometheus or curl is missing (QEMU guests). About 20 s.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

prom_require
require_workloads pagetouch pingpong
shared_setup daemon_fleet_$$

# A cgroup root of the test's own, with no cgroup below it: this machine's thousands of cgroups
# made every scrape 3 MB and 100 ms long. Without a cgroup hierarchy, the per-CPU series only.
MNT=$(perf_cgroup_mount)
ROOT=bperf_fleet_$$
ROOT_OPT=()
cleanup() {
	shared_cleanup
	[ -n "$MNT" ] && remove_cgroup "$ROOT"
}
trap cleanup EXIT
[ -n "$MNT" ] && mkdir "$MNT/$ROOT" && ROOT_OPT=(--cgroup-root "$ROOT")

EVENTS=page-faults,context-switches
[ -d /sys/bus/event_source/devices/msr ] && EVENTS+=,msr/tsc/
# a sample is in the rule's input once its scrape has ended (scrape_duration_seconds) and been
# committed: this much after it at the least
COMMIT_MARGIN=0.1
MIN_SAFE=3

now() {
	date +%s.%N
}

declare -A addr pid
for d in a b; do
	SHARED_MAP=${SHARED_MAP}_$d daemon_start "daemon_$d" -e "$EVENTS" "${ROOT_OPT[@]}"
	addr[$d]=$DAEMON_ADDR
	pid[$d]=$DAEMON_PID
done
RULES=$REPO_TOP/tools/prometheus/bperf.rules.yml
PROM_RULES=$RULES prom_start "${addr[a]},${addr[b]}" 700ms
prom_wait_up 20
up=$(now)

# page faults and context switches on the machine while the rules evaluate
for _ in 1 2 3 4; do
	"$WORKLOADS/pagetouch" 2000 >/dev/null
	"$WORKLOADS/pingpong" 2000 >/dev/null
	sleep 2
done
end=$(now)
window=$(awk -v u="$up" -v e="$end" 'BEGIN { printf "%d", e - u + 5 }')

# [[ts, duration], ...] of each target's scrapes
prom_query "scrape_duration_seconds{job=\"bperf\"}[${window}s]" "$end" >"$TMP/scrapes.json"
assert_eq 2 "$(jq '.data.result | length' "$TMP/scrapes.json")" "targets with scrapes"

# safe_times FLEET_JSON: the evaluation times of the fleet series at which every target's last
# scrape before it had ended, COMMIT_MARGIN before.
safe_times() {
	jq -r --slurpfile s "$TMP/scrapes.json" --argjson m "$COMMIT_MARGIN" '
		[$s[0].data.result[] | [.values[] | [.[0], (.[1] | tonumber)]]] as $targets |
		.data.result[0].values[][0] as $t |
		select(all($targets[]; (map(select(.[0] <= $t)) | last) as $last |
			$last != null and $last[0] + $last[1] + $m < $t)) | $t' "$1"
}

for ev in page_faults context_switches; do
	prom_query "job:bperf_$ev:rate1m[${window}s]" "$end" >"$TMP/$ev.fleet.json"
	prom_query "instance:bperf_$ev:rate1m[${window}s]" "$end" >"$TMP/$ev.inst.json"
	assert_eq 1 "$(jq '.data.result | length' "$TMP/$ev.fleet.json")" "job:bperf_$ev:rate1m series"
	assert_eq 2 "$(jq '.data.result | length' "$TMP/$ev.inst.json")" \
		"instance:bperf_$ev:rate1m series"

	# the fleet at each of its evaluations: the sum of its daemons' records of that time (one
	# daemon's alone until the other has two scrapes)
	jq -r --slurpfile i "$TMP/$ev.inst.json" '
		[$i[0].data.result[] | [.values[] | {key: (.[0] | tostring), value: .[1]}] |
			from_entries] as $inst |
		.data.result[0].values[] | .[0] as $t | .[1] as $fleet |
		[$inst[][$t | tostring] // empty] as $v |
		if $v == [] or ($v | map(tonumber) | add) != ($fleet | tonumber) then
			"bad \($t): fleet \($fleet), daemons \($v | join(" + "))"
		else "ok \($v | length)" end' "$TMP/$ev.fleet.json" >"$TMP/$ev.fleet"
	grep -q '^bad' "$TMP/$ev.fleet" &&
		fail "job:bperf_$ev:rate1m: $(grep -m3 '^bad' "$TMP/$ev.fleet")"
	evals=$(grep -c '^ok 2$' "$TMP/$ev.fleet")
	[ "$evals" -ge "$MIN_SAFE" ] || fail "$ev: $evals evaluations of the fleet of 2 daemons"

	# each daemon's record at the safe times: its own series, queried then
	safe=0
	for t in $(safe_times "$TMP/$ev.fleet.json"); do
		own=$(prom_query "sum without(cpu) (rate(bperf_${ev}_total{job=\"bperf\"}[1m]))" "$t" |
			jq -c '[.data.result[] | [.metric.instance, .value[1]]] | sort')
		rec=$(jq -c --argjson t "$t" '[.data.result[] | .metric.instance as $i |
			.values[] | select(.[0] == $t) | [$i, .[1]]] | sort' "$TMP/$ev.inst.json")
		assert_eq "$own" "$rec" "instance:bperf_$ev:rate1m at $t against the daemons' series"
		jq -e 'length == 2 and all(.[]; .[1] | tonumber > 0)' <<<"$rec" >/dev/null &&
			safe=$((safe + 1))
	done
	[ "$safe" -ge "$MIN_SAFE" ] || fail "$ev: $safe evaluations of 2 daemons counting, with no" \
		"scrape across them, of $evals (want $MIN_SAFE)"
	echo "$ev: the fleet equals its 2 daemons at $evals evaluations, their own series at $safe"
done

if [[ $EVENTS == *msr/tsc/* ]]; then
	ratio=$(prom_query 'instance_event:bperf_running_per_enabled_seconds:ratio_rate5m' "$end" |
		jq -c '[.data.result[] | [.metric.event, .value[1]]] | sort')
	assert_eq '[["msr_tsc","1"],["msr_tsc","1"]]' "$ratio" "running/enabled of msr/tsc/"
	alerts=$(prom_query 'ALERTS' "$end" | jq -c '[.data.result[].metric.alertname]')
	assert_eq '[]' "$alerts" "alerts"
	echo "msr/tsc/: running/enabled exactly 1 on both daemons, no alert"
fi
# every rule of the file loaded, and none failed at any evaluation
curl -sf "$PROM/api/v1/rules" >"$TMP/rules.json" || fail "no rules from Prometheus"
n=$(jq '[.data.groups[].rules[]] | length' "$TMP/rules.json")
assert_eq "$(grep -cE '^ +- (record|alert): ' "$RULES")" "$n" "rules loaded"
bad=$(jq -r '.data.groups[].rules[] | select(.health != "ok") | "\(.name): \(.lastError)"' \
	"$TMP/rules.json")
[ -z "$bad" ] || fail "rules that failed: $bad"
failures=$(curl -sf "$PROM/metrics" |
	awk '/^prometheus_rule_evaluation_failures_total/ { n += $2 } END { print n + 0 }')
assert_eq 0 "$failures" "prometheus_rule_evaluation_failures_total"

# SIGTERM: exit 0, and each daemon's leaders gone (its links, not every new leader program:
# benchmarks of other worktrees may load theirs meanwhile) with its attr map empty
for d in a b; do
	links=$(map_link_ids "${SHARED_MAP}_$d" | sort -u)
	[ -n "$links" ] || fail "daemon $d: no leader in its attr map"
	kill -TERM "${pid[$d]}"
	wait "${pid[$d]}" || fail "bperf daemon $d exited $? on SIGTERM"
	for id in $links; do
		wait_until '! bpftool link show id "$id" >/dev/null 2>&1' 3 ||
			fail "daemon $d: link $id left"
	done
	[ -z "$(map_link_ids "${SHARED_MAP}_$d")" ] || fail "daemon $d: attr map entries left"
done
echo "2 daemons, 1 Prometheus: the fleet's rules equal the daemons' own series exactly"
