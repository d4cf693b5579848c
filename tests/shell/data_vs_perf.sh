#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# bperf data against perf 6.1 on files that `perf record` writes (one and several events, with
# and without -g, a forked child, threads, -a): `bperf data top -n` lists the functions of
# `perf report --stdio --sort dso,sym -n --no-children` with the same samples and percentages
# (for -a, the kernel's and the workload's), C++ functions demangled as perf shows them, one
# program at two paths on one line, each PLT entry (samples put there by uprobes) named as perf
# names it and every address of a binary's code resolved as perf script resolves it, a JIT's
# [JIT] tid N and functions from its /tmp/perf-N.map, [vdso]'s functions from perf's build-id
# cache, stat.csv has perf report -D's record counts, a binary gone or replaced since the
# recording leaves its samples as addresses, dump's raw data are perf -D's bytes, kallsyms of
# another boot (--kallsyms) is moved to the recording's kernel as perf moves it, a damaged file
# gives a message, the samples before the damage and exit 255 (a file cut short, or never
# finished by perf record, too; a perf record -z file, whose compressed records are not read),
# and each record left out or oddity one line and exit 255 (lost samples: perf's warning, 0).
. "$(dirname "$0")/../lib.sh"
cd "$REPO_TOP" || exit 1
require_root
[ -x "$PERF" ] || skip "needs $PERF"
tmp=$(mktemp -d)
probe_groups=()	# uprobes to remove (the PLT checks)
jit_maps=()	# the map files the jit workload wrote
cleanup() {
	local g

	for g in "${probe_groups[@]}"; do
		remove_probes "$g"
	done
	[ ${#jit_maps[@]} -eq 0 ] || rm -f "${jit_maps[@]}"
	rm -rf "$tmp"
}
trap cleanup EXIT

# the event of each section, then "event|percent|samples|dso|symbol" for each function line (a
# binary's name may hold spaces: "[JIT] tid 42"; the symbol starts at its level, "[.] ")
perf_lines() {
	awk '/of event/ { ev = $0; sub(/.*of event .\x27?/, "", ev); sub(/\x27.*/, "", ev) }
	     /^ +[0-9.]+%/ { at = match($0, / \[[.kgHu]\] /); sym = substr($0, at + 1);
			     dso = substr($0, 1, at); sub(/^ *[^ ]+ +[^ ]+ +/, "", dso);
			     sub(/ +$/, "", dso); sub(/ +$/, "", sym);
			     print ev "|" $1 "|" $2 "|" dso "|" sym }' |
		sort
}

# top_lines NAME FILTER: perf report's and bperf data top's lines of $tmp/NAME.data that match
# FILTER, in $tmp/NAME.perf and $tmp/NAME.bperf
top_lines() {
	local name=$1 filter=${2:-.}

	"$PERF" report -i "$tmp/$name.data" --stdio --sort dso,sym -n --no-children \
		2>/dev/null | perf_lines | grep -E "$filter" >"$tmp/$name.perf"
	"$BPERF" data top -q -n -i "$tmp/$name.data" | perf_lines | grep -E "$filter" \
		>"$tmp/$name.bperf" || fail "$name: bperf data top failed"
	[ -s "$tmp/$name.perf" ] || fail "$name: perf report shows no functions"
}

# compare NAME FILTER: top against perf report on $tmp/NAME.data
compare_top() {
	local name=$1

	top_lines "$@"
	if ! diff -u "$tmp/$name.perf" "$tmp/$name.bperf"; then
		fail "$name: bperf data top differs from perf report"
	fi
	echo "$name: $(wc -l <"$tmp/$name.perf") functions as perf reports them"
}

# stat.csv's counts against perf report -D's aggregated stats
compare_stat() {
	local name=$1

	"$BPERF" data csv -q -i "$tmp/$name.data" -o "$tmp/$name.csv" ||
		fail "$name: bperf data csv failed"
	"$PERF" report -D -i "$tmp/$name.data" 2>/dev/null |
		awk '/^Aggregated stats:/ { on = 1; next } on && / events:/ { print $1 "," $3 }
		     on && !/ events:/ { exit }' | sort >"$tmp/$name.perf_stat"
	tail -n +2 "$tmp/$name.csv/stat.csv" | sort >"$tmp/$name.bperf_stat"
	diff -u "$tmp/$name.perf_stat" "$tmp/$name.bperf_stat" ||
		fail "$name: stat.csv differs from perf report -D"
	for t in overview processes results; do
		[ -s "$tmp/$name.csv/$t.csv" ] || fail "$name: no $t.csv"
	done
	# overview.csv: a line per record, and in time order
	assert_eq "$(($(grep -c . "$tmp/$name.csv/overview.csv") - 1))" \
		"$(grep -v -E '^(TOTAL|FINISHED_ROUND),' "$tmp/$name.bperf_stat" |
		   awk -F, '{ n += $2 } END { print n }')" "$name: overview.csv lines"
	awk -F, 'NR > 1 && $1 != "" { if ($1 < last) { print "out of order: " $0; exit 1 }
		 last = $1 }' "$tmp/$name.csv/overview.csv" || fail "$name: overview.csv order"
	echo "$name: stat.csv as perf report -D"
}

