#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf's options before the command, side by side with perf 6.1 (perf.c): -v/--version/-vv and
# version --build-options, -h/--help/help and no command, help COMMAND and COMMAND --help (the
# man page), --no-pager and -p/--paginate, --debug verbose[=N] / perf-event-open / stderr /
# ordered-events / data-convert, --debugfs-dir, --list-cmds, --list-opts, and the messages and
# exit statuses of unknown options. Outputs are compared with "perf" read as "bperf"; stat
# outputs with the numbers masked. bperf has no helper programs, HTML pages or build-id cache:
# --exec-path, --html-path and --buildid-dir are unknown options (README, Differences).
#
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_root
[ -x "$PERF" ] || skip "needs $PERF"
[ -x "$WORKLOADS/pagetouch" ] || fail "workloads not built: run make"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PT=$WORKLOADS/pagetouch

. "$(dirname "$0")/../side_lib.sh"

# both NAME ARGS...: perf ARGS and bperf ARGS (no stdin); $tmp/NAME.{perf,bperf}.{out,err}
# hold their output, perf's with "perf" read as "bperf"; both must exit alike.
both() {
	local name=$1 prc brc

	shift
	norandom "$PERF" "$@" </dev/null >"$tmp/$name.perf.out" 2>"$tmp/$name.perf.err"
	prc=$?
	norandom "$BPERF" "$@" </dev/null >"$tmp/$name.bperf.out" 2>"$tmp/$name.bperf.err"
	brc=$?
	sed -i -E 's/\bperf\b/bperf/g' "$tmp/$name.perf.out" "$tmp/$name.perf.err"
	[ "$prc" = "$brc" ] || fail "$name: exit status: perf $prc, bperf $brc"
	echo "$brc" >"$tmp/$name.rc"
}

# same_text NAME out|err: that stream of both runs, byte for byte
same_text() {
	cmp -s "$tmp/$1.perf.$2" "$tmp/$1.bperf.$2" ||
		{ diff -u "$tmp/$1.perf.$2" "$tmp/$1.bperf.$2" >&2; fail "$1: std$2 differs"; }
}

# exits NAME RC: the status both had
exits() {
	assert_eq "$2" "$(cat "$tmp/$1.rc")" "$1: exit status"
}

# ---- version ----------------------------------------------------------------------------------
# "perf version 6.1.192": the same line with bperf's own version number
version_line() {
	local name=$1

	shift
	both "$name" "$@"
	exits "$name" 0
	grep -Eq '^bperf version [0-9]+\.[0-9]+' "$tmp/$name.perf.out" || fail "$name: perf's line"
	grep -Eq '^bperf version [0-9]+(\.[0-9]+)+$' "$tmp/$name.bperf.out" || fail "$name: line"
	assert_eq 1 "$(wc -l <"$tmp/$name.bperf.out")" "$name: lines"
	same_text "$name" err
}
check version_v version_line version_v -v
check version_long version_line version_long --version
check version_cmd version_line version_cmd version

# -vv and version --build-options: the version, then perf's "%22s: [ on  ]  # ..." lines
build_options() {
	local name=$1 f

	shift
	both "$name" "$@"
	exits "$name" 0
	for f in perf bperf; do
		head -n 1 "$tmp/$name.$f.out" | grep -q '^bperf version ' ||
			fail "$name: $f: line 1"
		[ "$(wc -l <"$tmp/$name.$f.out")" -gt 1 ] || fail "$name: $f: no build options"
		tail -n +2 "$tmp/$name.$f.out" | grep -Ev '^ *[^ ]+: \[ (on |OFF) \]  # .+$' &&
			fail "$name: $f: a line not in perf's layout"
		tail -n +2 "$tmp/$name.$f.out" | awk '{ if (index($0, ": [") != 23) exit 1 }' ||
			fail "$name: $f: names not right-aligned in 22 columns"
	done
	return 0
}
check version_vv build_options version_vv -vv
check version_build_options build_options version_build_options version --build-options

error_same() {
	local name=$1 rc=$2

	shift 2
	both "$name" "$@"
	exits "$name" "$rc"
	same_text "$name" err
	same_text "$name" out
}
check version_bad_option error_same version_bad_option 129 version --bogus

# ---- help -------------------------------------------------------------------------------------
# The command list: perf's lines around it, each command as "   NAME   help" with the helps
# aligned one column past the longest name's three blanks.
help_list() {
	local name=$1 rc=$2 f

	shift 2
	both "$name" "$@"
	exits "$name" "$rc"
	for f in perf bperf; do
		sed -E 's/^   [a-z][a-z0-9-]* +[^ ].*$/COMMAND/' "$tmp/$name.$f.out" | uniq \
			>"$tmp/$name.$f.shape"
	done
	if ! cmp -s "$tmp/$name.perf.shape" "$tmp/$name.bperf.shape"; then
		diff -u "$tmp/$name.perf.shape" "$tmp/$name.bperf.shape" >&2
		fail "$name: layout"
	fi
	# the column where each help starts: 3 blanks, the longest name, 3 blanks
	awk '/^   [a-z]/ { n = length($1); if (n > w) w = n
			   col[NR] = 3 + n + match(substr($0, 4 + n), /[^ ]/) }
	     END { for (i in col) if (col[i] != w + 7) exit 1 }' "$tmp/$name.bperf.out" ||
		fail "$name: helps not aligned"
	grep -q '^   stat  ' "$tmp/$name.bperf.out" || fail "$name: no stat line"
	same_text "$name" err
}
check help_h help_list help_h 0 -h
check help_long help_list help_long 0 --help
check help_cmd help_list help_cmd 0 help
check no_command help_list no_command 1

