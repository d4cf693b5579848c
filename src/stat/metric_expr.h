/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Metric expressions as perf's metric tables write them: numbers, event names (`\` escapes the
 * next character, `@` stands for `/`), + - * / %, unary minus, parentheses, < > comparisons,
 * `A if COND else B`, min(a,b), max(a,b) and d_ratio(a,b) (a / b, 0 when b is 0).
 */
#ifndef BPERF_METRIC_EXPR_H
#define BPERF_METRIC_EXPR_H

/*
 * The value of one event name: 0 with *value set, or -errno (the expression then fails with
 * that error). ctx is the caller's.
 */
typedef int (*metric_expr_lookup_fn)(void *ctx, const char *id, double *value);

/*
 * Evaluates expr. Returns 0 with *result, -EINVAL for a syntax error, -EDOM for a division
 * (or %) by zero, or the lookup's error.
 */
int metric_expr_eval(const char *expr, metric_expr_lookup_fn lookup, void *ctx, double *result);

/*
 * The event names expr uses, unescaped, each once, in order of first appearance (*ids is a
 * NULL-terminated array to free with metric_expr_ids_free). Returns their number or -EINVAL.
 */
int metric_expr_ids(const char *expr, char ***ids);
void metric_expr_ids_free(char **ids);

#endif
