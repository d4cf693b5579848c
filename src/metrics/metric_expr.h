/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf 6.1's metric expression language (util/expr.l, expr.y), with its two uses: the value of
 * a metric from its events' values, and the set of events a metric needs (perf's
 * expr__find_ids, which already drops what constants and #literals make unused).
 *
 * Tokens: numbers (`12`, `1.5`, `.5`, `1e-3`; no hex, no `e+`), ids (letters, digits,
 * `_ . : @ ?`, and `\-` `\,` `\=` for those characters; `?` becomes the runtime number),
 * `#literals`, the keywords if else min max d_ratio source_count, the operators
 * | ^ & < > + - * / % ( ) , and nothing else: other characters are skipped.
 * Precedence, loosest first: `A if COND else B` (only at the top and inside parentheses),
 * |, ^, &, < >, + -, * / %, unary minus; all left-associative.
 * Values: | & ^ % work on the operands cut to long; a / or % by exactly 0 anywhere (even in a
 * branch not taken: perf computes both) fails the whole expression; d_ratio(a, b) is 0 when b
 * is 0; an id without a value is NaN; a NaN condition counts as true.
 */
#ifndef BPERF_METRIC_EXPR_H
#define BPERF_METRIC_EXPR_H

#include <stdbool.h>

#include "metric_ids.h"
#include "metric_literals.h"

struct metric_expr_ctx {
	/*
	 * The value of an id, or with source_count its number of sources (source_count(ID)):
	 * 0 with *value, or -errno, which makes the id NaN as in perf. Unused for ids.
	 */
	int (*lookup)(void *priv, const char *id, bool source_count, double *value);
	void *priv;
	/* #literals; NULL: every literal is unrecognized */
	struct metric_literals *literals;
	/* what `?` in an id stands for: perf 6.1 on x86 and arm64 always uses 0 */
	int runtime;
};

/*
 * The value of expr. Returns 0 with *result (possibly NaN), -EINVAL for a syntax error or an
 * unusable literal or number, -EDOM for a division (or %) by zero.
 */
int metric_expr_eval(const char *expr, const struct metric_expr_ctx *ctx, double *result);

/*
 * perf's expr__find_ids(): adds the ids expr needs to *ids (created when NULL) as perf's
 * ids__union(expr's ids, *ids) does, so that their iteration order is perf's. #literals are
 * evaluated now (so #SMT_on or #core_wide choose branches), constants are folded, and ids only
 * a constant-false branch or d_ratio(x, 0) would use are left out. Returns 0, or -errno as
 * metric_expr_eval() (x / 0 fails here too), leaving *ids as it was.
 */
int metric_expr_find_ids(const char *expr, const struct metric_expr_ctx *ctx,
			 struct metric_ids **ids);

/*
 * Every id expr names, each once, in order of first appearance (*ids is a NULL-terminated array
 * to free with metric_expr_ids_free): the event order of bperf's own metrics. Returns their
 * number or -errno.
 */
int metric_expr_ids(const char *expr, char ***ids);
void metric_expr_ids_free(char **ids);

#endif