record() {
	local name=$1

	shift
	"$PERF" record -q -o "$tmp/$name.data" "$@" >/dev/null 2>&1 ||
		fail "perf record $* failed"
}

# a dynamic binary: strlen through its PLT, or clock_gettime in [vdso] (libc calls it there)
cat >"$tmp/pltloop.c" <<'EOF'
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = atol(argv[1]), i;
	volatile size_t sum = 0;
	char buf[8] = "abc";
	struct timespec ts;

	for (i = 0; i < n; i++) {
		if (argc > 2) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sum += ts.tv_nsec;
		} else {
			sum += strlen(buf);
		}
	}
	return sum == 1;
}
EOF
gcc -O0 -o "$tmp/pltloop" "$tmp/pltloop.c" || skip "needs gcc"

# C++ (when g++ is there): perf's demangled names, without parameters, qualifiers or a
# template function's return type
cat >"$tmp/cxxloop.cc" <<'EOF'
// C++ names perf demangles: namespaces, methods (const), templates with return types,
// operators, a lambda, an anonymous namespace and calls through the PLT into libstdc++.
#include <cstdlib>
#include <string>

static volatile unsigned long sink;

static inline __attribute__((always_inline)) void spin(long n)
{
	for (long i = 0; i < n; i++)
		sink += i;
}

namespace shapes {
struct Box {
	long w;
	__attribute__((noinline)) long area(long n) const { spin(n); return w; }
	__attribute__((noinline)) bool operator<(const Box &o) const { spin(o.w); return w < o.w; }
	__attribute__((noinline)) long operator()(long n) { spin(n); return n; }
};
template <typename T> __attribute__((noinline)) T twice(T n) { spin(n); return n * 2; }
} // namespace shapes

namespace {
__attribute__((noinline)) void hidden(long n) { spin(n); }
} // namespace

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	shapes::Box a{200000}, b{300000};
	auto lambda = [](long k) __attribute__((noinline)) { spin(k); return k; };
	std::string s;

	for (long i = 0; i < n; i++) {
		a.area(200000);
		(void)(a < b);
		a(200000);
		shapes::twice<long>(200000);
		shapes::twice<int>(200000);
		hidden(200000);
		lambda(200000);
		s = std::to_string(i);
		s += "x";
	}
	return s.empty();
}
EOF
have_cxx=
g++ -O1 -o "$tmp/cxxloop" "$tmp/cxxloop.cc" && have_cxx=1

record plt -e cpu-clock -- "$tmp/pltloop" 30000000
record vdso -e cpu-clock -- "$tmp/pltloop" 5000000 vdso
record one -e cpu-clock -- "$WORKLOADS/pagetouch" 3000
record two_g -g -e cpu-clock,page-faults -- "$WORKLOADS/pagetouch" 3000
record child -e task-clock,cpu-clock -- "$WORKLOADS/pingpong" 20000
record threads -g -e cpu-clock -- "$WORKLOADS/pingpong" -t 20000
record system -a -g -e cpu-clock -- "$WORKLOADS/pagetouch" 3000

for name in one two_g child threads; do
	compare_top "$name"
	compare_stat "$name"
done
compare_top system '\|(\[kernel\.kallsyms\]|pagetouch)\|'
compare_stat system
if [ -n "$have_cxx" ]; then
	record cxx -e cpu-clock -- "$tmp/cxxloop" 300
	compare_top cxx '\|cxxloop\|'
	for f in 'shapes::Box::operator<' '(anonymous namespace)::hidden' 'shapes::twice<int>' \
		 'main::{lambda(long)#1}::operator()'; do
		grep -qF "] $f" "$tmp/cxx.perf" || fail "cxx: perf shows no $f"
	done
else
	echo "cxx: no g++, C++ names not checked"
fi
compare_top plt '\|pltloop\|'
# one program at two paths, both run: perf report's line per binary name and function holds both
mkdir -p "$tmp/a" "$tmp/b"
cp "$tmp/pltloop" "$tmp/a/pltloop"
cp "$tmp/pltloop" "$tmp/b/pltloop"
record twins -e cpu-clock -- sh -c "$tmp/a/pltloop 20000000; $tmp/b/pltloop 20000000"
compare_top twins '\|pltloop\|'
[ "$(grep -c '|pltloop|\[\.\] main$' "$tmp/twins.perf")" -eq 1 ] ||
	fail "twins: perf report does not show one main for both binaries"
compare_top vdso '\|\[vdso\]\|'
grep -q '] __vdso_clock_gettime$' "$tmp/vdso.perf" || fail "vdso: no samples in [vdso]"

