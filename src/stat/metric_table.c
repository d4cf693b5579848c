// SPDX-License-Identifier: GPL-2.0-only
/* The built-in metric definitions and their lookup by name or group. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metric_table.h"

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

static int cmp_str(const void *a, const void *b)
{
	return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

static void list_groups(FILE *out)
{
	const char *names[64];
	int nr = 0, i;

	for (i = 0; i < metric_table_size; i++) {
		const char *g = metric_table[i].groups;

		while (*g && nr < 64) {
			size_t n = strcspn(g, ";");
			int j;

			for (j = 0; j < nr; j++)
				if (strlen(names[j]) == n && !strncmp(names[j], g, n))
					break;
			if (j == nr)
				names[nr++] = strndup(g, n);
			g += n + (g[n] == ';');
		}
	}
	qsort(names, nr, sizeof(*names), cmp_str);
	fprintf(out, "\nMetric Groups:\n\n");
	for (i = 0; i < nr; i++) {
		fprintf(out, "%s\n", names[i]);
		free((void *)names[i]);
	}
}

void metric_table_list(FILE *out, bool groups)
{
	const char *names[64];
	int i, j, nr = 0;

	if (groups) {
		list_groups(out);
		return;
	}
	for (i = 0; i < metric_table_size && nr < 64; i++)
		names[nr++] = metric_table[i].name;
	qsort(names, nr, sizeof(*names), cmp_str);
	fprintf(out, "\nMetrics:\n\n");
	for (i = 0; i < nr; i++)
		for (j = 0; j < metric_table_size; j++)
			if (metric_table[j].name == names[i])
				fprintf(out, "  %s\n       [%s]\n", names[i], metric_table[j].desc);
}
