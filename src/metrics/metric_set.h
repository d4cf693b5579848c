/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metrics of -M: planned as perf 6.1 plans them (metric_plan.h), their event strings parsed
 * and appended to the evlist in perf's order, and each metric evaluated per aggregate from the
 * counts of its events (and of the metrics it refers to).
 */
#ifndef BPERF_METRIC_SET_H
#define BPERF_METRIC_SET_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "metric_literals.h"
#include "metric_refs.h"
#include "metric_table.h"

struct metric_instance {
	struct metric_def def;	/* its strings are the table's */
	char *name;		/* as printed: "IPC", or "IPC:u" for -M IPC:u */
	char **ids;		/* its events' ids, NULL-terminated, perf's order */
	int *evs;		/* [id]: the evlist index counting it */
	/* [id]: its evsels, one per PMU instance (perf's source_count); NULL: one each */
	int *sources;
	int leader;		/* evlist index of the line the metric prints on */
	char *unit;		/* what perf prints after the value: "IPC", "%  Branch_Miss_Rate" */
	double scale;		/* from the ScaleUnit, 1 without */
	struct metric_refs refs;	/* the metrics its expression names */
};

struct metric_set {
	struct metric_instance *metrics;	/* in printing order: perf's last attached first */
	int nr;
	bool no_group;		/* --metric-no-group */
	bool no_merge;		/* --metric-no-merge */
	bool system_wide;	/* for #core_wide: -a */
	const char *cpu_list;	/* -C */
	struct metric_sys_literals *literals;
};

/*
 * Adds the metrics of a -M list (names or groups, comma-separated, perf's matching, each with
 * an optional :modifier) and their events, appended to evlist in perf's order. An unknown name
 * prints perf's "Cannot find metric or group" line; an event string that does not parse prints
 * perf's error: nothing of the list is added then. Returns 0 or -errno.
 */
int metric_set_add(struct metric_set *set, const char *list, struct evlist *evlist,
		   const struct parse_events_ctx *ctx);

/*
 * Evaluates m with value(ctx, evlist index, &v) giving each event's (unit-scaled) count, or
 * -errno when it has none. Returns 0 with *out already multiplied by the ScaleUnit, or -errno.
 */
int metric_instance_eval(const struct metric_instance *m, const struct metric_set *set,
			 int (*value)(void *ctx, int ev, double *v), void *ctx, double *out);

/* Whether a metric of set (NULL: none) counts evlist entry ev (perf's "metric leader"). */
bool metric_set_counts_event(const struct metric_set *set, int ev);

/* perf's ScaleUnit split, in the C locale whatever LC_NUMERIC says: "9.765625e-4KB". */
void metric_scale_unit(const char *scale_unit, double *scale, const char **unit);

void metric_set_free(struct metric_set *set);

#endif
