#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The Prometheus rules that ship with bperf (tools/prometheus/bperf.rules.yml): `promtool check
# rules` (syntax, PromQL, templates; every lint fatal) and `promtool test rules` of
# tests/prometheus/bperf.rules.test.yml, synthetic series of two daemons with every rule's and
# alert's exact result (multiplexed and not, a daemon down, none at all). Every record and alert
# of the rules file must be one of the test's expressions. Skips where promtool is missing (QEMU
# guests).
# parallel: no BPF, no global setting, no timing (tests/run.sh runs it beside another).
. "$(dirname "$0")/../lib.sh"

require_cmd promtool
RULES=$REPO_TOP/tools/prometheus/bperf.rules.yml
TESTS=$REPO_TOP/tests/prometheus/bperf.rules.test.yml
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

promtool check rules --lint=all --lint-fatal "$RULES" >"$TMP/check" 2>&1 ||
	fail "promtool check rules: $(cat "$TMP/check")"
grep -q 'SUCCESS: [1-9][0-9]* rules found' "$TMP/check" || fail "promtool: $(cat "$TMP/check")"

# promtool finds rule_files relative to the test file
(cd "$(dirname "$TESTS")" && promtool test rules "$(basename "$TESTS")") >"$TMP/test" 2>&1 ||
	fail "promtool test rules: $(cat "$TMP/test")"

# every rule is tested: each record as an expr of promql_expr_test, each alert as an alertname
untested=()
while read -r kind name; do
	case $kind in
	record:) grep -qE "^ +- expr: $name\$" "$TESTS" || untested+=("$name") ;;
	alert:) grep -qE "^ +- alertname: $name\$" "$TESTS" || untested+=("$name") ;;
	esac
done < <(grep -E '^ +- (record|alert): ' "$RULES" | sed 's/^ *- //')
[ ${#untested[@]} -eq 0 ] || fail "rules with no test in $TESTS: ${untested[*]}"
n=$(grep -cE '^ +- (record|alert): ' "$RULES")
echo "promtool: $n rules checked, each tested with exact results"
