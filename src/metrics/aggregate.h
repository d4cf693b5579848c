/* SPDX-License-Identifier: GPL-2.0-only */
/* Turns per-(CPU, thread) raw counts into the per-aggregate values printers show. */
#ifndef BPERF_AGGREGATE_H
#define BPERF_AGGREGATE_H

#include <stdbool.h>

#include "../counters/counter.h"
#include "result.h"
#include "../util/target.h"

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

/* Topology ids by CPU number for --per-socket/die/core/node; -1 where unknown. */
struct cpu_topology {
	int nr;			/* CPU numbers 0..nr-1 are described */
	const int *socket;
	const int *die;
	const int *core;
	const int *node;
};

/*
 * The aggregates of a topology mode over cpus, sorted as perf sorts them, and for each CPU
 * index the aggregate it belongs to (*cpu_aggr, [cpus->nr]).
 */
int aggr_ids_build_topology(enum aggr_mode mode, const struct cpu_map *cpus,
			    const struct cpu_topology *topo, struct aggr_id **ids, int **cpu_aggr);

/* aggregate_counts() with CPU index -> aggregate given by cpu_aggr (topology modes). */
void aggregate_counts_mapped(const struct counter *counters, int nr_counters,
			     const struct raw_count *const *prev, enum aggr_mode mode, int nr_aggr,
			     const int *cpu_aggr, bool scale, struct counter_value *values);

#endif
