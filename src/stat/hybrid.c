// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hybrid machines (cpu_core and cpu_atom PMUs): a hardware event is one evsel per PMU (see
 * events/event_add.c). perf prints each as "pmu/event/", on its PMU's CPUs only, or, with
 * --hybrid-merge, one line with the counts of all PMUs summed under the event's name.
 */
#include "hybrid.h"

#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "target.h"

void hybrid_uniquify_names(struct evlist *evlist)
{
	int i;

	for (i = 0; i < evlist->nr; i++) {
		struct evsel *e = &evlist->entries[i];
		const char *slash;
		char *name;

		if (!e->hybrid || !e->name || !e->pmu_name ||
		    !strncmp(e->name, e->pmu_name, strlen(e->pmu_name)))
			continue;
		/* perf's rule: "x/terms/" keeps its terms under the PMU, a bare name gets slashes */
		slash = strchr(e->name, '/');
		name = slash ? xasprintf("%s%s", e->pmu_name, slash) :
			       xasprintf("%s/%s/", e->pmu_name, e->name);
		free(e->name);
		e->name = name;
	}
}

static bool cpu_in_map(const struct cpu_map *map, int cpu)
{
	int i;

	for (i = 0; i < map->nr; i++)
		if (map->cpus[i] == cpu)
			return true;
	return false;
}

bool hybrid_counts_on_cpu(const struct evsel *e, int cpu)
{
	struct cpu_map pmu_cpus;
	bool found;

	if (!e->hybrid || !e->cpumask || cpu < 0 || cpu_map_parse(&pmu_cpus, e->cpumask))
		return true;
	found = cpu_in_map(&pmu_cpus, cpu);
	cpu_map_free(&pmu_cpus);
	return found;
}

/* -A: no line for a hybrid copy on a CPU of another PMU. */
static void hide_other_cpus(const struct evsel *e, const struct aggr_id *ids, int nr_aggr,
			    struct counter_value *row)
{
	struct cpu_map pmu_cpus;
	int a;

	if (!e->cpumask || cpu_map_parse(&pmu_cpus, e->cpumask))
		return;
	for (a = 0; a < nr_aggr; a++)
		row[a].absent |= ids[a].cpu >= 0 && !cpu_in_map(&pmu_cpus, ids[a].cpu);
	cpu_map_free(&pmu_cpus);
}

/* Folds a copy's line into another's: -A's CPU lines are there if either copy counts there. */
static void add_row(struct counter_value *to, struct counter_value *from, int nr_aggr)
{
	int a;

	for (a = 0; a < nr_aggr; a++) {
		to[a].count += from[a].count;
		to[a].ena += from[a].ena;
		to[a].run += from[a].run;
		to[a].absent &= from[a].absent;
		from[a].absent = true;
	}
}

/* The same event on another hybrid PMU, as perf's collect_all_aliases() finds it. */
static bool hybrid_alias(const struct evsel *a, const struct evsel *b)
{
	return a->hybrid && b->hybrid && a->name && b->name && !strcmp(a->name, b->name) &&
	       a->cgroup == b->cgroup && strcmp(a->pmu_name, b->pmu_name);
}

void hybrid_fix_values(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		       enum aggr_mode mode, bool merge, struct counter_value *values)
{
	bool *merged;
	int i, k;

	if (mode == AGGR_NONE)
		for (i = 0; i < evlist->nr; i++)
			if (evlist->entries[i].hybrid)
				hide_other_cpus(&evlist->entries[i], ids, nr_aggr,
						&values[i * nr_aggr]);
	if (!merge)
		return;
	merged = xzalloc(evlist->nr * sizeof(*merged));
	for (i = 0; i < evlist->nr; i++) {
		if (!evlist->entries[i].hybrid || merged[i])
			continue;
		for (k = i + 1; k < evlist->nr; k++) {
			if (merged[k] || !hybrid_alias(&evlist->entries[i], &evlist->entries[k]))
				continue;
			merged[k] = true;
			add_row(&values[i * nr_aggr], &values[k * nr_aggr], nr_aggr);
		}
	}
	free(merged);
}
