# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for tests/shell/*.sh. Source it with
#	. "$(dirname "$0")/../lib.sh"
# A shell test exits 0 to pass, 77 to skip (its last output line saying why), anything else to
# fail. tests/run.sh sets BPERF, PERF and WORKLOADS; the defaults below let a test run alone from
# the repo top as well.

REPO_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
: "${BPERF:=$REPO_TOP/bperf}"
: "${PERF:=/usr/bin/perf}"
: "${WORKLOADS:=$REPO_TOP/.output/workloads}"
export BPERF PERF WORKLOADS
# what the daemon's tests start `bperf daemon` under (tools/check: tools/run-as-unit, the unit's
# limits); unquoted where used, empty by default
DAEMON_WRAP=${BPERF_DAEMON_WRAP:-}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip() {
	echo "$*"
	exit 77
}

# wait_until CMD TIMEOUT: evaluates CMD (a command line, in this shell) every 0.05 s until it
# succeeds; fails (status 1) when TIMEOUT seconds (a decimal) have passed without success. The
# one polling loop of the tests: the kernel frees BPF objects, and processes start, out of step.
wait_until() {
	# names of their own: CMD may use the caller's cmd or deadline
	local _wu_cmd=$1 _wu_end

	# %.0f, not %d: mawk's %d stops at 2^31 - 1 (2.1 s in ns)
	_wu_end=$(($(date +%s%N) + $(awk -v t="$2" 'BEGIN { printf "%.0f", t * 1e9 }')))
	until eval "$_wu_cmd"; do
		[ "$(date +%s%N)" -lt "$_wu_end" ] || return 1
		sleep 0.05
	done
}

# least_count CMD...: runs CMD, which prints one count, three times and prints the least. A
# loaded machine now and then adds a page fault to a workload's run (a retried fault), never
# takes one away. A reading that is not a count fails (exit 1: call it as x=$(...) || fail).
least_count() {
	local least= n _

	for _ in 1 2 3; do
		n=$("$@")
		[[ $n =~ ^[0-9]+$ ]] || fail "$*: expected a count, got '$n'"
		{ [ -z "$least" ] || [ "$n" -lt "$least" ]; } && least=$n
	done
	echo "$least"
}

# quiet_tries CMD...: runs CMD in a subshell up to twice, its messages hidden; succeeds on the
# first success.
quiet_tries() {
	local _

	for _ in 1 2; do
		("$@") 2>/dev/null && return 0
	done
	return 1
}

# retry3 CMD...: CMD up to three times, succeeding on its first success, for exact fault counts
# that a retried fault now and then raises by one on a loaded machine (see least_count). Only the
# last try's messages are shown.
retry3() {
	quiet_tries "$@" || ("$@")
}

# assert_eq EXPECTED ACTUAL WHAT
assert_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$1', got '$2'"
}

require_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root"
}

require_cmd() {
	command -v "$1" >/dev/null 2>&1 || skip "needs $1"
}

# require_workloads NAME...: fails unless each workload is built.
require_workloads() {
	local w

	for w in "$@"; do
		[ -x "$WORKLOADS/$w" ] || fail "workloads not built: run make"
	done
}

# Runs a command with address-space randomisation off. The stack's random offset changes how many
# pages exec and libc start-up touch, so start-up page faults are only exact this way (the static
# workloads then always take the same number on one machine).
norandom() {
	setarch "$(uname -m)" -R "$@"
}

# pagetouch_base: the page faults of `pagetouch 0` without randomisation, as perf counts them (the
# least of three runs); `pagetouch N` takes N more. The static libc's start-up touches a number of
# pages that follows the CPU (25 on a Zen 3 and earlier hosts, 24 on a Zen 5): never a constant
# in a test. Call it once: base=$(pagetouch_base) || exit 1
pagetouch_base() {
	least_count _perf_page_faults "$WORKLOADS/pagetouch" 0
}