# PLT entries as perf 6.1 names them. Timer samples cannot be relied on to land in a stub of one
# or two instructions (on some CPUs they cluster on a few instructions), so a uprobe on each entry
# gives a sample on each call, at the entry's exact address: every entry of a binary (first,
# middle, last), lazy and -z now, PIE and not, and one that calls a single function, whose only
# entry perf 6.1 gives to _init (the sizeless symbol before the PLT, stretched over it), as its
# symbol tree decides. Then every address of each binary's code, one sample each (the recorded
# samples moved there), resolves as perf script resolves it. With IBT (.plt.sec, where the
# calls go) perf 6.1 names no entry; bperf names them foo@plt.
cat >"$tmp/plts.c" <<'EOF'
#include <string.h>

int main(void)
{
	char buf[16] = "abcabc";
	volatile unsigned long sum = 0;
	int i;

	for (i = 0; i < CALLS; i++) {
		sum += strlen(buf);
#ifndef ONE
		sum += (unsigned long)strchr(buf, 'c');
		sum += (unsigned long)strrchr(buf, 'a');
		sum += strspn(buf, "ab");
		sum += (unsigned long)memchr(buf, 'b', 6);
#endif
	}
	return sum == 1;
}
EOF
plt_calls=5000
uprobes=/sys/kernel/tracing/uprobe_events
# remove_probes GROUP: the uprobes of GROUP (each name listed in $tmp/GROUP.probes)
remove_probes() {
	local name

	[ -f "$tmp/$1.probes" ] || return 0
	while read -r name; do
		echo "-:$1/$name" >>"$uprobes"
	done <"$tmp/$1.probes"
	rm -f "$tmp/$1.probes"
}

# section BIN NAME: the file offset and entry size of section NAME, in hex
section() {
	readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk -v n="$2" '$1 == n { print $4, $6 }'
}

# plt_entries BIN: "name offset" of each PLT entry the calls go to (.plt.sec's if there), in the
# order of .rela.plt
plt_entries() {
	local off size first=1

	read -r off size < <(section "$1" .plt.sec)
	if [ -n "$off" ]; then
		first=0
	else
		read -r off size < <(section "$1" .plt)
	fi
	[ -n "$off" ] || return
	readelf -rW "$1" | awk '/^Relocation section/ { on = /\.rela\.plt/; next }
		on && $1 ~ /^[0-9a-f]+$/ && NF >= 5 { sub(/@.*/, "", $5); print $5 }' |
		awk -v off=$((0x$off)) -v size=$((0x$size)) -v first=$first \
			'{ printf "%s 0x%x\n", $1, off + size * (NR - 1 + first) }'
}

# record_plt NAME CFLAGS...: builds plts.c, puts a uprobe on each PLT entry and records them
record_plt() {
	local name=$1 group=bperftest_$$_$1 entry off

	shift
	gcc -O0 -fno-builtin -DCALLS=$plt_calls "$@" -o "$tmp/$name" "$tmp/plts.c" ||
		fail "$name: gcc $* failed"
	plt_entries "$tmp/$name" >"$tmp/$name.entries"
	[ -s "$tmp/$name.entries" ] || fail "$name: no PLT entries"
	probe_groups+=("$group")
	while read -r entry off; do
		echo "${entry}_plt" >>"$tmp/$group.probes"
		echo "p:$group/${entry}_plt $tmp/$name:$off" >>"$uprobes" ||
			fail "$name: cannot add a uprobe at $off"
	done <"$tmp/$name.entries"
	record "$name" -e "$group:*" -c 1 -- "$tmp/$name"
	remove_probes "$group"
}

