#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bperf-daemon.service is hardened: `systemd-analyze security --offline=yes` rates its
# exposure at most 3.0 (the figure in README.md), and `systemd-analyze verify` finds nothing
# wrong with it (run on a copy whose ExecStart is the bperf built here, since /usr/bin/bperf is
# not installed, and without man page checks: bperf(1) is in man/, not installed either). That
# the daemon works under the unit's capabilities and limits is tools/check's run of the daemon's
# tests under tools/run-as-unit, whose bounding set, no_new_privs and fd limit are checked here.
# Skips where systemd-analyze is missing.
# parallel: reads the unit file only
. "$(dirname "$0")/../lib.sh"

require_cmd systemd-analyze
UNIT=$REPO_TOP/tools/bperf-daemon.service
MAX=3.0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

systemd-analyze security --offline=yes --no-pager "$UNIT" >"$TMP/security" 2>&1 ||
	fail "systemd-analyze security: $(tail -n 3 "$TMP/security")"
score=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*$/\1/p' "$TMP/security")
[ -n "$score" ] || fail "no exposure level in: $(tail -n 3 "$TMP/security")"
awk -v s="$score" -v m="$MAX" 'BEGIN { exit !(s <= m) }' ||
	fail "exposure $score, over $MAX: $(grep '^✗' "$TMP/security" | head -n 12)"
grep -q "exposure of $score " "$REPO_TOP/README.md" ||
	fail "README.md does not give the exposure $score"

sed "s|^ExecStart=/usr/bin/bperf |ExecStart=$BPERF |" "$UNIT" >"$TMP/bperf-daemon.service"
systemd-analyze verify --man=no "$TMP/bperf-daemon.service" >"$TMP/verify" 2>&1 ||
	fail "systemd-analyze verify: $(head -n 5 "$TMP/verify")"
[ ! -s "$TMP/verify" ] || fail "systemd-analyze verify says: $(head -n 5 "$TMP/verify")"

# tools/run-as-unit: the unit's bounding set (each CAP_ by its number in linux/capability.h), no
# new privileges, and its fd limit (or the hard one where it cannot be raised: run-as-unit)
mask=0
for cap in $(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT"); do
	bit=$(awk -v c="$cap" '$1 == "#define" && $2 == c { print $3 }' \
		/usr/include/linux/capability.h)
	[ -n "$bit" ] || fail "$cap is not in linux/capability.h"
	mask=$((mask | 1 << bit))
done
nofile=$(sed -n 's/^LimitNOFILE=//p' "$UNIT")
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] || [ "$hard" -ge "$nofile" ] || nofile=$hard
"$REPO_TOP/tools/run-as-unit" sh -c 'cat /proc/self/status; ulimit -n' >"$TMP/status" ||
	fail "tools/run-as-unit failed: $(tail -n 3 "$TMP/status")"
assert_eq "$(printf '%016x' "$mask")" "$(awk '$1 == "CapBnd:" { print $2 }' "$TMP/status")" \
	"the bounding set under tools/run-as-unit"
assert_eq 1 "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$TMP/status")" "NoNewPrivs"
assert_eq "$nofile" "$(tail -n 1 "$TMP/status")" "the fd limit under tools/run-as-unit"
echo "exposure $score (at most $MAX), verify clean, run-as-unit's bounding set $(printf '%x' "$mask")"