_perf_page_faults() {
	norandom "$PERF" stat -x, -e page-faults "$@" 2>&1 >/dev/null | cut -d, -f1
}

# count_fds PID: number of open file descriptors of a process
count_fds() {
	local fds=(/proc/"$1"/fd/*)

	[ -e "${fds[0]}" ] || { echo 0; return; }
	echo "${#fds[@]}"
}

# in_cgroup_script DIR MNT: writes DIR/in_cgroup, a script run as `in_cgroup CGROUP CMD...` that
# moves itself into CGROUP (below MNT) and then becomes CMD, and prints its path.
in_cgroup_script() {
	cat >"$1/in_cgroup" <<EOF
#!/bin/sh
echo \$\$ >"$2/\$1/cgroup.procs" || exit 99
shift
exec "\$@"
EOF
	chmod +x "$1/in_cgroup"
	echo "$1/in_cgroup"
}

# in_namespace_script DIR MNT CGROUP: writes DIR/in_namespace, a script run as `in_namespace
# CMD...` that moves itself into CGROUP (below MNT), then runs CMD in new cgroup and mount
# namespaces with perf's hierarchy mounted again at MNT (so CGROUP is its root), and prints its
# path.
in_namespace_script() {
	local fstype opts

	fstype=$(awk -v m="$2" '$2 == m { print $3; exit }' /proc/mounts)
	opts=$([ "$fstype" = cgroup ] && echo "-o perf_event")
	cat >"$1/in_namespace" <<-EOF
		#!/bin/sh
		if [ "\$1" != inside ]; then
			echo \$\$ >"$2/$3/cgroup.procs" || exit 99
			exec unshare -C -m "\$0" inside "\$@"
		fi
		shift
		umount "$2" && mount -t $fstype $opts cgroup "$2" || exit 99
		exec "\$@"
	EOF
	chmod +x "$1/in_namespace"
	echo "$1/in_namespace"
}

# cgroup_startup_faults IN CGROUP PAGETOUCH: perf's page faults of `pagetouch 0` run through IN
# (in_cgroup_script) in CGROUP, counted -a -G: what the wrapper and start-up add to any pagetouch
cgroup_startup_faults() {
	norandom "$PERF" stat -a -x, -e page-faults -G "$2" -- sh -c "$1 $2 $3 0" 2>&1 >/dev/null |
		cut -d, -f1
}

# csv_cgroup_count FILE EVENT CGROUP: the count of EVENT in CGROUP in -x, output
csv_cgroup_count() {
	awk -F, -v ev="$2" -v cg="$3" '$3 == ev && $4 == cg { print $1 }' "$1"
}

# perf_cgroup_mount: the cgroup hierarchy perf events use, as perf finds it: a v1 mount with the
# perf_event controller, else the last cgroup2 mount (nothing when there is neither).
perf_cgroup_mount() {
	awk '$3 == "cgroup" && ("," $4 ",") ~ /,perf_event,/ { print $2; found = 1; exit }
	     $3 == "cgroup2" { v2 = $2 }
	     END { if (!found && v2 != "") print v2 }' /proc/mounts
}

# remove_cgroup NAME: moves every process left in the cgroup NAME of the test's hierarchy $MNT
# (there should be none) to its root, then removes it.
remove_cgroup() {
	local dir=$MNT/$1 pid

	[ -d "$dir" ] || return 0
	while read -r pid; do
		echo "$pid" >"$MNT/cgroup.procs" 2>/dev/null
	done <"$dir/cgroup.procs"
	rmdir "$dir"
}

# Mounts the BPF filesystem on /sys/fs/bpf unless it is there already.
mount_bpffs() {
	if ! mountpoint -q /sys/fs/bpf; then
		mount -t bpf bpf /sys/fs/bpf || fail "cannot mount bpffs on /sys/fs/bpf"
	fi
}

# fuzz_build LOG: `make fuzz-build`, one test at a time (the fuzz tests run beside each other and
# would build the same objects at once); skips where clang cannot link libFuzzer.
fuzz_build() {
	local log=$1 t

	require_cmd clang
	require_cmd flock
	mkdir -p "$REPO_TOP/.output"
	flock "$REPO_TOP/.output/.fuzz-build.lock" make -C "$REPO_TOP" --no-print-directory -s \
		-j"$(nproc)" fuzz-build >"$log" 2>&1 && return 0
	t=$(dirname "$log")/libfuzzer_probe
	echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' >"$t.c"
	clang -fsanitize=fuzzer,address,undefined -o "$t" "$t.c" >/dev/null 2>&1 ||
		skip "clang cannot link libFuzzer (install libclang-rt-$(clang -dumpversion |
			cut -d. -f1)-dev: make deps)"
	tail -n 20 "$log"
	fail "make fuzz-build failed"
}

# fuzz_run TARGET LOG: tests/fuzz/run.sh TARGET (FUZZ_SECONDS); prints libFuzzer's final figures
# and fails on whatever it found.
fuzz_run() {
	local rc=0

	"$REPO_TOP/tests/fuzz/run.sh" "$1" >"$2" 2>&1 || rc=$?
	grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::new_units_added' "$2"
	if [ "$rc" -ne 0 ]; then
		grep -E -A 12 '^fuzz_[a-z]+\.c:[0-9]+: |ERROR|runtime error|SUMMARY' "$2" | head -n 40
		fail "the fuzzer found a problem (exit $rc); reproducer in .output/fuzz/$1/"
	fi
}

# fuzz_regress TARGET TMPDIR: runs each input of tests/fuzz/regress/TARGET/ through
# .output/fuzz/fuzz_TARGET; fails naming the first that fails again.
fuzz_regress() {
	local input n=0

	for input in "$REPO_TOP"/tests/fuzz/regress/"$1"/*; do
		"$REPO_TOP"/.output/fuzz/fuzz_"$1" "$input" >"$2/regress.log" 2>&1 || {
			grep -E -A 12 "^fuzz_$1\.c:[0-9]+: |ERROR|runtime error|SUMMARY" \
				"$2/regress.log" | head -n 40
			fail "regression input $(basename "$input") fails again"
		}
		n=$((n + 1))
	done
	echo "$n regression inputs pass"
}

# mask_numbers [SEP]: filter comparing the content of perf stat outputs whose numbers differ.
# Each number (digits, with '.' or ',' between digit groups: 1,234.56 or de_DE 1.234,56) becomes
# a single N, runs of blanks become one blank and trailing blanks go. With -x SEP output, pass SEP
# so that a ',' or '.' separator is not taken for a digit group separator.
mask_numbers() {
	local joiners='.,'

	case "${1:-}" in
	,) joiners='.' ;;
	.) joiners=',' ;;
	esac
	sed -E -e "s/[0-9]+([$joiners][0-9]+)*/N/g" -e 's/[[:blank:]]+/ /g' -e 's/ $//'
}

# column_signature: filter checking the column layout of human perf stat output without the
# numbers. Each blank-separated token becomes "start:text" when it holds no digit, or "N:end" when
# it does (counts, metric values and times are right-aligned, so their end column is what the
# format fixes). Two outputs with equal signatures have every label and every number in the same
# columns, whatever the values, as long as no value outgrows its field in only one of them.
column_signature() {
	awk '{
		sig = ""; rest = $0; col = 0
		while (match(rest, /[^[:blank:]]+/)) {
			tok = substr(rest, RSTART, RLENGTH)
			start = col + RSTART - 1
			if (tok ~ /[0-9]/)
				sig = sig " N:" (start + RLENGTH)
			else
				sig = sig " " start ":" tok
			col = start + RLENGTH
			rest = substr(rest, RSTART + RLENGTH)
		}
		print substr(sig, 2)
	}'
}

