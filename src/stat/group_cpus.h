/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's evlist__check_cpu_maps(): a group whose events count on different CPUs (an uncore PMU's
 * cpumask beside a per-CPU event, as in skylakex's C3_Core_Residency) cannot be opened as one
 * group, so perf warns and counts its events ungrouped. bperf does the same.
 */
#ifndef BPERF_STAT_GROUP_CPUS_H
#define BPERF_STAT_GROUP_CPUS_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "../util/target.h"

/* What is counted, as far as the events' CPUs go. */
struct group_cpus_target {
	bool system_wide;	/* -a, or perf's system-wide default (no workload, or every */
				/* event needing a CPU) */
	const char *cpu_list;	/* -C */
};

/* Ungroups every group of evlist whose members' CPUs differ from the leader's, with perf's
 * warning (and, at -v, each side's CPU list). */
void evlist_check_group_cpus(struct evlist *evlist, const struct group_cpus_target *t,
			     int verbose);

#endif
