// SPDX-License-Identifier: GPL-2.0-only
/* The built-in metric definitions and their lookup by name or group. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metric_table.h"

#include "../common.h"

const struct metric_def metric_table[] = {
	{ "IPC", "Summary;Pipeline", "instructions / cycles", NULL, "Instructions per cycle" },
	{ "CPI", "Summary;Pipeline", "cycles / instructions", NULL, "Cycles per instruction" },
	{ "Branch_Miss_Rate", "Branches", "branch\\-misses / branches", "100%",
	  "Share of branch instructions mispredicted" },
	{ "Cache_Miss_Rate", "Cache", "cache\\-misses / cache\\-references", "100%",
	  "Share of cache references that missed" },
	{ "L1D_Miss_Rate", "Cache", "L1\\-dcache\\-load\\-misses / L1\\-dcache\\-loads", "100%",
	  "Share of L1 data cache loads that missed" },
	{ "L1I_Miss_Rate", "Cache", "L1\\-icache\\-load\\-misses / L1\\-icache\\-loads", "100%",
	  "Share of L1 instruction cache loads that missed" },
	{ "LLC_Miss_Rate", "Cache", "LLC\\-load\\-misses / LLC\\-loads", "100%",
	  "Share of last level cache loads that missed" },
	{ "DTLB_Miss_Rate", "TLB", "dTLB\\-load\\-misses / dTLB\\-loads", "100%",
	  "Share of data TLB loads that missed" },
	{ "ITLB_Miss_Rate", "TLB", "iTLB\\-load\\-misses / iTLB\\-loads", "100%",
	  "Share of instruction TLB loads that missed" },
	{ "Frontend_Stall_Ratio", "Pipeline", "stalled\\-cycles\\-frontend / cycles", "100%",
	  "Share of cycles the frontend stalled" },
	{ "Backend_Stall_Ratio", "Pipeline", "stalled\\-cycles\\-backend / cycles", "100%",
	  "Share of cycles the backend stalled" },
	{ "CPUs_utilized", "Summary;Software", "task\\-clock / (duration_time / 1e6)", NULL,
	  "CPUs used on average over the elapsed time" },
	{ "GHz", "Summary", "cycles / (task\\-clock * 1e6)", NULL,
	  "Cycles per nanosecond of task clock" },
	{ "CS_per_sec", "Software", "context\\-switches / (task\\-clock / 1e3)", NULL,
	  "Context switches per second of task clock" },
	{ "Faults_per_sec", "Software", "page\\-faults / (task\\-clock / 1e3)", NULL,
	  "Page faults per second of task clock" },
	{ "Minor_Fault_Ratio", "Software", "minor\\-faults / page\\-faults", "100%",
	  "Share of page faults that were minor" },
};

const int metric_table_size = sizeof(metric_table) / sizeof(metric_table[0]);

bool metric_def_matches(const struct metric_def *def, const char *name)
{
	const char *g = def->groups;
	size_t len = strlen(name);

	if (!strcasecmp(def->name, name))
		return true;
	while (g && *g) {
		size_t n = strcspn(g, ";");

		if (n == len && !strncasecmp(g, name, n))
			return true;
		g += n + (g[n] == ';');
	}
	return false;
}

/* perf's strlist: sorted with strcmp, each string once. */
struct name_set {
	const char *names[64];
	int nr;
};

static void name_set_add(struct name_set *set, const char *name)
{
	int i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->names[i], name))
			return;
	if (set->nr < (int)(sizeof(set->names) / sizeof(set->names[0])))
		set->names[set->nr++] = name;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static const char *metric_desc(const char *name)
{
	int i;

	for (i = 0; i < metric_table_size; i++)
		if (!strcmp(metric_table[i].name, name))
			return metric_table[i].desc;
	return "";
}

/* perf's metricgroup__print_strlist(): one line of names, or each with its description. */
static void print_metric_names(FILE *out, struct name_set *set, bool raw)
{
	int i;

	qsort(set->names, set->nr, sizeof(set->names[0]), cmp_str);
	for (i = 0; i < set->nr; i++) {
		if (raw)
			fprintf(out, "%s%s", i ? " " : "", set->names[i]);
		else
			fprintf(out, "  %s\n       [%s]\n", set->names[i],
				metric_desc(set->names[i]));
	}
	if (raw)
		fputc('\n', out);
}

struct metric_group {
	char *name;
	struct name_set metrics;
};

/* The group of that name in groups[*nr], added if new; NULL when the array is full. */
static struct metric_group *group_get(struct metric_group *groups, int *nr, const char *name)
{
	int i;

	for (i = 0; i < *nr; i++)
		if (!strcmp(groups[i].name, name))
			return &groups[i];
	if (*nr == 64)
		return NULL;
	groups[*nr].name = xstrdup(name);
	groups[*nr].metrics.nr = 0;
	return &groups[(*nr)++];
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct metric_group *)a)->name,
		      ((const struct metric_group *)b)->name);
}

/*
 * perf's metricgroup__print(): filter keeps the groups whose name holds it (perf's strstr, also
 * for the '*glob*' of `list GLOB`); a metric without a group is in "No_group".
 */
void metric_table_print(FILE *out, bool metrics, bool groups, const char *filter, bool raw)
{
	struct metric_group group_list[64];
	struct name_set metric_list = { .nr = 0 };
	int nr_groups = 0, i;

	for (i = 0; i < metric_table_size; i++) {
		char *all = xstrdup(metric_table[i].groups ? metric_table[i].groups : "");
		char *rest = all, *g;
		struct metric_group *grp;

		while ((g = strsep(&rest, ";"))) {
			g += strspn(g, " \t\n");
			if (!*g)
				g = "No_group";
			if (filter && !strstr(g, filter))
				continue;
			grp = groups ? group_get(group_list, &nr_groups, g) : NULL;
			if (!groups)
				name_set_add(&metric_list, metric_table[i].name);
			else if (grp)
				name_set_add(&grp->metrics, metric_table[i].name);
		}
		free(all);
	}
	qsort(group_list, nr_groups, sizeof(group_list[0]), cmp_group);
	if (!filter || nr_groups) {
		if (groups && !raw)
			fprintf(out, "\nMetric Groups:\n\n");
		else if (metrics && !raw)
			fprintf(out, "\nMetrics:\n\n");
	}
	for (i = 0; i < nr_groups; i++) {
		if (groups)
			fprintf(out, "%s%s%s", group_list[i].name, metrics && !raw ? ":" : "",
				raw ? " " : "\n");
		if (metrics)
			print_metric_names(out, &group_list[i].metrics, raw);
		free(group_list[i].name);
	}
	if (!groups)
		print_metric_names(out, &metric_list, raw);
}
