# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# Helpers for the bperf stat -b tests (tests/shell/bpf_prog*.sh), sourced after lib.sh. Target
# programs come from .output/tests/bpf_prog_runner (tests/helpers/bpf_prog_runner.c): `load`
# keeps them loaded while its stdin stays open, `run ID N` runs one N times.

RUNNER=$REPO_TOP/.output/tests/bpf_prog_runner
# names of the programs bperf loads and of the helper's targets, for the leftover checks
PROFILER_PROGS='bperf_on_entry|bperf_on_exit'
TARGET_PROGS='bperf_test_targ|bperf_no_btf'
# the line bperf prints when the kernel refuses trampolines
REFUSAL='the kernel refuses BPF trampolines'

[ -x "$RUNNER" ] || fail "$RUNNER is not built: run 'make tests'"
command -v bpftool >/dev/null 2>&1 || skip "needs bpftool"

TARGET_IDS=()
_runner_pid=
_runner_in=

# load_targets [--no-btf] [COUNT]: loads target programs; their ids go to TARGET_IDS.
load_targets() {
	local fifo_dir line

	fifo_dir=$(mktemp -d)
	mkfifo "$fifo_dir/in" "$fifo_dir/out"
	"$RUNNER" load "$@" <"$fifo_dir/in" >"$fifo_dir/out" &
	_runner_pid=$!
	exec {_runner_in}>"$fifo_dir/in"
	read -r line <"$fifo_dir/out" || fail "bpf_prog_runner load $* printed no ids"
	rm -rf "$fifo_dir"
	read -r -a TARGET_IDS <<<"$line"
	[ ${#TARGET_IDS[@]} -gt 0 ] || fail "bpf_prog_runner load $*: no ids"
}

# unload_targets: ends the loader (its programs go with it).
unload_targets() {
	[ -n "$_runner_pid" ] || return 0
	exec {_runner_in}>&-
	wait "$_runner_pid"
	_runner_pid=
}

# bperf_prog_names: the names of the loaded BPF programs, one a line.
loaded_prog_names() {
	bpftool prog show | sed -n -E 's/^[0-9]+: [a-z_]+ +name ([^ ]+) .*/\1/p'
}

# assert_no_profiler WHAT: no program of bperf's is loaded any more.
assert_no_profiler() {
	local left

	left=$(loaded_prog_names | grep -E -x "$PROFILER_PROGS" | tr '\n' ' ')
	[ -z "$left" ] || fail "$1: BPF programs of bperf left loaded: $left"
}

# assert_no_bpf_prog_left WHAT: neither bperf's programs nor the test targets are loaded.
assert_no_bpf_prog_left() {
	local left

	assert_no_profiler "$1"
	left=$(loaded_prog_names | grep -E -x "$TARGET_PROGS" | tr '\n' ' ')
	[ -z "$left" ] || fail "$1: test target programs left loaded: $left"
}

# csv_value FILE EVENT: the value field of EVENT's line in -x, output.
csv_value() {
	awk -F, -v ev="$2" '$3 == ev { print $1; exit }' "$1"
}

# kernel_refuses_trampolines: true when the kernel refuses fentry/fexit on a BPF program (bperf's
# line is then in $tmp/probe.err; $tmp is the test's scratch directory); loads a target of its own.
kernel_refuses_trampolines() {
	local rc=1

	load_targets
	"$BPERF" stat -b "${TARGET_IDS[0]}" -e cpu-clock -x, true >/dev/null 2>"$tmp/probe.err"
	grep -q "$REFUSAL" "$tmp/probe.err" && rc=0
	unload_targets
	return $rc
}
