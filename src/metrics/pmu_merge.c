// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hybrid machines (cpu_core and cpu_atom PMUs): a hardware event is one evsel per PMU (see
 * events/event_add.c). perf prints each as "pmu/event/", on its PMU's CPUs only, or, with
 * --hybrid-merge, one line with the counts of all PMUs summed under the event's name.
 * Uncore PMUs of one kind (uncore_imc_0, uncore_imc_1, ...): "uncore_imc/x/" or an alias
 * found in several is one evsel per instance (events/pmu_add.c), counted on the CPUs of the
 * PMU's cpumask and printed as one line unless --no-merge.
 */
#include "pmu_merge.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/target.h"

/* perf's uniquify_event_name(): "x/terms/" keeps its terms under the PMU */
static void uniquify(struct evsel *e)
{
	const char *slash;
	char *name;

	if (!e->name || !e->pmu_name || !strncmp(e->name, e->pmu_name, strlen(e->pmu_name)))
		return;
	slash = strchr(e->name, '/');
	if (slash)
		name = xasprintf("%s%s", e->pmu_name, slash);
	else if (e->hybrid)
		name = xasprintf("%s/%s/", e->pmu_name, e->name);
	else
		name = xasprintf("%s [%s]", e->name, e->pmu_name);
	free(e->name);
	e->name = name;
}

void pmu_merge_prepare(struct evlist *evlist, const struct merge_opts *opts)
{
	int i;

	for (i = 0; i < evlist->nr; i++) {
		struct evsel *e = &evlist->entries[i];
		bool own_name = e->hybrid ? !opts->hybrid_merge :
				 opts->no_merge && e->sysfs_pmu && !e->name_given;

		if (own_name)
			uniquify(e);
		if (opts->user_cpus && !e->hybrid && e->requires_cpu) {
			free(e->cpumask);
			e->cpumask = NULL;
		}
	}
}

/* -A: no line for an event on a CPU its PMU does not count on. */
static void hide_other_cpus(const struct evsel *e, const struct aggr_id *ids, int nr_aggr,
			    struct counter_value *row)
{
	struct cpu_map pmu_cpus;
	int a;

	if (!e->cpumask || cpu_map_parse(&pmu_cpus, e->cpumask))
		return;
	for (a = 0; a < nr_aggr; a++)
		row[a].absent |= ids[a].cpu >= 0 && !cpu_map_has(&pmu_cpus, ids[a].cpu);
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

/*
 * The same event on another PMU, as perf's collect_all_aliases() finds it: hybrid copies with
 * --hybrid-merge, and anything an uncore glob or alias made unless --no-merge.
 */
static bool merges_with(const struct evsel *a, const struct evsel *b,
			const struct merge_opts *opts)
{
	if (a->hybrid ? !opts->hybrid_merge : !a->auto_merge || opts->no_merge)
		return false;
	return a->name && b->name && !strcmp(a->name, b->name) && a->cgroup == b->cgroup &&
	       a->scale == b->scale && !strcmp(a->unit ? a->unit : "", b->unit ? b->unit : "") &&
	       a->is_clock == b->is_clock && a->pmu_name && b->pmu_name &&
	       strcmp(a->pmu_name, b->pmu_name);
}

void pmu_merge_values(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		      enum aggr_mode mode, const struct merge_opts *opts,
		      struct counter_value *values)
{
	bool *merged;
	int i, k;

	if (mode == AGGR_NONE)
		for (i = 0; i < evlist->nr; i++)
			if (evsel_has_own_cpus(&evlist->entries[i]))
				hide_other_cpus(&evlist->entries[i], ids, nr_aggr,
						&values[i * nr_aggr]);
	merged = xzalloc(evlist->nr * sizeof(*merged));
	for (i = 0; i < evlist->nr; i++) {
		if (merged[i])
			continue;
		for (k = i + 1; k < evlist->nr; k++) {
			if (merged[k] || !merges_with(&evlist->entries[i], &evlist->entries[k], opts))
				continue;
			merged[k] = true;
			add_row(&values[i * nr_aggr], &values[k * nr_aggr], nr_aggr);
		}
	}
	free(merged);
}