# help COMMAND, COMMAND --help, -h COMMAND: man(1) shows bperf(1) (perf shows perf-COMMAND(1))
man_page() {
	local name=$1

	shift
	"$BPERF" "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err" || fail "$name: exit $?"
	head -n 1 "$tmp/$name.out" | grep -q '^BPERF(1) ' ||
		fail "$name: not bperf(1): $(head -n 3 "$tmp/$name.out" "$tmp/$name.err")"
	grep -q '^SYNOPSIS' "$tmp/$name.out" || fail "$name: no SYNOPSIS"
}
if command -v man >/dev/null; then
	check help_stat man_page help_stat help stat
	check stat_help man_page stat_help stat --help
	check h_list man_page h_list -h list
	check help_long_stat man_page help_long_stat --help stat
	# installed: PREFIX/bin/bperf finds PREFIX/share/man/man1/bperf.1
	installed() {
		mkdir -p "$tmp/inst/usr/bin" "$tmp/inst/usr/share/man/man1"
		cp "$BPERF" "$tmp/inst/usr/bin/bperf"
		cp man/bperf.1 "$tmp/inst/usr/share/man/man1/"
		BPERF=$tmp/inst/usr/bin/bperf man_page installed help stat
	}
	check installed installed
	check help_nosuch error_same help_nosuch 16 help nosuch
fi
help_bad_option() {
	both help_bad_option help -x
	exits help_bad_option 129
	# the usage line names bperf's help options (no --web, --info: no HTML or info pages)
	assert_eq "$(head -n 1 "$tmp/help_bad_option.perf.err")" \
		"$(head -n 1 "$tmp/help_bad_option.bperf.err")" "help -x: message"
}
check help_bad_option help_bad_option

# ---- errors before the command ------------------------------------------------------------------
check unknown_long error_same unknown_long 129 --bogus stat true
check unknown_short error_same unknown_short 129 -x stat true
check dash_dash error_same dash_dash 129 -- stat true
check debug_no_value error_same debug_no_value 129 --debug
check debug_unknown error_same debug_unknown 129 --debug verbose,bogus=1 stat true
check debugfs_no_dir error_same debugfs_no_dir 129 --debugfs-dir
check not_a_command error_same not_a_command 1 nosuch

# Documented difference: options that point at perf's own files
refused() {
	local opt=$1

	"$BPERF" "$opt" </dev/null >"$tmp/refused.out" 2>"$tmp/refused.err"
	assert_eq 129 "$?" "$opt: exit status"
	assert_eq "Unknown option: $opt" "$(head -n 1 "$tmp/refused.err")" "$opt: message"
}
check exec_path refused --exec-path
check html_path refused --html-path
check buildid_dir refused --buildid-dir

# ---- options that change nothing in stat's output ---------------------------------------------
stat_same() {
	local name=$1

	shift
	both "$name" "$@"
	compare_stat_outputs "$tmp/$name.perf.err" "$tmp/$name.bperf.err"
	same_text "$name" out
}
check no_pager stat_same no_pager --no-pager stat -e task-clock,page-faults "$PT" 10
check paginate stat_same paginate -p stat -e page-faults "$PT" 10
check paginate_long stat_same paginate_long --paginate --no-pager stat -e page-faults "$PT" 10
check debug_quiet_kinds stat_same debug_quiet_kinds --debug stderr,ordered-events=1,data-convert \
	stat -e page-faults "$PT" 10
check debugfs_dir stat_same debugfs_dir --debugfs-dir /sys/kernel/debug stat -e page-faults \
	"$PT" 10
# perf checks its verbose level and takes 0 outside 0..10
check debug_verbose_11 stat_same debug_verbose_11 --debug verbose=11 stat -e page-faults "$PT" 10

