/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The metrics of -M: each resolved to built-in definitions, its events added to the evlist
 * (grouped and shared as perf's --metric-no-group / --metric-no-merge say), and evaluated
 * per aggregate from the counts.
 */
#ifndef BPERF_METRIC_SET_H
#define BPERF_METRIC_SET_H

#include <stdbool.h>

#include "../events/evlist.h"
#include "metric_table.h"

struct metric_instance {
	struct metric_def def;	/* its strings are the table's */
	char **ids;		/* the expression's event names, NULL-terminated */
	int *evs;		/* [id]: the evlist index counting it */
	int leader;		/* evlist index of the line the metric prints on */
	char *unit;		/* what perf prints after the value: "IPC", "%  Branch_Miss_Rate" */
	double scale;		/* from the ScaleUnit, 1 without */
};

struct metric_set {
	struct metric_instance *metrics;
	int nr;
	bool no_group;		/* --metric-no-group */
	bool no_merge;		/* --metric-no-merge */
};

/*
 * Adds the metrics of a -M list (names or groups, comma-separated, case-insensitive) and
 * their events. An unknown name prints perf's "Cannot find metric or group" line and adds
 * nothing from the list. Returns 0 or -errno.
 */
int metric_set_add(struct metric_set *set, const char *list, struct evlist *evlist,
		   const struct parse_events_ctx *ctx);

/*
 * Evaluates m with value(ctx, evlist index, &v) giving each event's (unit-scaled) count, or
 * -errno when it has none. Returns 0 with *out already multiplied by the ScaleUnit, or -errno.
 */
int metric_instance_eval(const struct metric_instance *m,
			 int (*value)(void *ctx, int ev, double *v), void *ctx, double *out);

void metric_set_free(struct metric_set *set);

#endif
