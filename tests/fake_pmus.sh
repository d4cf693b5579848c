# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Fake sysfs PMUs for tests/shell/*.sh, seen by perf and bperf alike: the test re-runs itself in
# a private mount namespace, builds a copy of /sys/bus/event_source/devices (the real PMUs as
# links, fake ones as directories) and binds it over the real one. Source after lib.sh:
#	. "$(dirname "$0")/../fake_pmus.sh"
#	fake_pmus_enter_ns "$0" "$@"		# re-executes the test under unshare -m
#	fake_pmus_init DIR; fake_pmu_core DIR cpu 4 intel; fake_pmus_mount DIR || skip ...
# Files written into DIR afterwards show through the mount (a test can switch formats).

FAKE_PMUS_DEVICES=/sys/bus/event_source/devices

# fake_pmus_enter_ns SCRIPT ARGS...: once, re-executes SCRIPT in a private mount namespace.
fake_pmus_enter_ns() {
	[ -n "${BPERF_FAKE_PMUS_NS:-}" ] && return 0
	unshare -m true 2>/dev/null || skip "needs unshare -m"
	BPERF_FAKE_PMUS_NS=1 exec unshare -m bash "$@"
}

# fake_pmus_init DIR: DIR holds a link to every real PMU.
fake_pmus_init() {
	local pmu

	mkdir -p "$1" || return 1
	for pmu in "$FAKE_PMUS_DEVICES"/*; do
		ln -s "$(readlink -f "$pmu")" "$1/${pmu##*/}"
	done
}

# fake_pmu_formats DIR NAME intel|amd|msr: a core PMU's format files as the kernel's x86 drivers
# have them; msr moves every term to config1 (offcore_rsp and the like to config2), so that the
# attr's config stays 0 and a PMU with msr's type counts the TSC.
fake_pmu_formats() {
	local f=$1/$2/format w=config x=config1 term bits

	rm -rf "$f"
	mkdir -p "$f"
	[ "$3" = msr ] && w=config1 x=config2
	if [ "$3" = amd ]; then
		printf '%s\n' "event config:0-7,32-35" "umask config:8-15" "edge config:18" \
			"inv config:23" "cmask config:24-31"
	else
		printf '%s\n' "event $w:0-7" "umask $w:8-15" "edge $w:18" "pc $w:19" "any $w:21" \
			"inv $w:23" "cmask $w:24-31" "in_tx $w:32" "in_tx_cp $w:33" \
			"offcore_rsp $x:0-63" "ldlat $x:0-15" "frontend $x:0-23"
	fi | while read -r term bits; do
		echo "$bits" >"$f/$term"
	done
}

# fake_pmu_core DIR NAME TYPE intel|amd|msr [CPUS]: a core PMU (with a cpus file
# when CPUS is given: a hybrid cpu_core/cpu_atom, or an arm64 core PMU).
fake_pmu_core() {
	mkdir -p "$1/$2/events" || return 1
	echo "$3" >"$1/$2/type"
	fake_pmu_formats "$1" "$2" "$4"
	[ -z "${5:-}" ] || echo "$5" >"$1/$2/cpus"
}

# fake_pmu_core_events DIR NAME: the events/ aliases an Intel core PMU has in sysfs, and one
# that a table also names (as arm64's sysfs inst_retired meets its JSON entry).
fake_pmu_core_events() {
	local e=$1/$2/events name value

	while read -r name value; do
		echo "$value" >"$e/$name"
	done <<-'EOT'
	branch-instructions event=0xc4
	branch-misses event=0xc5
	bus-cycles event=0x3c,umask=0x01
	cache-misses event=0x2e,umask=0x41
	cache-references event=0x2e,umask=0x4f
	cpu-cycles event=0x3c
	instructions event=0xc0
	mem-loads event=0xcd,umask=0x1,ldlat=3
	ref-cycles event=0x00,umask=0x03
	L1D.REPLACEMENT event=0x51,umask=0x01
	EOT
	echo 'ns' >"$e/mem-loads.unit"
	echo '2.5' >"$e/mem-loads.scale"
}

# fake_pmu_uncore DIR NAME TYPE [msr]: an uncore PMU (cpumask 0) with Intel's uncore format
# terms (msr: in config1, so that a PMU with msr's type counts the TSC).
fake_pmu_uncore() {
	local f=$1/$2/format w=config

	[ "${4:-}" = msr ] && w=config1
	mkdir -p "$f" "$1/$2/events" || return 1
	echo "$3" >"$1/$2/type"
	echo 0 >"$1/$2/cpumask"
	echo "$w:0-7" >"$f/event"
	echo "$w:8-15" >"$f/umask"
	echo "$w:18" >"$f/edge"
	echo "$w:23" >"$f/inv"
	echo "$w:24-31" >"$f/thresh"
}

