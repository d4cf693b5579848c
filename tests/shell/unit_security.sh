#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/bperf-daemon.service is hardened: `systemd-analyze security --offline=yes` rates its
# exposure at most 3.0 (the figure in README.md), and `systemd-analyze verify` finds nothing
# wrong with it (run on a copy whose ExecStart is the bperf built here, since /usr/bin/bperf is
# not installed, and without man page checks: bperf(1) is in man/, not installed either). That
# the daemon works under the unit's capabilities and limits is tools/check's run of the daemon's
# tests under tools/run-as-unit. Skips where systemd-analyze is missing.
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
echo "exposure $score (at most $MAX), verify clean"
