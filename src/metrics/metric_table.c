// SPDX-License-Identifier: GPL-2.0-only
/* The metric definitions: the CPU model's table or the generic ones, and perf's matching. */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metric_table.h"

#include "../util/common.h"
#include "topology.h"

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
	{ "CPUs_utilized", "Summary;Software", "task\\-clock / (duration_time * 1e3)", NULL,
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

const struct pmu_table *metric_table_model(void)
{
	/* stat -v printed "Using CPUID" already: the id is found once, so 0 prints nothing */
	return pmu_table_for_cpu(0);
}

static void def_from_entry(const struct pmu_table_entry *e, struct metric_def *def)
{
	*def = (struct metric_def){
		.name = e->metric_name,
		.groups = e->metric_group,
		.expr = e->metric_expr,
		.scale_unit = e->unit,
		.desc = e->desc,
		.constraint = e->metric_constraint,
		.pmu = e->pmu,
		.event = e->name,
	};
}

struct each_ctx {
	metric_def_fn fn;
	void *data;
	char **pmu_ids;		/* sys metrics: identifiers of the PMUs in sysfs */
	int nr_pmu_ids;
};

static int each_entry(const struct pmu_table_entry *e, void *data)
{
	struct each_ctx *c = data;
	struct metric_def def;

	if (!e->metric_expr)
		return 0;
	def_from_entry(e, &def);
	return c->fn(&def, c->data);
}

static int each_sys_entry(const struct pmu_table_entry *e, void *data)
{
	struct each_ctx *c = data;

	if (!e->metric_expr || !e->compat)
		return 0;
	for (int i = 0; i < c->nr_pmu_ids; i++)
		if (!strcmp(c->pmu_ids[i], e->compat))
			return each_entry(e, data);
	return 0;
}

/* The `identifier` files of the PMUs in sysfs, which sys metrics are matched against. */
static void read_pmu_ids(struct each_ctx *c)
{
	char *dir = xasprintf("%s/bus/event_source/devices", topology_sysfs_root());
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char *path, line[256];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s/identifier", dir, de->d_name);
		f = fopen(path, "re");
		free(path);
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			c->pmu_ids = xrealloc(c->pmu_ids, (c->nr_pmu_ids + 1) * sizeof(char *));
			c->pmu_ids[c->nr_pmu_ids++] = xstrdup(line);
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	free(dir);
}

int metric_table_for_each(const struct pmu_table *table, metric_def_fn fn, void *data)
{
	struct each_ctx c = { .fn = fn, .data = data };
	int ret;

	if (!table) {
		for (int i = 0; i < metric_table_size; i++) {
			ret = fn(&metric_table[i], data);
			if (ret)
				return ret;
		}
		return 0;
	}
	ret = pmu_table_for_each(table, each_entry, &c);
	if (ret || !pmu_tables_sys_size())
		return ret;
	read_pmu_ids(&c);
	if (c.nr_pmu_ids)
		ret = pmu_tables_for_each_sys(NULL, each_sys_entry, &c);
	for (int i = 0; i < c.nr_pmu_ids; i++)
		free(c.pmu_ids[i]);
	free(c.pmu_ids);
	return ret;
}

int metric_table_find(const struct pmu_table *table, const char *name, struct metric_def *def)
{
	struct pmu_table_entry e;
	int ret;

	if (!table) {
		for (int i = 0; i < metric_table_size; i++) {
			if (!strcasecmp(metric_table[i].name, name)) {
				*def = metric_table[i];
				return 0;
			}
		}
		return -ENOENT;
	}
	ret = pmu_table_find_metric(table, name, &e);
	if (!ret)
		def_from_entry(&e, def);
	return ret;
}

/* perf's match_metric(): only the first occurrence of list in n counts. */
static bool match_metric(const char *n, const char *list)
{
	size_t len = strlen(list);
	const char *m;

	if (!strcmp(list, "all"))
		return true;
	if (!n)
		return !strcasecmp(list, "No_group");
	m = strcasestr(n, list);
	if (!m)
		return false;
	return (m == n || m[-1] == ';' || m[-1] == ' ') && (m[len] == '\0' || m[len] == ';');
}

bool metric_def_matches(const struct metric_def *def, const char *name)
{
	return match_metric(def->groups, name) || match_metric(def->name, name);
}
