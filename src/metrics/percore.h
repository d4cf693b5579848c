/* SPDX-License-Identifier: GPL-2.0-only */
/* The percore event term under -A: each CPU counts for its whole physical core. */
#ifndef BPERF_PERCORE_H
#define BPERF_PERCORE_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "result.h"

/*
 * values[] as aggregate_counts() left them for -A (ids with socket, die and core filled):
 * each percore event's value on a CPU becomes the sum over the CPUs of its core; without
 * show_thread only the first CPU of each core keeps a line, printed as the core.
 */
void percore_sum(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		 bool show_thread, struct counter_value *values);

/* Whether any event has the percore term (then -A needs the topology). */
bool evlist_has_percore(const struct evlist *evlist);

#endif
