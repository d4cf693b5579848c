#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Bad input, side by side with perf: every case runs `perf stat ARGS` and `bperf stat ARGS` and
# wants the same exit status and the same stderr, with "perf stat"/"perf list" read as bperf's.
# Usage help lines are compared by option names only (their texts are bperf's own wording), and
# perf's lines for options bperf does not have are dropped. Cases that perf accepts (exit 0) are
# compared with the numbers masked. Each bperf runs in a session of its own and must leave no
# process in it; a case with -o must create the file exactly when perf does.
. "$(dirname "$0")/../lib.sh"
require_root
[ -x "$PERF" ] || skip "needs $PERF"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nfail=0

# Option help lines become "OPT -x, --name"; their continuation lines go.
normalize_usage() {
	awk '
	/^    -[[:alnum:]](, --[a-z0-9-]+)?([ [].*)?$/ || /^        --[a-z0-9-]+([ [=].*)?$/ {
		match($0, /^ +(-[[:alnum:]](, )?)?(--[a-z0-9-]+)?/)
		print "OPT " substr($0, RSTART, RLENGTH); next
	}
	/^                          [^ ]/ || /^\t/ { next }
	{ print }'
}

# The options both have, one "OPT ..." line each.
"$BPERF" stat -h 2>&1 | normalize_usage | grep '^OPT ' | sort -u >"$tmp/bperf_opts"
"$PERF" stat -h 2>&1 | normalize_usage | grep '^OPT ' | sort -u >"$tmp/perf_opts"
comm -12 "$tmp/bperf_opts" "$tmp/perf_opts" >"$tmp/common_opts"
[ -s "$tmp/common_opts" ] || fail "cannot list the options of perf and bperf"

# A usage text with the option lines of options both have only.
common_usage() {
	normalize_usage | awk -v known="$tmp/common_opts" '
		BEGIN { while ((getline l < known) > 0) ok[l] = 1 }
		/^OPT / && !($0 in ok) { next }
		{ print }'
}

# perf's stderr as bperf's would read.
perf_as_bperf() {
	sed -E 's/\bperf (stat|list)\b/bperf \1/g' | common_usage
}

case_fail() {
	echo "FAIL [$*]" >&2
	nfail=$((nfail + 1))
}

# run_bperf OUT ERR ARGS...: bperf in a new session; fails the case if anything outlives it.
run_bperf() {
	local out=$1 err=$2 sid rc
	shift 2
	setsid -w bash -c 'echo $$ >"$0"; exec "$@"' "$tmp/sid" "$BPERF" stat "$@" \
		</dev/null >"$out" 2>"$err" 9>&-
	rc=$?
	sid=$(cat "$tmp/sid")
	sleep 0.05
	if pgrep -s "$sid" >/dev/null; then
		echo "left behind: $(pgrep -a -s "$sid")" >&2
		pkill -KILL -s "$sid"
		return 200
	fi
	return $rc
}

# same ARGS...: same status and stderr as perf
same() {
	local prc brc file="" a

	for a in "$@"; do
		[[ $a == "$tmp"/out* ]] && file=$a
	done
	rm -f "$tmp"/out*
	"$PERF" stat "$@" </dev/null >"$tmp/p.out" 2>"$tmp/p.err" 9>&-
	prc=$?
	local perf_made=no bperf_made=no
	[ -n "$file" ] && [ -e "$file" ] && perf_made=yes
	rm -f "$tmp"/out*
	run_bperf "$tmp/b.out" "$tmp/b.err" "$@"
	brc=$?
	[ -n "$file" ] && [ -e "$file" ] && bperf_made=yes
	if [ "$brc" = 200 ]; then
		case_fail "$*" "a process outlived bperf"
		return
	fi
	if [ "$prc" != "$brc" ]; then
		echo "exit status: perf $prc, bperf $brc" >&2
		case_fail "$*"
		return
	fi
	if [ "$perf_made" != "$bperf_made" ]; then
		echo "output file created: perf $perf_made, bperf $bperf_made" >&2
		case_fail "$*"
		return
	fi
	if [ "$prc" = 0 ]; then
		sed -E 's/\bperf (stat|list)\b/bperf \1/g' "$tmp/p.err" >"$tmp/p.err0"
		(compare_stat_outputs "$tmp/p.err0" "$tmp/b.err") || case_fail "$*"
		return
	fi
	if ! diff -u <(perf_as_bperf <"$tmp/p.err") <(common_usage <"$tmp/b.err") >&2; then
		case_fail "$*"
	fi
}

# bperf_only RC PATTERN ARGS...: where bperf knowingly differs from perf
bperf_only() {
	local want_rc=$1 pattern=$2 rc
	shift 2
	run_bperf "$tmp/b.out" "$tmp/b.err" "$@"
	rc=$?
	if [ "$rc" != "$want_rc" ] || ! grep -q -e "$pattern" "$tmp/b.err"; then
		echo "wanted exit $want_rc and '$pattern', got $rc:" >&2
		cat "$tmp/b.err" >&2
		case_fail "$*"
	fi
}

long=$(printf 'x%.0s' $(seq 100))
sleeper=$WORKLOADS/sleeper

# unknown events and malformed terms
same -e nosuch true
same -e cycles:x true
same -e foo/bar/ true
same -e msr/foo=1/ true
same -e msr/event=0x1,/ true
same -e msr/tsc=/ true
same -e 'msr/tsc,,/' true
same -e sched:nosuch true
# perf's lexer echoes the stray '{' to stdout and counts cs,faults; bperf refuses it
bperf_only 129 "unbalanced group brace" -e '{cs,faults' true
same -e mem:0x1000/3 true
# raw events wider than 64 bits are parser errors (strtoull's ERANGE); leading zeros are not
same -e r18446744073709551615 true
same -e r1a1a1a1a1a1a1a1a1a1a1a true
same -e cs:u,r11111111111111111 true
same -e msr/r1a1a1a1a1a1a1a1a1a1a1a/ true
same -e r00000000000000000000000000000000000000000000000000000000000000000000001 true
same -e msr/config=0000000000000000000000000000000000000000000000000000000000000000001/ true
same -e "$long" true
same -e "cs,$long" true
same -e cs -e nosuch true
# unknown options, missing and bad values
same --nosuch true
same --nosuch=3 true
same -Z true
same -aZ true
same -c true
same -e
same -C
same -r
same --timeout
same --time
same -r foo true
same -rfoo true
same -r 0x3 true
same -I x true
same --timeout=abc true
same --log-fd=x true
same --summary=3 true
same --no-scale=1 true
same --no-inherit=3 true
same --no-event x
same --no-event=x
same --al true
same --no-sc true
# targets
same -C foo true
same -C 1-0 true
same --cpu=foo true
same -C 5 -e cs true
same -p 999999
same -p foo
same -t foo
same -t 999999
same -t 999999 -e cs,faults "$sleeper" 2000
nosuch_exec=$tmp/nosuch_exec
printf '#!/bin/sh\n' >"$nosuch_exec"
chmod -x "$nosuch_exec"
same nosuchcmd
same "$nosuch_exec"
same -A true
same --per-thread true
same --per-thread -C 0 -a true
# output and run control
same -o /nonexistent/dir/x true
same -o "$tmp/out1" --log-fd 3 true
same -o "$tmp/out2" -e nosuch true
same -o "$tmp/out3" nosuchcmd
same --log-fd -1 true
same --log-fd 9 true
same -B -x, true
same -r -1 true
same --timeout 5 true
same --interval-count 2 true
same -I 100 --timeout 200 true
same --all-user --all-kernel true
same --all-kernel --all-user true
same --all-user --no-all-kernel true
same --quiet true

[ "$nfail" -eq 0 ] || fail "$nfail cases differ from perf"
echo "all cases match perf"
