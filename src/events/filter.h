/* SPDX-License-Identifier: GPL-2.0-only */
/* --filter: the filter strings events carry until they are opened. */
#ifndef BPERF_EVENTS_FILTER_H
#define BPERF_EVENTS_FILTER_H

#include "evlist.h"

/*
 * Adds filter to the events evlist->entries[first..] (those of the last -e), last first, as
 * perf does: a tracepoint's filters are joined with "(a) && (b)", an address filter of a PMU
 * that has nr_addr_filters with ",". Returns 0, or -EINVAL after perf's message (no event
 * given, or a PMU without address filters).
 */
int evlist_add_filter(struct evlist *evlist, int first, const char *filter,
		      const char *sysfs_root);

#endif