# sweep NAME: moves the samples of $tmp/NAME.data over every byte of the executable mapping of
# $tmp/NAME, one each, and compares the functions perf script and bperf data csv give them
sweep() {
	python3 - "$tmp/$1.data" "$tmp/$1.sweep.data" "$tmp/$1" <<'PYEOF' ||
import struct, sys

src, dst, binary = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attrs_off, = struct.unpack_from('<Q', b, 0x18)
data_off, data_size = struct.unpack_from('<QQ', b, 0x28)
sample_type, = struct.unpack_from('<Q', b, attrs_off + 24)
ip_at = 8 + 8 * bool(sample_type & (1 << 16))	# after PERF_SAMPLE_IDENTIFIER
recs, pos = [], data_off
while pos < data_off + data_size:
    rtype, misc, size = struct.unpack_from('<IHH', b, pos)
    recs.append((pos, rtype, size))
    pos += size
exe = None
for pos, rtype, size in recs:
    if rtype == 10:
        start, length = struct.unpack_from('<QQ', b, pos + 16)
        prot, = struct.unpack_from('<I', b, pos + 64)
        name = bytes(b[pos + 72:pos + size]).split(b'\0')[0].decode()
        if name == binary and prot & 4:
            exe = (start, length)
if not exe:
    sys.exit('no executable mapping of ' + binary)
start, length = exe
moved = 0
for pos, rtype, size in recs:
    if rtype == 9 and moved < length:
        struct.pack_into('<Q', b, pos + ip_at, start + moved)
        moved += 1
if moved < length:
    sys.exit('%d samples for %d bytes' % (moved, length))
open(dst, 'wb').write(b)
PYEOF
		fail "$1: cannot move the samples"
	"$PERF" script -i "$tmp/$1.sweep.data" -F ip,sym 2>/dev/null |
		awk '{ print $1, $2 == "[unknown]" ? "-" : $2 }' >"$tmp/$1.sweep.perf"
	"$BPERF" data csv -q -i "$tmp/$1.sweep.data" -o "$tmp/$1.sweep.csv" ||
		fail "$1: bperf data csv failed"
	python3 - "$tmp/$1.sweep.csv/overview.csv" >"$tmp/$1.sweep.bperf" <<'PYEOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r['record'] == 'SAMPLE':
        print(r['ip'][2:], '-' if r['symbol'].startswith('0x') else r['symbol'])
PYEOF
	[ -s "$tmp/$1.sweep.perf" ] || fail "$1: perf script printed no samples"
	diff -u "$tmp/$1.sweep.perf" "$tmp/$1.sweep.bperf" >"$tmp/$1.sweep.diff" || {
		head -n 20 "$tmp/$1.sweep.diff"
		fail "$1: some addresses resolve differently from perf script"
	}
}

# plt_exact NAME: each entry's event of NAME has one line in perf's top, a sample for each call
plt_exact() {
	awk -F'|' -v n=$plt_calls '$3 != n { exit 1 }' "$tmp/$1.perf" &&
		[ "$(grep -c . "$tmp/$1.perf")" -eq "$(grep -c . "$tmp/$1.entries")" ]
}

if [ -w "$uprobes" ]; then
	declare -A plt_flags=([plt_one]=-DONE [plt_lazy]="" [plt_now]="-Wl,-z,now"
		[plt_nopie]="-fno-pie -no-pie" [plt_ibt]="-fcf-protection -Wl,-z,ibtplt")
	for name in plt_one plt_lazy plt_now plt_nopie plt_ibt; do
		# shellcheck disable=SC2086 # the flags are words
		record_plt "$name" ${plt_flags[$name]}
	done
	[ -n "$(section "$tmp/plt_ibt" .plt.sec)" ] || fail "plt_ibt: ld made no .plt.sec"
	for name in plt_one plt_lazy plt_now plt_nopie; do
		compare_top "$name" "\\|$name\\|"
		# A loaded machine now and then counts a uprobe hit twice (CI: 5001 of 5000 once,
		# in perf's report of perf's recording): one more recording then.
		if ! plt_exact "$name"; then
			echo "$name: $(paste -sd' ' "$tmp/$name.perf"); recording it again"
			# shellcheck disable=SC2086
			record_plt "$name" ${plt_flags[$name]}
			compare_top "$name" "\\|$name\\|"
		fi
		plt_exact "$name" ||
			fail "$name: not $plt_calls samples at each entry: $(cat "$tmp/$name.perf")"
		sweep "$name"
		echo "$name: every address of its code as perf script resolves it"
	done
	echo "plt_one: perf 6.1 names its entry '$(cut -d'|' -f5 "$tmp/plt_one.perf")'"
	# .plt.sec: bperf names each entry, perf 6.1 none
	top_lines plt_ibt '\|plt_ibt\|'
	while read -r entry off; do
		grep -q ":${entry}_plt|100.00%|$plt_calls|plt_ibt|\[\.\] $entry@plt\$" \
			"$tmp/plt_ibt.bperf" || fail "plt_ibt: bperf does not name $entry@plt"
		! grep -q ":${entry}_plt|.*|\[\.\] $entry@plt\$" "$tmp/plt_ibt.perf" ||
			fail "plt_ibt: perf names $entry@plt in .plt.sec (see README's differences)"
	done <"$tmp/plt_ibt.entries"
	echo "plt_ibt: bperf names the $(grep -c . "$tmp/plt_ibt.entries") entries of .plt.sec"
else
	echo "plt: no $uprobes, PLT entries not checked"
fi

# JIT code, in anonymous executable memory: perf names it "[JIT] tid PID" and takes its functions
# from /tmp/perf-PID.map. tests/workloads/jit writes five functions there, lists four of them
# in its map file (one sizeless: only its first byte is it; one named with spaces) and spends
# nearly all its time in them. Per task and system-wide, and without the map file.
# record_jit NAME PERF_RECORD_ARGS...: records; $tmp/NAME.map names the map file jit wrote
record_jit() {
	local name=$1

	shift
	"$PERF" record -q -o "$tmp/$name.data" "$@" >"$tmp/$name.map" 2>/dev/null ||
		fail "perf record $* failed"
	jit_maps+=("$(cat "$tmp/$name.map")")
	[[ $(cat "$tmp/$name.map") =~ ^/tmp/perf-[0-9]+\.map$ ]] ||
		fail "$name: jit printed '$(cat "$tmp/$name.map")'"
}

