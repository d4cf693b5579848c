/* SPDX-License-Identifier: GPL-2.0-only */
/* Turns per-(CPU, thread) raw counts into the per-aggregate values printers show. */
#ifndef BPERF_AGGREGATE_H
#define BPERF_AGGREGATE_H

#include <stdbool.h>

#include "../counters/counter.h"
#include "result.h"
#include "target.h"

/* The aggregates of a mode: one global, one per CPU (-A) or one per thread. */
int aggr_ids_build(enum aggr_mode mode, const struct target *target, struct aggr_id **ids);

/*
 * Sums counts[] of every counter into values[ev * nr_aggr + a]; with scale,
 * counts that ran part of the time are scaled by enabled/running as perf
 * does. prev (may be NULL) is subtracted first: the deltas of -I intervals.
 */
void aggregate_counts(const struct counter *counters, int nr_counters,
		      const struct raw_count *const *prev, enum aggr_mode mode, int nr_aggr,
		      bool scale, struct counter_value *values);

#endif