# normalize_value_shapes: filter for the parts of perf stat output whose shape follows the
# values rather than the format, applied before mask_numbers and column_signature:
# - a rate's K/M/G prefix goes ("168.357 K/sec  " becomes "168.357 /sec   ", like "0.000 /sec");
# - a -r noise "( +-  6.03% )" becomes the same-width "( +- NOISE% )";
# - the -r footer's standard deviation (its precision follows its size, which moves the rest of
#   the line) becomes SD;
# - the ids of a -p/-t target in the header become PID (the two tools count two processes, whose
#   pids may differ in width).
normalize_value_shapes() {
	sed -E -e "s/(process|thread) id '[0-9,]+'/\1 id 'PID'/" \
		-e 's/([0-9] )[KMG]\/sec /\1\/sec  /g' \
		-e 's/(^|[^[:alnum:]])[KMG]\/sec/\1\/sec/g' \
		-e 's/\( \+-[ 0-9.,]+% \)/( +- NOISE% )/g' \
		-e 's/\+- [0-9.,]+ seconds time elapsed/+- SD seconds time elapsed/'
}

# compare_stat_outputs EXPECTED_FILE ACTUAL_FILE [SEP|nocolumns]: fails unless both outputs agree
# once the numbers are masked (after normalize_value_shapes); human output (no SEP) must also have
# the same column layout. nocolumns skips the column check, for JSON or other unaligned text.
compare_stat_outputs() {
	local expected=$1 actual=$2 sep=${3:-}

	[ "$sep" = nocolumns ] && sep=-
	if ! diff -u <(normalize_value_shapes <"$expected" | mask_numbers "$sep") \
		<(normalize_value_shapes <"$actual" | mask_numbers "$sep") >&2; then
		fail "output differs from $expected with numbers masked (- expected, + actual)"
	fi
	[ -n "$sep" ] && return 0
	if ! diff -u <(normalize_value_shapes <"$expected" | column_signature) \
		<(normalize_value_shapes <"$actual" | column_signature) >&2; then
		fail "column layout differs from $expected (- expected, + actual; start:text, N:end)"
	fi
}

