// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prints the tables of perf's own generated pmu-events.c (jevents.py's output, included as
 * PERF_PMU_EVENTS_C) in the format of dump.h, by perf's iteration functions. The headers perf's
 * file includes are given here (the test makes them empty files): only what the file uses.
 */
#include <stddef.h>
#include <stdio.h>

#include "dump.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct pmu_event {
	const char *name, *compat, *event, *desc, *topic, *long_desc, *pmu, *unit, *perpkg,
		*aggr_mode, *metric_expr, *metric_name, *metric_group, *deprecated,
		*metric_constraint;
};

struct perf_pmu;
struct pmu_events_table;
typedef int (*pmu_event_iter_fn)(const struct pmu_event *pe, const struct pmu_events_table *t,
				 void *data);

/* referenced by the lookup functions the file defines, which the dump does not call */
char *perf_pmu__getcpuid(struct perf_pmu *pmu)
{
	return NULL;
}

int strcmp_cpuid_str(const char *pattern, const char *id)
{
	return 1;
}

#include PERF_PMU_EVENTS_C

#define MAX_TABLES 256

static const struct compact_pmu_event *seen[MAX_TABLES];
static int nr_seen;

static int table_number(const struct pmu_events_table *t, int *n)
{
	for (int k = 0; k < nr_seen; k++) {
		if (seen[k] == t->entries) {
			*n = k;
			return 0;
		}
	}
	if (nr_seen == MAX_TABLES) {
		fprintf(stderr, "dump_jevents: more than %d tables\n", MAX_TABLES);
		return -1;
	}
	seen[nr_seen] = t->entries;
	*n = nr_seen++;
	return 1;
}

struct dump_state {
	int n;
	size_t i;
};

static int dump_one(const struct pmu_event *pe, const struct pmu_events_table *t, void *data)
{
	struct dump_state *st = data;

	DUMP_ENTRY(st->n, st->i, pe);
	st->i++;
	return 0;
}

static void dump_table(const struct pmu_events_table *t, int n)
{
	struct dump_state st = { .n = n };

	printf("table#%d %zu\n", n, t->length);
	pmu_events_table_for_each_event(t, dump_one, &st);
}

int main(void)
{
	int n, fresh;

	for (const struct pmu_events_map *m = pmu_events_map; m->arch; m++) {
		fresh = table_number(&m->table, &n);
		if (fresh < 0)
			return 1;
		printf("map %s %s table#%d\n", m->arch, m->cpuid, n);
		if (fresh)
			dump_table(&m->table, n);
	}
	for (const struct pmu_sys_events *s = pmu_sys_event_tables; s->name; s++) {
		fresh = table_number(&s->table, &n);
		if (fresh < 0)
			return 1;
		printf("sys %s table#%d\n", s->name, n);
		if (fresh)
			dump_table(&s->table, n);
	}
	return 0;
}
