/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What -M adds, decided as perf 6.1's metricgroup.c decides it, before any event is parsed:
 * which metrics (names and groups matched as perf, references resolved into the root's ids,
 * duplicates kept, the list sorted by number of events), and which event strings they count
 * from (a combined ungrouped list for constrained metrics, a weak group per metric, or an
 * earlier metric's group that holds all of its events), each string as perf writes it, with
 * metric-id terms: `{INST_RETIRED.ANY/metric-id=INST_RETIRED.ANY/,...}:W,duration_time`.
 */
#ifndef BPERF_METRIC_PLAN_H
#define BPERF_METRIC_PLAN_H

#include <stdbool.h>

#include "metric_expr.h"
#include "metric_ids.h"
#include "metric_refs.h"
#include "metric_table.h"

struct metric_plan_opts {
	const struct pmu_table *table;	/* NULL: bperf's generic metrics */
	bool no_group;			/* --metric-no-group */
	bool no_merge;			/* --metric-no-merge */
	bool nmi_watchdog;		/* /proc/sys/kernel/nmi_watchdog is not 0 */
	struct metric_literals *literals; /* for #SMT_on, #core_wide, ... in the ids */
	int verbose;			/* perf's -v "metric expr %s for %s" lines */
};

struct metric_plan_metric {
	struct metric_def def;
	char *modifier;			/* "u" of -M IPC:u, or NULL */
	struct metric_ids *ids;		/* its events (and its references'), perf's order */
	struct metric_refs refs;
	bool has_constraint;		/* ungrouped: --metric-no-group or NO_NMI_WATCHDOG */
	int events;			/* index in metric_plan.events of what it counts from */
	int own_events;			/* the string made for it, or -1 */
	int shares;			/* the earlier metric whose string holds its ids, or -1 */
	char *leader_id;		/* the id of its first event there: where it is printed */
};

struct metric_plan_events {
	char *str;			/* what parse_events() gets */
	char **ids;			/* the ids of str's events in order (tool events last) */
	int nr_ids;
	const char *modifier;
};

struct metric_plan {
	struct metric_plan_metric *metrics;	/* in perf's list order */
	int nr;
	struct metric_plan_events *events;	/* the combined one first, then by metric */
	int nr_events;
};

/*
 * Plans the -M list `list` ("IPC,TopdownL1:u,..."). Prints perf's messages: "Cannot find metric
 * or group `%s'" (returns -EINVAL), "Splitting metric group %s into standalone metrics." and
 * the NMI watchdog footer. Returns 0 or -errno; the plan is freed on error.
 */
int metric_plan_build(struct metric_plan *plan, const char *list,
		      const struct metric_plan_opts *o);
void metric_plan_free(struct metric_plan *plan);

/* perf's metric-id encoding of an id for the event parser: , - = @ become !0 !1 !2 !3. */
char *metric_id_encode(const char *id);
/* perf's evsel name for a metric event: @ to /, the -M modifier appended. */
char *metric_id_evsel_name(const char *id, const char *modifier);
/* The tool events perf counts in user space: duration_time, user_time, system_time. */
bool metric_id_is_tool(const char *id);

#endif