# require_armv8_pmu DIR: skips unless perf counts instructions on an armv8_pmuv3 PMU (the arm64
# guest). One perf run (each costs a second or more under emulation) says so and prints the
# environment perf gives a workload: perf_env gets it, to hand bperf's workload the same one
# (its libc start-up reads it), and PMU the PMU's name (armv8_pmuv3, or armv8_pmuv3_0 where the
# kernel numbers the PMUs of its device tree). DIR keeps perf's files.
require_armv8_pmu() {
	norandom "$PERF" stat -x, -o "$1/probe" -e instructions env -0 >"$1/perf.env" ||
		fail "perf stat -e instructions env -0 failed"
	if grep -q '<not supported>' "$1/probe"; then
		skip "no hardware PMU: perf stat -e instructions says <not supported>"
	fi
	mapfile -d '' perf_env <"$1/perf.env"
	PMU=$(cd /sys/bus/event_source/devices && ls -d armv8_pmuv3* 2>/dev/null | head -1)
	[ -n "$PMU" ] || skip "needs an armv8_pmuv3 PMU (the arm64 guest: tools/vmtest --arch arm64)"
}

# require_qemu_virt_pmu WHY: skips unless this is QEMU's arm64 virt machine with its armv8_pmuv3
# PMU (6 event counters and the cycle counter, r3 and r4 counting nothing): tests that count on
# those facts. WHY ends the skip's reason.
require_qemu_virt_pmu() {
	local pmu compat=

	pmu=(/sys/bus/event_source/devices/armv8_pmuv3*)
	read -rd '' compat </proc/device-tree/compatible 2>/dev/null
	[ -e "${pmu[0]}" ] && [ "$compat" = linux,dummy-virt ] ||
		skip "needs QEMU's arm64 virt machine ($1)"
}
