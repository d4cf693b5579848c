/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between `bperf list`'s files: its options and the PMU events section. */
#ifndef BPERF_EVENTS_LIST_INTERNAL_H
#define BPERF_EVENTS_LIST_INTERNAL_H

#include <stdbool.h>

struct list_opts {
	bool name_only;		/* --raw-dump */
	bool pager;		/* perf's pager_in_use(): blank lines between sections */
	bool quiet;		/* --no-desc */
	bool long_desc;		/* -v */
	bool details;		/* --details */
	bool deprecated;	/* --deprecated */
	const char *cpu_pmu;	/* --cputype: the one hybrid PMU listed, NULL for all */
	int columns;		/* perf's pager_get_columns() */
	const char *sysfs_root;
	const char *tracefs_root;
};

/* The PMU events section (sysfs and table aliases) as perf 6.1's print_pmu_events. */
void list_print_pmus(const char *glob, const struct list_opts *o);

#endif
