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

bool hybrid_counts_on_cpu(const struct evsel *e, int cpu)
{
	struct cpu_map pmu_cpus;
	bool found = false;
	int i;

	if (!e->hybrid || !e->cpumask || cpu < 0 || cpu_map_parse(&pmu_cpus, e->cpumask))
		return true;
	for (i = 0; i < pmu_cpus.nr && !found; i++)
		found = pmu_cpus.cpus[i] == cpu;
	cpu_map_free(&pmu_cpus);
	return found;
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
	bool *merged = xzalloc(evlist->nr * sizeof(*merged));
	int i, k, a;

	for (i = 0; i < evlist->nr; i++) {
		const struct evsel *e = &evlist->entries[i];
		struct counter_value *row = &values[i * nr_aggr];

		if (!e->hybrid)
			continue;
		if (mode == AGGR_NONE)
			for (a = 0; a < nr_aggr; a++)
				row[a].absent |= !hybrid_counts_on_cpu(e, ids[a].cpu);
		if (!merge || merged[i])
			continue;
		for (k = i + 1; k < evlist->nr; k++) {
			if (merged[k] || !hybrid_alias(e, &evlist->entries[k]))
				continue;
			merged[k] = true;
			if (mode == AGGR_NONE)
				for (a = 0; a < nr_aggr; a++)
					values[k * nr_aggr + a].absent |=
						!hybrid_counts_on_cpu(&evlist->entries[k], ids[a].cpu);
			add_row(row, &values[k * nr_aggr], nr_aggr);
		}
	}
	free(merged);
}