# ---- --debug verbose and perf-event-open --------------------------------------------------------
# perf's "Control descriptor is not initialized" line describes its own internals (README); the
# -vv attr blocks (indented lines) are attr_vs_perf's job.
debug_same() {
	local name=$1

	shift
	both "$name" "$@"
	grep -v -e '^Control descriptor is not initialized$' -e '^  ' \
		"$tmp/$name.perf.err" >"$tmp/$name.perf.err2"
	grep -v '^  ' "$tmp/$name.bperf.err" >"$tmp/$name.bperf.err2"
	compare_stat_outputs "$tmp/$name.perf.err2" "$tmp/$name.bperf.err2" nocolumns
	grep -Eq "$DEBUG_WANT" "$tmp/$name.bperf.err" || fail "$name: no line like '$DEBUG_WANT'"
}
DEBUG_WANT='^page-faults: [0-9]+ [0-9]+ [0-9]+$'
check debug_verbose debug_same debug_verbose --debug verbose stat -e page-faults,cs "$PT" 10
check debug_verbose_1 debug_same debug_verbose_1 --debug verbose=1 stat -e page-faults "$PT" 10
DEBUG_WANT='^page-faults: -1: [0-9]+ [0-9]+ [0-9]+$'
check debug_verbose_2 debug_same debug_verbose_2 --debug verbose=2 stat -e page-faults "$PT" 10
check debug_verbose_1_v debug_same debug_verbose_1_v --debug verbose=1 stat -v -e page-faults \
	"$PT" 10
DEBUG_WANT='^sys_perf_event_open: pid [0-9]+  cpu -1  group_fd -1  flags 0x8 = [0-9]+$'
check debug_peo debug_same debug_peo --debug perf-event-open stat -e page-faults "$PT" 10
check debug_peo_refused debug_same debug_peo_refused --debug perf-event-open,verbose=0 stat \
	-e cycles,page-faults "$PT" 10

# ---- --list-cmds, --list-opts, --debugfs-dir= ----------------------------------------------------
# one line of names, each followed by a blank
name_line() {
	local name=$1

	shift
	both "$name" "$@"
	exits "$name" 0
	assert_eq 1 "$(wc -l <"$tmp/$name.bperf.out")" "$name: lines"
	grep -Eq '^([^ ]+ )+$' "$tmp/$name.perf.out" || fail "$name: perf's form"
	grep -Eq '^([^ ]+ )+$' "$tmp/$name.bperf.out" || fail "$name: form"
}
check list_cmds name_line list_cmds --list-cmds
check list_opts name_line list_opts --list-opts
# every option --list-opts names is one bperf takes
list_opts_taken() {
	local opt args opts

	opts=$("$BPERF" --list-opts) || fail "--list-opts: exit $?"
	[ -n "$opts" ] || fail "--list-opts: no options"
	for opt in $opts; do
		case $opt in
		--debug) args=(--debug verbose=0 version) ;;
		--debugfs-dir) args=(--debugfs-dir /sys/kernel/debug version) ;;
		--list-cmds | --list-opts | --help | --version) args=("$opt") ;;
		*) args=("$opt" version) ;;
		esac
		"$BPERF" "${args[@]}" >/dev/null 2>&1 || fail "$opt: refused"
	done
	return 0
}
check list_opts_taken list_opts_taken
# perf's leftover "dir: " line: the tracing path it finds mounted (it ignores the directory)
debugfs_dir_eq() {
	both debugfs_dir_eq --debugfs-dir=/sys/kernel/debug list sw
	same_text debugfs_dir_eq err
	same_text debugfs_dir_eq out
}
check debugfs_dir_eq debugfs_dir_eq

# ---- the pager: perf list's layout on a terminal --------------------------------------------
# perf list pipes a terminal's output through PERF_PAGER, else PAGER (none if "cat" or empty, or
# with --no-pager), and only then prints its headings and blank lines. bperf prints directly, in
# the same layout. --buildid-dir: perf's SDT cache, which bperf does not list, stays empty.
on_tty() {
	local pager=$1

	shift
	if [ "$pager" = unset ]; then
		env -u PERF_PAGER -u PAGER script -qec "$*" /dev/null </dev/null
	else
		env -u PERF_PAGER PAGER="$pager" script -qec "$*" /dev/null </dev/null
	fi
}
pager_layout() {
	local pager=$1

	shift
	on_tty "$pager" "$PERF" --buildid-dir "$tmp/no-cache" "$@" >"$tmp/pager.perf" ||
		fail "perf $*: exit $?"
	on_tty "$pager" "$BPERF" "$@" >"$tmp/pager.bperf" || fail "bperf $*: exit $?"
	cmp -s "$tmp/pager.perf" "$tmp/pager.bperf" ||
		{ diff -u "$tmp/pager.perf" "$tmp/pager.bperf" >&2; fail "PAGER='$pager' $*"; }
}
if command -v script >/dev/null; then
	check pager_cat pager_layout cat list sw
	check pager_empty pager_layout '' list sw
	check pager_other pager_layout 'cat -' list sw
	check pager_other_tp pager_layout 'cat -' list 'sched:sched_switch'
	check no_pager_list pager_layout 'cat -' --no-pager list sw
	check pager_raw_dump pager_layout 'cat -' list --raw-dump sw
fi

echo "$nr_cases cases, ${#failed_cases[@]} failed${failed_cases[*]:+: ${failed_cases[*]}}"
[ "${#failed_cases[@]}" -eq 0 ]
