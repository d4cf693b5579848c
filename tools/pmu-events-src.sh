#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Extracts perf 6.1's event tables (tools/perf/pmu-events/arch/{x86,arm64,test}) and perf's own
# generator of them (jevents.py, which the tests compare bperf's tables with) from Debian's
# linux-source-6.1 tarball into CACHE/<package version>/, once: reading the 140 MB tarball takes
# about 25 s. Prints the directory that holds arch/.
#
#	tools/pmu-events-src.sh TARBALL CACHE
set -euo pipefail

tarball=$1
cache=$2

if [ ! -r "$tarball" ]; then
	echo "bperf needs $tarball (Debian's linux-source-6.1) for perf's event tables:" \
		"run 'make deps' as root" >&2
	exit 1
fi
version=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
# a tarball that dpkg does not know of (copied by hand) is named by its size and time
[ -n "$version" ] || version=$(stat -c 'unpackaged-%s-%Y' "$tarball")
dir=$cache/$version
if [ ! -e "$dir/stamp" ]; then
	printf '  %-9s %s\n' EXTRACT "perf's event tables from $tarball (once, about 25 s)" >&2
	mkdir -p "$cache"
	# extract beside the final place and rename: another build may be reading the cache
	tmp=$(mktemp -d "$cache/.extract.XXXXXX")
	chmod 755 "$tmp"
	trap 'rm -rf "$tmp"' EXIT
	top=linux-source-6.1/tools/perf/pmu-events
	tar -xJf "$tarball" -C "$tmp" --strip-components=4 \
		"$top/arch/x86" "$top/arch/arm64" "$top/arch/test" "$top/jevents.py"
	echo "$version" >"$tmp/stamp"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	trap - EXIT
fi
echo "$dir"
