/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events of a metric whose expression names other metrics (IPC = INST_RETIRED.ANY / CLKS,
 * CLKS = CPU_CLK_UNHALTED.THREAD), collected as perf 6.1's metricgroup.c does (__add_metric,
 * resolve_metric): every referenced metric's ids go into the root's one id set, so the events'
 * order is perf's.
 */
#ifndef BPERF_METRIC_REFS_H
#define BPERF_METRIC_REFS_H

#include "metric_expr.h"
#include "metric_ids.h"

/*
 * The metric an id names, found as perf's metricgroup__find_metric() (the first table entry of
 * that name, case-insensitive): 0 with its name and expression, or -ENOENT when the id is an
 * event.
 */
typedef int (*metric_find_fn)(void *priv, const char *id, const char **name, const char **expr);

/* The metrics a root refers to, directly or not, in the order perf adds them. */
struct metric_refs {
	const char **names;	/* as find gave them: the table's strings */
	const char **exprs;
	int nr;
};

/*
 * Adds the ids of metric name (expression expr) to *ids (created when NULL) and, one level after
 * the other, those of every metric they name, which leave the set and go to refs (each once).
 * Returns 0, the expression's error, or -ELOOP after perf's "failed: recursion detected for %s".
 */
int metric_root_ids(const char *name, const char *expr, metric_find_fn find, void *priv,
		    const struct metric_expr_ctx *ctx, struct metric_ids **ids,
		    struct metric_refs *refs);
void metric_refs_free(struct metric_refs *refs);

/*
 * For a lookup of a root metric's ids: when id is a referenced metric (by its exact name, as
 * perf keys references), its expression's value with ctx (whose lookup comes back here for the
 * metric's own ids). Returns 0 with *value, the expression's error (an id then NaN, as perf),
 * or -ENOENT when id is no reference: an event for the caller to answer.
 */
int metric_refs_value(const struct metric_refs *refs, const char *id,
		      const struct metric_expr_ctx *ctx, double *value);

#endif
