#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# perf's config files: `bperf config` side by side with `perf config` (list, get, set, errors,
# --user, --system, $PERF_CONFIG, bad lines) with HOME in a temporary directory, comparing
# stdout, stderr, exit status and the file written; the system file in a private mount
# namespace (an overlay on /etc) when unshare works; then the stat.* variables in `bperf stat`:
# stat.bpf-counter-events counts the events it names (whole tokens) through shared counters,
# seen in -v and in `bpftool prog show` while a session runs, stat.no-csv-summary and
# stat.big-num.
. "$(dirname "$0")/../lib.sh"
require_root
[ -x "$PERF" ] || skip "needs $PERF"

tmp=$(mktemp -d)
bg_pid=
cleanup() {
	[ -n "$bg_pid" ] && kill "$bg_pid" 2>/dev/null && wait "$bg_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
nfail=0
export HOME=$tmp/home
mkdir -p "$HOME"
# keep a real /etc/perfconfig out of the comparisons but the namespaced ones
export PERF_CONFIG_NOSYSTEM=1
unset PERF_CONFIG PERF_CONFIG_NOGLOBAL

case_fail() {
	echo "FAIL [$*]" >&2
	nfail=$((nfail + 1))
}

# The usage text names the tool and words the option help its own way (README): compare the
# usage line with the tool's name masked and each option line up to its help text. perf reads
# its config twice for `perf config` and so reports a bad line twice: keep one of each.
normalize_stderr() {
	sed -E -e 's/^( Usage: )b?perf /\1perf /' -e 's/^(    -.{21}).*/\1/' \
		-e 's/^(        --.{16}).*/\1/' |
		awk '$0 != prev { print } { prev = $0 }'
}

# side_by_side FILE_CONTENT ARGS...: runs `perf config ARGS` and `bperf config ARGS`, each on
# a fresh copy of FILE_CONTENT as ~/.perfconfig ("-" for no file), and compares everything.
side_by_side() {
	local content=$1 tool out rc
	shift
	for tool in perf bperf; do
		rm -f "$HOME/.perfconfig"
		[ "$content" = - ] || printf '%b' "$content" >"$HOME/.perfconfig"
		if [ $tool = perf ]; then
			"$PERF" config "$@" >"$tmp/$tool.out" 2>"$tmp/$tool.err"
		else
			"$BPERF" config "$@" >"$tmp/$tool.out" 2>"$tmp/$tool.err"
		fi
		echo $? >"$tmp/$tool.rc"
		cat "$HOME/.perfconfig" >"$tmp/$tool.file" 2>/dev/null ||
			echo "(none)" >"$tmp/$tool.file"
		normalize_stderr <"$tmp/$tool.err" >"$tmp/$tool.errn"
	done
	for out in out errn rc file; do
		if ! diff -u "$tmp/perf.$out" "$tmp/bperf.$out" >"$tmp/diff"; then
			case_fail "config $* on '$content': $out differs (- perf, + bperf)"
			cat "$tmp/diff" >&2
		fi
	done
}

basic='[stat]\n\tbpf-counter-events = cycles\n[Report]\n  Sort-Order = "a b"  # c\n; x\n'
side_by_side "$basic"
side_by_side "$basic" -l
side_by_side "$basic" --list
side_by_side "$basic" stat.bpf-counter-events
side_by_side "$basic" report.sort-Order
side_by_side "$basic" nosuch.key
side_by_side "$basic" stat.bpf-counter-events=page-faults
side_by_side "$basic" stat.no-csv-summary=true a.b=c stat.bpf-counter-events
side_by_side "$basic" 'a.b=x y' 'a.c=q' a.b a.c
side_by_side "$basic" a.b=1 nodot a.c=2
side_by_side - a.b=c
side_by_side - -l
side_by_side -
side_by_side '[a]\n b = 1\n\n bad line\n[c]\n d = 2\n' -l
side_by_side '[a]\n b = 1\n\n bad line\n[c]\n d = 2\n' a.e=3
side_by_side '\xef\xbb\xbf[a]\r\n b = "x\\ty" ; c\r\n' -l
for arg in nodot .x x. a.b= =a.b a=b.c x.=1; do
	side_by_side "$basic" "$arg"
done
side_by_side "$basic" -l x
side_by_side "$basic" a.b=1 -l
side_by_side "$basic" --user --system
side_by_side "$basic" --user -l
side_by_side "$basic" --user a.b=c
side_by_side "$basic" --bogus
side_by_side "$basic" -h
side_by_side "$basic" --us a.b=c

# $PERF_CONFIG names the only file, read and written; a missing one is empty
printf '[x]\n y = z\n' >"$tmp/exclusive"
for tool in perf bperf; do
	cp "$tmp/exclusive" "$tmp/exclusive.$tool"
	bin=$PERF
	[ $tool = bperf ] && bin=$BPERF
	PERF_CONFIG=$tmp/exclusive.$tool "$bin" config -l >"$tmp/$tool.l" 2>&1
	PERF_CONFIG=$tmp/exclusive.$tool "$bin" config x.w=v >>"$tmp/$tool.l" 2>&1
	PERF_CONFIG=$tmp/missing "$bin" config -l >>"$tmp/$tool.l" 2>&1
	PERF_CONFIG=/nonexistent/dir/file "$bin" config a.b=c >>"$tmp/$tool.l" 2>&1
	echo "rc=$?" >>"$tmp/$tool.l"
	cat "$tmp/exclusive.$tool" >>"$tmp/$tool.l"
done
diff -u "$tmp/perf.l" "$tmp/bperf.l" >&2 || case_fail "PERF_CONFIG (- perf, + bperf)"

# A name with a subsection: perf writes `[report]\n\tSub.x = 1`, which no longer parses; bperf
# writes the subsection back as a subsection (README, differences from perf).
printf '[report "Sub"]\n  x = 1\n' >"$HOME/.perfconfig"
"$BPERF" config report.y=2 || case_fail "set next to a subsection"
assert_eq "$(printf 'report.Sub.x=1\nreport.y=2')" "$("$BPERF" config -l 2>&1)" \
	"subsection written back"

# Values that would not read back as written are quoted (perf writes them bare)
printf '[a]\n b = "  x  y # z"\n' >"$HOME/.perfconfig"
"$BPERF" config a.c=1 'a.d= "q"' || case_fail "set next to a quoted value"
assert_eq "$(printf 'a.b=  x  y # z\na.c=1\na.d= "q"')" "$("$BPERF" config -l 2>&1)" \
	"quoted values written back"

# The system file, in a mount namespace of our own where /etc is an overlay: nothing outside
# it sees the /etc/perfconfig written there.
if unshare -m true 2>/dev/null && grep -qw overlay /proc/filesystems; then
	etc_before=$(cat /etc/perfconfig 2>&1)
	cat >"$tmp/system.sh" <<-'EOF'
	set -u
	mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/upper,workdir=$1/work" /etc || exit 1
	unset PERF_CONFIG_NOSYSTEM
	bin=$2
	run() { echo "\$ $*"; "$bin" config "$@" 2>&1; echo "rc=$?"; }
	printf '[stat]\n a = sys\n b = sys\n[sys]\n only = 1\n' >/etc/perfconfig
	printf '[stat]\n a = user\n c = user\n' >"$HOME/.perfconfig"
	run -l
	run stat.a
	PERF_CONFIG_NOSYSTEM=1 run -l
	PERF_CONFIG_NOSYSTEM=0 run -l
	PERF_CONFIG_NOSYSTEM=foo run -l
	PERF_CONFIG_NOGLOBAL=yes run -l
	run --system -l
	run --user -l
	run stat.d=new sys.x=2
	cat "$HOME/.perfconfig"
	run --system stat.e=9
	cat /etc/perfconfig
	printf '[sys]\n only = 1\nbad\n' >/etc/perfconfig
	run -l
	EOF
	for tool in perf bperf; do
		bin=$PERF
		[ $tool = bperf ] && bin=$BPERF
		rm -rf "$tmp/upper" "$tmp/work" && mkdir -p "$tmp/upper" "$tmp/work"
		unshare -m bash "$tmp/system.sh" "$tmp" "$bin" 2>&1 |
			normalize_stderr >"$tmp/$tool.sys"
	done
	[ "$(grep -c . "$tmp/perf.sys")" -gt 30 ] || case_fail "system file cases did not run"
	diff -u "$tmp/perf.sys" "$tmp/bperf.sys" >&2 ||
		case_fail "system file (- perf, + bperf)"
	assert_eq "$etc_before" "$(cat /etc/perfconfig 2>&1)" \
		"/etc/perfconfig outside the namespace"
else
	echo "note: no unshare -m or overlayfs, system file cases left out"
fi

# stat.no-csv-summary and stat.big-num in `bperf stat`, side by side with perf
for value in true false foo; do
	printf '[stat]\n no-csv-summary = %s\n' "$value" >"$HOME/.perfconfig"
	"$PERF" stat -x, -e cs -I 100 --summary -- "$WORKLOADS/sleeper" 150 2>&1 |
		mask_numbers , >"$tmp/perf.csv"
	"$BPERF" stat -x, -e cs -I 100 --summary -- "$WORKLOADS/sleeper" 150 2>&1 |
		mask_numbers , >"$tmp/bperf.csv"
	diff -u "$tmp/perf.csv" "$tmp/bperf.csv" >&2 ||
		case_fail "stat.no-csv-summary = $value (- perf, + bperf)"
done
if locale -a 2>/dev/null | grep -qi '^en_US.utf-\?8$'; then
	for value in false true; do
		printf '[stat]\n big-num = %s\n' "$value" >"$HOME/.perfconfig"
		for opt in "" -B --no-big-num; do
			p=$(LC_ALL=en_US.UTF-8 "$PERF" stat $opt -e page-faults -- \
				"$WORKLOADS/pagetouch" 2000 2>&1 | awk '/page-faults/ { print $1 }')
			b=$(LC_ALL=en_US.UTF-8 "$BPERF" stat $opt -e page-faults -- \
				"$WORKLOADS/pagetouch" 2000 2>&1 | awk '/page-faults/ { print $1 }')
			[ "${p//[0-9]/N}" = "${b//[0-9]/N}" ] ||
				case_fail "stat.big-num = $value $opt: perf '$p', bperf '$b'"
		done
	done
fi

# stat.bpf-counter-events: whole tokens, each checked (perf 6.1 misses "ref-cycles,cycles")
require_cmd bpftool
mount_bpffs
on_switch_count() {
	bpftool prog show 2>/dev/null | grep -c 'name on_switch'
}
if [ "$(on_switch_count)" != 0 ]; then
	echo "note: an on_switch program exists already (another session?), bpftool checks left out"
	check_progs=
else
	check_progs=1
fi

# shared_in_v LIST EVENTS: does `bperf stat -v -e EVENTS` under stat.bpf-counter-events=LIST
# count page-faults through a shared leader?
shared_in_v() {
	printf '[stat]\n\tbpf-counter-events = %s\n' "$1" >"$HOME/.perfconfig"
	"$BPERF" stat -v -e "$2" -- "$WORKLOADS/pagetouch" 10 >"$tmp/v.out" 2>&1 ||
		{ cat "$tmp/v.out" >&2; case_fail "bperf stat -v -e $2 with '$1' failed"; }
	grep -q 'leader link' "$tmp/v.out"
}
shared_in_v page-faults page-faults,cs || case_fail "page-faults not shared with page-faults"
shared_in_v 'cs,page-faults' page-faults || case_fail "page-faults not shared, second token"
shared_in_v 'minor-faults,page-faults' page-faults || case_fail "page-faults not shared, suffix"
shared_in_v 'major-page-faults' page-faults && case_fail "page-faults shared by a longer token"
shared_in_v 'page-faults:u' page-faults && case_fail "page-faults shared by page-faults:u"
shared_in_v 'cs' page-faults && case_fail "page-faults shared by cs"
rm -f "$HOME/.perfconfig"
shared_in_v '' page-faults && case_fail "page-faults shared with no config"
grep -q 'page-faults' "$tmp/v.out" || case_fail "no page-faults line in -v output"

if [ -n "$check_progs" ]; then
	printf '[stat]\n\tbpf-counter-events = cs,page-faults\n' >"$HOME/.perfconfig"
	"$BPERF" stat -e page-faults -- sleep 1 >"$tmp/bg.out" 2>&1 &
	bg_pid=$!
	seen=0
	wait_until '[ "$(on_switch_count)" -gt 0 ]' 0.8 && seen=1
	wait "$bg_pid" || { cat "$tmp/bg.out" >&2; case_fail "background bperf stat failed"; }
	bg_pid=
	[ $seen = 1 ] || case_fail "no on_switch program while a configured session runs"
	# the kernel frees a program shortly after its last fd and link are gone
	wait_until '[ "$(on_switch_count)" = 0 ]' 5
	assert_eq 0 "$(on_switch_count)" "on_switch programs left after the session"

	# and none without the config
	rm -f "$HOME/.perfconfig"
	"$BPERF" stat -e page-faults -- sleep 0.3 >/dev/null 2>&1 &
	bg_pid=$!
	sleep 0.15
	[ "$(on_switch_count)" = 0 ] || case_fail "on_switch program without the config"
	wait "$bg_pid"
	bg_pid=
fi

[ $nfail = 0 ] || fail "$nfail case(s) differ"
echo "config: all cases pass"
