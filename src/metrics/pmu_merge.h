/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One event on several PMUs at stat time: the copies of a hardware event on hybrid PMUs
 * (cpu_core, cpu_atom) and the instances an uncore glob or alias matched (uncore_imc_0..N):
 * their names, the CPUs each counts on, and merging their lines into one.
 */
#ifndef BPERF_STAT_PMU_MERGE_H
#define BPERF_STAT_PMU_MERGE_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "result.h"

struct merge_opts {
	bool hybrid_merge;	/* --hybrid-merge */
	bool no_merge;		/* --no-merge */
	bool user_cpus;		/* -C: uncore events count on those CPUs, not their PMU's */
};

/*
 * Names and CPUs before opening, as perf: without --hybrid-merge each hybrid copy prints as
 * "cpu_core/cycles/"; with --no-merge each uncore instance as "uncore_imc_0/x/" or
 * "x [uncore_imc_0]"; with -C an uncore event forgets its PMU's cpumask.
 */
void pmu_merge_prepare(struct evlist *evlist, const struct merge_opts *opts);

/*
 * After aggregation: with -A an event has no line on CPUs its PMU does not count on; copies
 * and instances that merge give their counts to the first one's line, the others print none.
 */
void pmu_merge_values(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		      enum aggr_mode mode, const struct merge_opts *opts,
		      struct counter_value *values);

#endif
