#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf check against a second method in the same run: the CPU against /proc/cpuinfo (or the
# MIDR), its CPU id against perf's "Using CPUID", the PMUs against sysfs, perf_event_paranoid
# and the NMI watchdog against /proc, bpf_loop against bpftool's probe, the holders against a
# perf stat -a and two shared sessions started for it, the shared pairs' direct counts against
# perf's count of the same workload. Where there is no PMU (this host) it says so and the
# software checks pass; on QEMU's arm64 PMU (the arm64 guests) the counters are 6 plus the
# cycle counter, the hardware pairs exact and insnloop's count the known one. Then: JSON with the
# same verdicts, a user without root (skips, exit 0), bad options (129), and nothing left behind:
# no program, map or link, no pin, no output folder.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../shared_lib.sh"

shared_setup check_cmd
require_workloads insnloop pagetouch pingpong

# verdict NAME [FILE]: the verdict of check NAME in the table (the first line of that name)
verdict() {
	awk -v n="$1" '$1 == n { print $2; exit }' "${2:-$TMP/table}"
}
detail() {
	awk -v n="$1" '$1 == n { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' "${2:-$TMP/table}"
}

objects() {
	{ bpftool prog show; bpftool map show; bpftool link show; } | grep -c '^[0-9]*:'
}
# objects_gone: the objects are those of before bperf check. The kernel frees a program, map or
# link some time after its last fd closes (CI, loaded: 12 of a leader still there at once).
objects_gone() {
	wait_until '[ "$(objects)" = "$before" ]' 10 ||
		assert_eq "$before" "$(objects)" "BPF programs, maps and links after bperf check"
}

# the holders: perf counting every CPU, and two shared sessions of one leader in our map
ncpus=$(getconf _NPROCESSORS_ONLN)
"$PERF" stat -a -e context-switches -- sleep 600 >/dev/null 2>&1 &
perf_pid=$!
BG_PIDS+=("$perf_pid")
for i in 1 2; do
	mkfifo "$TMP/ctl$i" "$TMP/ack$i"
	"$BPERF" stat --bpf-attr-map "$SHARED_MAP" -a -e page-faults:b \
		--control "fifo:$TMP/ctl$i,$TMP/ack$i" >/dev/null 2>&1 &
	BG_PIDS+=($!)
	control_ping "$TMP/ctl$i" "$TMP/ack$i" "session $i" /dev/null
done
perf_fds() { find /proc/"$perf_pid"/fd -lname 'anon_inode:\[perf_event\]' 2>/dev/null | wc -l; }
wait_until '[ "$(perf_fds)" -ge "$ncpus" ]' 5 || fail "perf stat -a opened $(perf_fds) events"
before=$(objects)
pins=$(ls /sys/fs/bpf)
start=$(date +%s%N)
"$BPERF" check --bpf-attr-map "$SHARED_MAP" >"$TMP/table" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/table" "$TMP/err" >&2; fail "bperf check exited $rc"; }
echo "bperf check: $((($(date +%s%N) - start) / 1000000)) ms"
cat "$TMP/table"
[ -s "$TMP/err" ] && fail "bperf check printed on stderr: $(cat "$TMP/err")"
grep -q ' fail ' "$TMP/table" && fail "a check failed"

# the machine
if [ -r /sys/devices/system/cpu/cpu0/regs/identification/midr_el1 ]; then
	midr=$(cat /sys/devices/system/cpu/cpu0/regs/identification/midr_el1)
	[[ $(detail cpu) == "MIDR $midr:"* ]] || fail "cpu: $(detail cpu), MIDR $midr"
else
	field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -n 1; }
	want="$(field vendor_id) family $(field 'cpu family') model $(field model) "
	[[ $(detail cpu) == "$want"* ]] || fail "cpu: '$(detail cpu)', /proc/cpuinfo '$want'"
fi
cpuid=$("$PERF" stat -v -e task-clock true 2>&1 | sed -n 's/^Using CPUID //p' | head -n 1)
if [ -n "$cpuid" ]; then
	[[ $(detail perf-table) == *" $cpuid"* ]] ||
		fail "perf-table: '$(detail perf-table)', perf uses CPUID $cpuid"
fi
for dev in /sys/bus/event_source/devices/*; do
	grep -q " ${dev##*/}($(cat "$dev/type"))" <<<" $(detail pmus)" ||
		fail "pmus: ${dev##*/} of type $(cat "$dev/type") missing: $(detail pmus)"
done
[[ $(detail perf_event_paranoid) == "$(cat /proc/sys/kernel/perf_event_paranoid):"* ]] ||
	fail "perf_event_paranoid: $(detail perf_event_paranoid)"
watchdog=off
[ "$(cat /proc/sys/kernel/nmi_watchdog 2>/dev/null || echo 0)" != 0 ] && watchdog=on
[[ $(detail nmi-watchdog) == "$watchdog"* ]] || fail "nmi-watchdog: $(detail nmi-watchdog)"
loop=$(bpftool feature probe kernel 2>/dev/null | sed -n '/raw_tracepoint/,/^$/p' |
	grep -c bpf_loop)
