// SPDX-License-Identifier: GPL-2.0-only
/* perf's evlist__check_cpu_maps(): groups whose events' CPUs differ are counted ungrouped. */
#include "group_cpus.h"

#include <stdio.h>
#include <string.h>

#include "../common.h"

/* An event's own CPUs as perf compares them: its PMU's cpumask, none for per-CPU PMUs. */
static bool same_cpus(const struct evsel *a, const struct evsel *b)
{
	if (!a->cpumask || !b->cpumask)
		return !a->cpumask && !b->cpumask;
	return !strcmp(a->cpumask, b->cpumask);
}

/* perf's evsel__group_desc(): "anon group { a, b }" or "NAME { a, b }" */
static void print_group(const struct evlist *evlist, const struct evsel *leader)
{
	fprintf(stderr, "  %s {", leader->group_name ? leader->group_name : "anon group");
	for (int i = leader->idx; i < leader->idx + leader->nr_members && i < evlist->nr; i++)
		fprintf(stderr, "%s %s", i == leader->idx ? "" : ",", evlist->entries[i].name);
	fprintf(stderr, " }\n");
}

static void print_cpus(const struct evsel *e)
{
	char online[256] = "";

	if (!e->cpumask && read_text_file("/sys/devices/system/cpu/online", online,
					  sizeof(online)) < 0)
		online[0] = '\0';
	fprintf(stderr, "     %s: %s\n", e->name, e->cpumask ? e->cpumask : online);
}

void evlist_check_group_cpus(struct evlist *evlist, int verbose)
{
	bool warned = false;

	for (int i = 0; i < evlist->nr; i++) {
		struct evsel *e = &evlist->entries[i], *leader;
		int k, end;

		if (e->leader_idx == e->idx)
			continue;
		leader = &evlist->entries[e->leader_idx];
		if (same_cpus(leader, e))
			continue;
		if (!warned)
			fprintf(stderr, "WARNING: grouped events cpus do not match, disabling group:\n");
		warned = true;
		print_group(evlist, leader);
		if (verbose) {
			print_cpus(leader);
			print_cpus(e);
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
