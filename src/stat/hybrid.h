/* SPDX-License-Identifier: GPL-2.0-only */
/* Hybrid PMUs at stat time: event names, the CPUs each copy counts on, --hybrid-merge. */
#ifndef BPERF_STAT_HYBRID_H
#define BPERF_STAT_HYBRID_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "result.h"

/* Without --hybrid-merge: each copy of a hybrid event prints as "cpu_core/cycles/". */
void hybrid_uniquify_names(struct evlist *evlist);

/* Whether e is counted on cpu: a hybrid copy on its PMU's CPUs only; anything else anywhere. */
bool hybrid_counts_on_cpu(const struct evsel *e, int cpu);

/*
 * After aggregation: with -A a hybrid copy has no line on the other PMU's CPUs; with merge
 * (--hybrid-merge) the copies' counts go to the first one's line, the others print none.
 */
void hybrid_fix_values(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		       enum aggr_mode mode, bool merge, struct counter_value *values);

#endif