# jit_lines NAME: the lines of jit's binary in $tmp/NAME.perf
jit_lines() {
	local pid

	pid=$(sed 's|^/tmp/perf-\([0-9]*\)\.map$|\1|' "$tmp/$1.map")
	grep -F "|[JIT] tid $pid|" "$tmp/$1.perf"
}

if [ "$(uname -m)" = x86_64 ]; then
	record_jit jit -e cpu-clock -- "$WORKLOADS/jit" 1500
	record_jit jit_nomap -e cpu-clock -- "$WORKLOADS/jit" -n 1500
	record_jit jit_all -a -e cpu-clock -- "$WORKLOADS/jit" 1500
	for name in jit jit_all; do
		compare_top "$name" '\|\[JIT\] tid [0-9]+\|'
		for f in jit_alpha 'LazyCompile:*beta jit.js:7' jit_delta; do
			jit_lines "$name" | grep -qF "|[.] $f" || fail "$name: perf shows no $f"
		done
		jit_lines "$name" | grep -q '|\[\.\] 0x0000' ||
			fail "$name: perf shows no address for the function the map leaves out"
	done
	compare_top jit_nomap '\|\[JIT\] tid [0-9]+\|'
	[ -n "$(jit_lines jit_nomap)" ] && ! jit_lines jit_nomap | grep -qv '|\[\.\] 0x0000' ||
		fail "jit_nomap: not only addresses in the JIT's code: $(jit_lines jit_nomap)"
	expect="bperf: $(cat "$tmp/jit_nomap.map"): No such file or directory"
	"$BPERF" data top -i "$tmp/jit_nomap.data" 2>&1 >/dev/null |
		grep -qxF "$expect: the JIT's samples stay unresolved" ||
		fail "jit_nomap: no message about the missing map file"
	echo "jit: its functions from its map file, as perf reports them, and addresses without it"
else
	echo "jit: writes x86-64 code, not checked on $(uname -m)"
fi

# A binary gone at report time (and not in perf's build-id cache), or replaced by another build:
# perf and bperf show its samples as addresses in it; bperf says why on stderr.
mkdir -p "$tmp/home" "$tmp/bin"
for how in gone replaced; do
	cp "$tmp/pltloop" "$tmp/bin/$how"
	HOME=$tmp/home record "$how" -e cpu-clock -- "$tmp/bin/$how" 30000000
	rm -rf "$tmp/home/.debug" "$tmp/bin/$how"
	[ "$how" = replaced ] && cp "$WORKLOADS/sleeper" "$tmp/bin/$how"
	HOME=$tmp/home compare_top "$how" "\\|$how\\|"
	grep -q "|$how|\\[\\.\\] 0x0000" "$tmp/$how.bperf" || fail "$how: no address in $how"
	HOME=$tmp/home "$BPERF" data top -i "$tmp/$how.data" 2>&1 >/dev/null |
		grep -q "^bperf: $tmp/bin/$how: .*its samples stay unresolved" ||
		fail "$how: no message about the binary"
done

# A recording from another boot: kallsyms with the kernel elsewhere (KASLR moves _text and every
# function of the kernel proper, not modules). bperf data --kallsyms moves them back as
# perf report --kallsyms does, so the functions are those of the real kallsyms.
python3 - >"$tmp/moved.kallsyms" <<'PYEOF'
import sys
for line in open('/proc/kallsyms'):
    f = line.split()
    if len(f) == 3:
        f[0] = '%016x' % (int(f[0], 16) + 0x2000000)
        line = ' '.join(f) + '\n'
    sys.stdout.write(line)
PYEOF
"$PERF" report -i "$tmp/system.data" --kallsyms="$tmp/moved.kallsyms" --stdio --sort dso,sym -n \
	--no-children 2>/dev/null | perf_lines | grep '|\[kernel\.kallsyms\]|' >"$tmp/moved.perf"
"$BPERF" data top -q -n -i "$tmp/system.data" --kallsyms "$tmp/moved.kallsyms" | perf_lines |
	grep '|\[kernel\.kallsyms\]|' >"$tmp/moved.bperf"
grep '|\[kernel\.kallsyms\]|' "$tmp/system.perf" >"$tmp/unmoved.perf"
[ -s "$tmp/unmoved.perf" ] || fail "system: no kernel functions"
diff -u "$tmp/unmoved.perf" "$tmp/moved.perf" || fail "perf report --kallsyms: not moved back"
diff -u "$tmp/moved.perf" "$tmp/moved.bperf" || fail "--kallsyms: kernel functions differ"
echo "moved kernel: $(wc -l <"$tmp/moved.bperf") kernel functions as with the real kallsyms"