want=warn
[ "$loop" -gt 0 ] && want=ok
[ "$want" = ok ] && assert_eq ok "$(verdict bpf-bpf_loop)" "bpf_loop (bpftool: present)"
[ "$want" = warn ] && assert_eq info "$(verdict bpf-bpf_loop)" "bpf_loop (bpftool: missing)"
assert_eq ok "$(verdict count-shared)" "count-shared as root"

# the holders
grep -q "^holder .* pid $perf_pid (perf): $ncpus x context-switches, $ncpus per CPU, 0 per task" \
	"$TMP/table" || fail "perf stat -a (pid $perf_pid, $ncpus CPUs) not among the holders"
grep -q '^leader .*page-faults (an event key): link [0-9]*, bperf.s, 1 member, 2 sessions' \
	"$TMP/table" || fail "the two sessions' leader not listed"
link=$(map_link_ids | head -n 1)
grep -q "^leader .*link $link," "$TMP/table" || fail "leader: the attr map names link $link"

# shared against direct: the direct page faults are perf's (pagetouch is static, and the least
# of three runs: a loaded machine adds a retried fault now and then)
pf=$(least_count _perf_page_faults "$WORKLOADS/pagetouch" 2000) || exit 1
got=$(detail shared-page-faults | sed -n 's/.*direct \([0-9]*\), shared \([0-9]*\).*/\1 \2/p')
read -r direct shared <<<"$got"
[ "$direct" -ge "$pf" ] && [ "$direct" -le $((pf + 2)) ] ||
	fail "page faults: check's direct $direct, perf's $pf"
assert_eq "$direct" "$shared" "page faults, shared against direct"

# hardware: none here, or QEMU's virt PMU
if "$PERF" stat -e instructions:u true 2>&1 | grep -q '<not supported>'; then
	assert_eq warn "$(verdict core-pmu)" "core-pmu without a PMU"
	assert_eq skip "$(verdict counters)" "counters without a PMU"
	assert_eq skip "$(verdict hardware-counts)" "hardware checks without a PMU"
else
	for c in counters counters-free shared-instructions:u shared-cycles:u \
		insnloop-instructions shared-sessions; do
		assert_eq ok "$(verdict "$c")" "$c: $(detail "$c")"
	done
	if (require_qemu_virt_pmu x >/dev/null); then
		[[ $(detail counters) == "6 general-purpose"*", plus one for cycles" ]] ||
			fail "counters on QEMU's PMUv3: $(detail counters)"
	fi
fi

# The rest depends on bperf alone: on the host only (tools/vmtest sets KERNEL_CASES_ONLY), where
# each run of the measurements takes a second, not half a minute.
if [ -n "${KERNEL_CASES_ONLY:-}" ]; then
	objects_gone
	assert_eq "$pins" "$(ls /sys/fs/bpf)" "pins after bperf check"
	echo "bperf check: $(tail -n 1 "$TMP/table")"
	exit 0
fi

# JSON: the same checks and verdicts
"$BPERF" check -j --bpf-attr-map "$SHARED_MAP" >"$TMP/json"
rc=$?
[ "$rc" -eq 0 ] || { cat "$TMP/json" >&2; fail "bperf check -j: exit $rc"; }
jq -r '.checks[] | "\(.check) \(.verdict)"' "$TMP/json" >"$TMP/json_rows" ||
	fail "bperf check -j: not JSON"
awk 'NR > 1 && NF >= 2 && !/^[0-9]+ ok,/ { print $1, $2 }' "$TMP/table" >"$TMP/table_rows"
diff <(cut -d' ' -f1 "$TMP/table_rows") <(cut -d' ' -f1 "$TMP/json_rows") >&2 ||
	fail "the JSON's checks differ from the table's"
assert_eq ok "$(jq -r .result "$TMP/json")" "JSON result"

# nothing left: the sessions' and perf's objects only, the same pins, no output folder
objects_gone
assert_eq "$pins" "$(ls /sys/fs/bpf)" "pins after bperf check"
ls -d /tmp/bperf-check.* 2>/dev/null && fail "bperf check left its folder"

# a user without root: no shared counting, no BPF probes, exit 0
cp "$BPERF" "$TMP/bperf"
chmod 755 "$TMP" "$TMP/bperf"
setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/bperf" check \
	--workloads "$WORKLOADS" >"$TMP/nobody" 2>&1 || fail "bperf check as nobody: exit $?"
assert_eq warn "$(verdict count-shared "$TMP/nobody")" "count-shared as nobody"
assert_eq skip "$(verdict bpf "$TMP/nobody")" "bpf probes as nobody"
assert_eq skip "$(verdict holders "$TMP/nobody")" "holders as nobody"

# bad input: usage errors, nothing made
"$BPERF" check --bogus >/dev/null 2>&1
assert_eq 129 $? "bperf check --bogus"
"$BPERF" check extra >/dev/null 2>&1
assert_eq 129 $? "bperf check extra"
"$BPERF" check --workloads /nonexistent >/dev/null 2>"$TMP/bad"
assert_eq 1 $? "bperf check --workloads /nonexistent"
assert_eq 1 "$(wc -l <"$TMP/bad")" "one line for a bad --workloads"
ls -d /tmp/bperf-check.* 2>/dev/null && fail "a refused bperf check left its folder"
echo "bperf check: $(tail -n 1 "$TMP/table")"
