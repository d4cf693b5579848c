// SPDX-License-Identifier: GPL-2.0-only
/* perf's evlist__check_cpu_maps(): groups whose events' CPUs differ are counted ungrouped. */
#include "group_cpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

/*
 * The CPUs perf gives an event before it compares a group's (libperf's propagate_maps in 6.1):
 * the user's (-C's list, the online CPUs of -a, "any CPU" per task) unless its PMU has CPUs of
 * its own (cpumask or cpus) and either the target is CPUs or the PMU needs one (uncore). So per
 * task, a core PMU's cpus file (hybrid, arm64) changes nothing, nor beside msr (no CPUs of its
 * own) with -a where that file lists every online CPU.
 */
static void event_cpus(const struct evsel *e, const struct group_cpus_target *t,
		       struct cpu_map *out)
{
	bool per_task = !t->system_wide && !t->cpu_list;

	out->nr = 0;
	out->cpus = NULL;
	if (e->cpumask && !t->cpu_list && (e->requires_cpu || !per_task) &&
	    !cpu_map_parse(out, e->cpumask))
		return;
	if (t->cpu_list && !cpu_map_parse(out, t->cpu_list))
		return;
	if (per_task || cpu_map_online(out))
		cpu_map_any(out);
}

static bool same_cpus(const struct evsel *a, const struct evsel *b,
		      const struct group_cpus_target *t)
{
	struct cpu_map ma, mb;
	bool same;

	event_cpus(a, t, &ma);
	event_cpus(b, t, &mb);
	same = ma.nr == mb.nr && !memcmp(ma.cpus, mb.cpus, ma.nr * sizeof(*ma.cpus));
	cpu_map_free(&ma);
	cpu_map_free(&mb);
	return same;
}

/* perf's evsel__group_desc(): "anon group { a, b }" or "NAME { a, b }" */
static void print_group(const struct evlist *evlist, const struct evsel *leader)
{
	fprintf(stderr, "  %s {", leader->group_name ? leader->group_name : "anon group");
	for (int i = leader->idx; i < leader->idx + leader->nr_members && i < evlist->nr; i++)
		fprintf(stderr, "%s %s", i == leader->idx ? "" : ",", evlist->entries[i].name);
	fprintf(stderr, " }\n");
}

static void print_cpus(const struct evsel *e, const struct group_cpus_target *t)
{
	struct cpu_map map;
	char *list;

	event_cpus(e, t, &map);
	list = cpu_map_to_string(&map);
	fprintf(stderr, "     %s: %s\n", e->name, list);
	free(list);
	cpu_map_free(&map);
}

void evlist_check_group_cpus(struct evlist *evlist, const struct group_cpus_target *t,
			     int verbose)
{
	bool warned = false;

	for (int i = 0; i < evlist->nr; i++) {
		struct evsel *e = &evlist->entries[i], *leader;
		int k, end;

		if (e->leader_idx == e->idx)
			continue;
		leader = &evlist->entries[e->leader_idx];
		if (same_cpus(leader, e, t))
			continue;
		if (!warned)
			fprintf(stderr, "WARNING: grouped events cpus do not match, disabling group:\n");
		warned = true;
		print_group(evlist, leader);
		if (verbose) {
			print_cpus(leader, t);
			print_cpus(e, t);
		}
		end = leader->idx + leader->nr_members;
		for (k = leader->idx; k < end && k < evlist->nr; k++) {
			struct evsel *m = &evlist->entries[k];

			m->leader_idx = m->idx;
			m->nr_members = 1;
			m->in_group = false;
		}
	}
}