# bperf data dump decodes the feature sections: the lines perf report --header-only prints for
# them, label for label, and the build ids perf buildid-list lists.
header_lines() {
	grep -E "^$1(hostname|os release|perf version|arch|nrcpus online|nrcpus avail|cpudesc|cpuid|\
total memory|cmdline) :" | sed "s/^$1//"
}
"$PERF" report --header-only -i "$tmp/two_g.data" 2>/dev/null | header_lines '# ' >"$tmp/hdr.perf"
"$BPERF" data dump -i "$tmp/two_g.data" | header_lines '  ' >"$tmp/hdr.bperf" ||
	fail "bperf data dump failed"
[ "$(grep -c . "$tmp/hdr.perf")" -ge 9 ] || fail "perf --header-only: $(cat "$tmp/hdr.perf")"
diff -u "$tmp/hdr.perf" "$tmp/hdr.bperf" || fail "dump: feature sections differ from perf's"
"$PERF" buildid-list -i "$tmp/two_g.data" 2>/dev/null | sort >"$tmp/bid.perf"
"$BPERF" data dump -i "$tmp/two_g.data" | awk '/^  build id / { print $3, $6 }' | sort \
	>"$tmp/bid.bperf"
[ -s "$tmp/bid.perf" ] || fail "perf buildid-list listed nothing"
diff -u "$tmp/bid.perf" "$tmp/bid.bperf" || fail "dump: build ids differ from perf buildid-list"
echo "dump: $(grep -c . "$tmp/hdr.bperf") header lines and $(grep -c . "$tmp/bid.bperf")" \
	"build ids as perf prints them"

# dump prints each sample's raw data (a tracepoint's fields): the bytes perf report -D shows at
# the end of the same record, after the u32 that gives their size.
record tp -a -e sched:sched_switch -- sleep 0.05
"$PERF" report -D -i "$tmp/tp.data" >"$tmp/tp.perf" 2>/dev/null
"$BPERF" data dump -i "$tmp/tp.data" >"$tmp/tp.bperf" || fail "tp: bperf data dump failed"
python3 - "$tmp/tp.perf" "$tmp/tp.bperf" <<'PYEOF' || fail "tp: raw data differs from perf -D"
import re, struct, sys

def blocks(path, start, data):
    """{offset: bytes}: a line matching start begins a block, lines matching data add hex."""
    found, offset = {}, None
    for line in open(path):
        m = re.match(start, line)
        if m:
            offset = int(m.group(1), 16)
            found[offset] = b''
            continue
        m = re.match(data, line)
        if m and offset is not None:
            found[offset] += bytes.fromhex(m.group(1))
    return found

records = blocks(sys.argv[1], r'(0x[0-9a-f]+)@', r'\.  [0-9a-f]{4}:  ((?:[0-9a-f]{2} )+)')
raws = blocks(sys.argv[2], r'(0x[0-9a-f]+) \[0x[0-9a-f]+\]: PERF_RECORD_SAMPLE .* raw \d+ bytes',
              r'\.\.\.\.\. raw [0-9a-f]{4}:  ((?:[0-9a-f]{2} )+)')
if not raws:
    sys.exit('no raw data in the dump')
for offset, raw in raws.items():
    rec = records.get(offset, b'')
    at = rec.find(struct.pack('<I', len(raw)) + raw)
    if at < 0:
        sys.exit('%#x: raw %s not in perf record %s' % (offset, raw.hex(), rec.hex()))
print('tp: raw data of %d samples as perf -D shows them' % len(raws))
PYEOF

# samples_of FILE: "event samples" for each event section of bperf data top's output
samples_of() {
	awk '/^# Samples:/ { ev = $0; sub(/.*of event ./, "", ev); sub(/.$/, "", ev); print ev, $3 }' "$1"
}

# top_damaged NAME WHAT REGEX: bperf data top on $tmp/NAME.data exits 255 with a message
# matching REGEX; its output is in $tmp/NAME.out.
top_damaged() {
	local name=$1 what=$2 rc

	"$BPERF" data top -q -i "$tmp/$name.data" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" -eq 255 ] || fail "$what: exit $rc, expected 255"
	grep -q "$3" "$tmp/$name.err" || fail "$what: no message: $(cat "$tmp/$name.err")"
}

# all_samples NAME WHAT: $tmp/NAME.out has every sample of the whole file
all_samples() {
	diff <(samples_of "$tmp/whole.out") <(samples_of "$tmp/$1.out") ||
		fail "$2: not every sample of the whole file"
	echo "$2: every sample ($(samples_of "$tmp/$1.out" | paste -sd' ')), a message, exit 255"
}