# fake_pmu_spec DIR NAME TYPE [SPEC...]: a PMU directory made afresh from SPECs: cpumask=LIST
# and cpus=LIST are its files, TERM=configN:BITS a format term, EVENT=ENCODING an events/ alias.
fake_pmu_spec() {
	local dir=$1/$2 type=$3 arg

	shift 3
	rm -rf "$dir"
	mkdir -p "$dir/format" "$dir/events" || return 1
	echo "$type" >"$dir/type"
	for arg in "$@"; do
		case $arg in
		cpumask=* | cpus=*) echo "${arg#*=}" >"$dir/${arg%%=*}" ;;
		*=config*) echo "${arg#*=}" >"$dir/format/${arg%%=*}" ;;
		*) echo "${arg#*=}" >"$dir/events/${arg%%=*}" ;;
		esac
	done
}

# fake_pmus_metric_uncore DIR TYPE: the uncore and cstate PMUs perf's metrics name
# (uncore_imc_0, uncore_cha_0, cstate_core, cstate_pkg; cpumask 0), format terms in config1 so
# that with msr's TYPE every event counts the TSC.
fake_pmus_metric_uncore() {
	local terms=(event=config1:0-7 umask=config1:8-15 thresh=config1:24-31)

	fake_pmu_spec "$1" uncore_imc_0 "$2" cpumask=0 "${terms[@]}" \
		cas_count_read=event=0x4,umask=0x3 cas_count_write=event=0x4,umask=0xc &&
	fake_pmu_spec "$1" uncore_cha_0 "$2" cpumask=0 "${terms[@]}" &&
	fake_pmu_spec "$1" cstate_core "$2" cpumask=0 event=config1:0-7 c3-residency=event=0x1 \
		c6-residency=event=0x2 c7-residency=event=0x3 &&
	fake_pmu_spec "$1" cstate_pkg "$2" cpumask=0 event=config1:0-7 c2-residency=event=0x1 \
		c3-residency=event=0x2 c6-residency=event=0x3 c7-residency=event=0x4
}

# fake_pmu_metric_cpu DIR TYPE intel|amd [EVENT=ENCODING...]: the metric tests' core PMU `cpu`,
# Intel's or AMD's format terms moved to config1/config2 (with msr's TYPE: TSC counts).
fake_pmu_metric_cpu() {
	local dir=$1 type=$2 event=config1:0-7

	[ "$3" = amd ] && event=config1:0-7,32-35
	shift 3
	fake_pmu_spec "$dir" cpu "$type" event=$event umask=config1:8-15 edge=config1:18 \
		inv=config1:23 cmask=config1:24-31 any=config1:21 offcore_rsp=config2:0-63 \
		ldlat=config2:0-15 frontend=config2:0-23 "$@"
}

# fake_pmus_mount DIR: binds DIR over the devices directory; fails if it cannot.
fake_pmus_mount() {
	mount --bind "$1" "$FAKE_PMUS_DEVICES"
}

# fake_pmus_msr_type: the msr PMU's type, which the metric tests' fake PMUs take (their events
# then count the TSC); fails without that PMU.
fake_pmus_msr_type() {
	cat "$FAKE_PMUS_DEVICES/msr/type" 2>/dev/null
}

# fake_pmus_metric_setup DIR TYPE [intel|amd]: the metric tests' namespace. DIR/devices holds
# every real PMU and fake_pmus_metric_uncore's PMUs of TYPE (and the core PMU of that kind when
# given), bound over the devices directory; the NMI watchdog reads DIR/nmi_watchdog (0: write 1
# there to turn it on). Skips where a bind is refused.
fake_pmus_metric_setup() {
	local dir=$1 type=$2 watchdog=/proc/sys/kernel/nmi_watchdog

	fake_pmus_init "$dir/devices" && fake_pmus_metric_uncore "$dir/devices" "$type" ||
		fail "cannot build the fake PMU directory"
	if [ -n "${3:-}" ]; then
		fake_pmu_metric_cpu "$dir/devices" "$type" "$3" || fail "cannot build the fake cpu PMU"
	fi
	fake_pmus_mount "$dir/devices" || skip "cannot bind a fake PMU directory"
	echo 0 >"$dir/nmi_watchdog"
	if [ -e $watchdog ]; then
		mount --bind "$dir/nmi_watchdog" $watchdog || skip "cannot bind $watchdog"
	fi
}

# fake_pmus_topdown_events: sapphirerapids' sysfs topdown events (its metrics use them), as
# fake_pmu_spec's EVENT=ENCODING words
fake_pmus_topdown_events() {
	local t

	for t in retiring=0x80 bad-spec=0x81 fe-bound=0x82 be-bound=0x83 heavy-ops=0x84 \
		br-mispredict=0x85 fetch-lat=0x86 mem-bound=0x87; do
		printf 'topdown-%s=event=0x00,umask=%s ' "${t%%=*}" "${t#*=}"
	done
	echo slots=event=0x00,umask=0x4
}
