/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metrics -M and `bperf list` know: the CPU model's perf 6.1 table (pmu_tables.h) when perf
 * has one for this CPU, else bperf's generic metrics over perf's generic events (the same on
 * every CPU). A table's metrics are read in table order, which is perf's -M order.
 */
#ifndef BPERF_METRIC_TABLE_H
#define BPERF_METRIC_TABLE_H

#include <stdbool.h>
#include <stdio.h>

#include "../events/pmu_tables.h"

struct metric_def {
	const char *name;
	const char *groups;	/* ';'-separated metric groups; NULL: none (perf's No_group) */
	const char *expr;	/* see metric_expr.h */
	/* perf's ScaleUnit: "100%" multiplies by 100 and prints "%"; NULL: plain ratio */
	const char *scale_unit;
	const char *desc;
	const char *constraint;	/* "NO_NMI_WATCHDOG" or NULL */
	const char *pmu;	/* hybrid tables: cpu_core or cpu_atom; NULL otherwise */
	const char *event;	/* the event name when the entry is an event too (not listed) */
};

/* bperf's generic metrics, used where the CPU has no table. */
extern const struct metric_def metric_table[];
extern const int metric_table_size;

/* The table of this CPU's model (PERF_CPUID honoured), or NULL: the generic metrics. */
const struct pmu_table *metric_table_model(void);

/*
 * Calls fn for each metric of table (NULL: the generic ones) in table order, then, for a table,
 * each metric of perf's sys tables whose Compat is the identifier of a PMU in sysfs; stops at and
 * returns fn's first non-zero return.
 */
typedef int (*metric_def_fn)(const struct metric_def *def, void *data);
int metric_table_for_each(const struct pmu_table *table, metric_def_fn fn, void *data);

/*
 * perf's metricgroup__find_metric(): the first metric of table (NULL: generic) named name,
 * ignoring case: 0 with *def, or -ENOENT.
 */
int metric_table_find(const struct pmu_table *table, const char *name, struct metric_def *def);

/*
 * perf's match_pe_metric(): does name (a -M item) pick def? "all" picks every metric; otherwise
 * name must be, ignoring case, the metric's name or one of its groups, found as perf finds it
 * (its first occurrence, at the start or after ';' or ' ', ending at the end or at ';'); a
 * metric without groups is in "No_group".
 */
bool metric_def_matches(const struct metric_def *def, const char *name);

struct metric_list_opts {
	bool metrics;		/* list the metrics ... */
	bool groups;		/* ... the groups, or both: each group with its metrics */
	const char *filter;	/* keep the groups whose name holds this (strstr), or NULL */
	bool raw;		/* --raw-dump: names only, on one line */
	bool details;		/* --details: each metric's expression under its description */
};

/* `bperf list` of the metrics of table (NULL: generic) byte for byte as perf's. 0 or -errno. */
int metric_table_list(FILE *out, const struct pmu_table *table, const struct metric_list_opts *o);

/* metric_table_list() of this CPU's metrics, without details. */
void metric_table_print(FILE *out, bool metrics, bool groups, const char *filter, bool raw);

#endif