# A damaged file: the data cut short (feature sections gone with it) gives a message naming the
# offset, the samples before the cut (fewer than the whole file's, named from the attrs) and exit
# 255; cut in its feature sections only, it gives every sample, a message and exit 255.
"$BPERF" data top -q -i "$tmp/two_g.data" >"$tmp/whole.out" || fail "two_g: bperf data top failed"
read -r data_offset data_size < <(python3 -c 'import struct, sys
print(*struct.unpack_from("<QQ", open(sys.argv[1], "rb").read(), 0x28))' "$tmp/two_g.data")
head -c $((data_offset + data_size / 2)) "$tmp/two_g.data" >"$tmp/cut.data"
top_damaged cut "cut file" 'offset 0x28: data section .* runs past the end of the file .* cut short'
read -r ev cut_n < <(samples_of "$tmp/cut.out" | grep '^cpu-clock ')
read -r ev whole_n < <(samples_of "$tmp/whole.out" | grep '^cpu-clock ')
[ "${cut_n:-0}" -gt 0 ] && [ "$cut_n" -lt "$whole_n" ] ||
	fail "cut file: $cut_n cpu-clock samples, expected some of the whole file's $whole_n"
echo "cut file: $cut_n of $whole_n cpu-clock samples, a message and exit 255"
head -c $((data_offset + data_size + 40)) "$tmp/two_g.data" >"$tmp/cut_features.data"
top_damaged cut_features "file cut in its features" 'feature sections past the end .* cut short'
all_samples cut_features "file cut in its features"
# perf record killed before it finished the file: data size 0 in the header and no feature
# sections. perf report refuses it; bperf reads every record, says why and exits 255.
python3 - "$tmp/two_g.data" "$tmp/killed.data" <<'PYEOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
offset, size = struct.unpack_from('<QQ', b, 0x28)
k = b[:offset + size]
struct.pack_into('<Q', k, 0x30, 0)
open(sys.argv[2], 'wb').write(k)
PYEOF
top_damaged killed "unfinished file" 'has size 0: perf record did not finish the file'
all_samples killed "unfinished file"
# perf record -z: the zstd-compressed records are not read; bperf says so and exits 255
# rather than print a summary that silently lacks them.
record zstd -z -e cpu-clock -- "$WORKLOADS/pagetouch" 3000
top_damaged zstd "compressed file" 'records compressed by perf record -z (zstd) are not read'

# One oddity in a copy of two_g.data (damage.py HOW): each skipped record or oddity has its line
# on stderr and exit 255, the other records still count; where perf 6.1 reports the oddity, its
# report is the evidence that the copy has it. Samples lost in the recording (LOST, LOST_SAMPLES)
# are perf's warnings, with exit 0: the file is sound.
cat >"$tmp/damage.py" <<'PYEOF'
import struct, sys

src, dst, how = sys.argv[1:4]
b = bytearray(open(src, 'rb').read())
attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<QQQQQ', b, 0x10)
sample_type, = struct.unpack_from('<Q', b, attrs_off + 24)
recs, pos = [], data_off
while pos < data_off + data_size:
    rtype, misc, size = struct.unpack_from('<IHH', b, pos)
    recs.append((pos, rtype))
    pos += size
samples = [p for p, t in recs if t == 9]
mid = samples[len(samples) // 2]


def field(sample, bit):
    """offset of the u64 of sample_type bit in a sample (IDENTIFIER, IP, TID, TIME, ADDR, ID)"""
    order = [1 << 16, 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 6]
    return sample + 8 + 8 * sum(1 for f in order[:order.index(bit)] if sample_type & f)


ID = 1 << 16 if sample_type & (1 << 16) else 1 << 6


def lost_record(rtype, payload):
    """the middle sample becomes a record of its size: payload, then its sample_id_all trailer"""
    size, = struct.unpack_from('<H', b, mid + 6)
    trailer = [struct.unpack_from('<Q', b, field(mid, f))[0] for f in (1 << 1, 1 << 2, ID)]
    if sample_type & ((1 << 16) | (1 << 7) | (1 << 9)):
        sys.exit('the trailer is not TID, TIME, ID')
    b[mid:mid + size] = struct.pack('<IHH', rtype, 0, size) + payload + \
        bytes(size - 8 - len(payload) - 24) + struct.pack('<QQQ', *trailer)


if how.startswith('type'):
    struct.pack_into('<I', b, mid, int(how[4:]))
elif how.startswith('header'):
    struct.pack_into('<Q', b, 8, int(how[6:]))
elif how == 'unknown_id':
    struct.pack_into('<Q', b, field(mid, ID), 0xdeadbeef)
elif how == 'unordered':
    # two samples become rounds: the second delivers what came before the first; the sample
    # after them claims to be older than all of it
    i = samples.index(mid)
    struct.pack_into('<I', b, samples[i], 68)
    struct.pack_into('<I', b, samples[i + 1], 68)
    struct.pack_into('<Q', b, field(samples[i + 2], 1 << 2), 1)
elif how == 'sample_type':
    # the second attr without its ids: its samples cannot be told from the first's
    struct.pack_into('<Q', b, attrs_off + attr_size + 24, sample_type & ~((1 << 16) | (1 << 6)))
elif how == 'cmdline':
    # the command line feature (bit 11) claims more words than it holds
    feats, = struct.unpack_from('<Q', b, 0x48)
    off, size = struct.unpack_from('<QQ', b, data_off + data_size +
                                   16 * bin(feats & ((1 << 11) - 1)).count('1'))
    struct.pack_into('<I', b, off, 1000)
elif how == 'lost':
    lost_record(2, struct.pack('<QQ', struct.unpack_from('<Q', b, field(mid, ID))[0], 5))
elif how == 'lost_samples':
    lost_record(13, struct.pack('<Q', 1000))
else:
    sys.exit('unknown damage ' + how)
open(dst, 'wb').write(b)
PYEOF

# total_samples FILE: the samples of every event section of bperf data top's output
total_samples() {
	samples_of "$1" | awk '{ n += $2 } END { print n + 0 }'
}

# odd_file NAME HOW STATUS REGEX MISSING: bperf data top on two_g.data damaged by HOW exits
# STATUS with one line on stderr matching REGEX and counts all samples but MISSING ("all" for
# a file it refuses); perf report's stderr is in $tmp/NAME.perf_err
odd_file() {
	local name=$1 how=$2 status=$3 regex=$4 missing=$5 rc whole

	python3 "$tmp/damage.py" "$tmp/two_g.data" "$tmp/$name.data" "$how" ||
		fail "$name: cannot make the file"
	"$PERF" report -i "$tmp/$name.data" --stdio >/dev/null 2>"$tmp/$name.perf_err"
	"$BPERF" data top -q -i "$tmp/$name.data" >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" -eq "$status" ] || fail "$name: exit $rc, expected $status: $(cat "$tmp/$name.err")"
	[ "$(grep -c . "$tmp/$name.err")" -eq 1 ] && grep -qE "$regex" "$tmp/$name.err" ||
		fail "$name: not one line matching '$regex': $(cat "$tmp/$name.err")"
	whole=$(total_samples "$tmp/whole.out")
	[ "$missing" = all ] && missing=$whole
	assert_eq $((whole - missing)) "$(total_samples "$tmp/$name.out")" "$name: samples counted"
	echo "$name: $(cat "$tmp/$name.err"), exit $rc"
}

odd_file type100 type100 255 '^bperf: .*: offset 0x[0-9a-f]+: failed to process type: 100 ' 1
grep -q 'failed to process type: 100' "$tmp/type100.perf_err" || fail "type100: perf took it"
odd_file type30 type30 255 'offset 0x[0-9a-f]+: unknown record type 30 .*more recent perf' 1
odd_file unknown_id unknown_id 255 'offset 0x[0-9a-f]+: sample of an unknown event' 1
# at least the sample claiming time 1; more where the two new rounds cut a round of the recording
# short (records after them older than what they delivered): perf's count, whatever it is
odd_file unordered unordered 255 ': [1-9][0-9]* records out of time order' 2
n_unordered=$(sed -n 's/.*: \([0-9]*\) records out of time order.*/\1/p' "$tmp/unordered.err")
grep -q "^$n_unordered out of order events recorded" "$tmp/unordered.perf_err" ||
	fail "unordered: perf does not see $n_unordered records out of order:" \
		"$(cat "$tmp/unordered.perf_err")"
odd_file big_header header32768 255 'offset 0x8: header size 32768: incompatible file format' all
grep -q 'incompatible file format' "$tmp/big_header.perf_err" || fail "big_header: perf took it"
odd_file sample_type sample_type 255 'attr 1: .*non matching sample_type' all
grep -q 'non matching sample_type' "$tmp/sample_type.perf_err" ||
	fail "sample_type: perf took it"
odd_file cmdline cmdline 255 'offset 0x[0-9a-f]+: command line of 1000 words' 0
odd_file lost lost 0 'processed [0-9]+ events and lost 1 chunks' 1
grep -qF "$(sed 's/.*: processed/Processed/; s/: check.*/!/' "$tmp/lost.err")" \
	"$tmp/lost.perf_err" || fail "lost: perf counts otherwise: $(cat "$tmp/lost.perf_err")"
odd_file lost_samples lost_samples 0 'processed [0-9]+ samples and lost [0-9.]+%' 1
grep -qF "$(sed 's/.*: processed/Processed/' "$tmp/lost_samples.err")!" \
	"$tmp/lost_samples.perf_err" ||
	fail "lost_samples: perf counts otherwise: $(cat "$tmp/lost_samples.perf_err")"
# an older perf's header, without feature bits: read as perf reads it
python3 "$tmp/damage.py" "$tmp/two_g.data" "$tmp/old_header.data" header72 ||
	fail "old_header: cannot make the file"
compare_top old_header
head -c 100 /dev/urandom >"$tmp/junk.data"
"$BPERF" data dump -i "$tmp/junk.data" >/dev/null 2>&1
assert_eq 255 $? "junk file exit"
echo "damaged files: a message and exit 255"
