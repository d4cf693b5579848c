/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf 6.1's topdown metrics (stat-shadow.c): on the older events' lines (topdown-total-slots,
 * ...) the level 1 split of the pipeline's slots computed from them; on the perf-metrics events'
 * lines (topdown-retiring, ...) each event's share of their sum, and at level 2 the sub-splits.
 * perf knows the events by their printed names.
 */
#ifndef BPERF_TOPDOWN_METRICS_H
#define BPERF_TOPDOWN_METRICS_H

#include <stdbool.h>

#include "metrics.h"

enum topdown_kind {
	TD_NONE,
	TD_TOTAL_SLOTS,
	TD_SLOTS_ISSUED,
	TD_SLOTS_RETIRED,
	TD_FETCH_BUBBLES,
	TD_RECOVERY_BUBBLES,
	TD_RETIRING,
	TD_BAD_SPEC,
	TD_FE_BOUND,
	TD_BE_BOUND,
	TD_HEAVY_OPS,
	TD_BR_MISPREDICT,
	TD_FETCH_LAT,
	TD_MEM_BOUND,
	TD_NR,
};

/*
 * The kind of the event printed as name (TD_NONE for any other): the kind's name itself, or a
 * name holding both it and the event's PMU (pmu: NULL for events not made from a sysfs PMU), as
 * "cpu_core/topdown-retiring/".
 */
enum topdown_kind topdown_kind_of(const char *name, const char *pmu);

/* What the metrics of one event divide: per kind, the mean of its events in the aggregate. */
struct topdown_bases {
	double avg[TD_NR];
	unsigned int level;		/* --td-level: level 2 metrics only above 1 */
	bool no_recovery_bubbles;	/* the cpu PMU lacks topdown-recovery-bubbles */
};

/*
 * The metrics on the line of an event of kind: fills out[] and returns how many. 0 when perf
 * has none for it here (a perf-metrics event with too few of the level 1 values, a level 2 one
 * below level 2): perf's later rules then apply.
 */
int topdown_metrics(enum topdown_kind kind, const struct topdown_bases *b,
		    struct metric_line *out, int max);

#endif
