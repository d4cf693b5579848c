// SPDX-License-Identifier: GPL-2.0-only
/*
 * Prints bperf's built-in pmu-events tables in the format of dump.h. Built by
 * tests/shell/pmu_tables_vs_jevents.sh for the build machine with src/events/pmu_tables.c and a
 * generated pmu-events.c of any architecture.
 */
#include <stdio.h>

#include "dump.h"
#include "events/pmu_tables.h"

#define MAX_TABLES 256

static const struct pmu_table *seen[MAX_TABLES];
static int nr_seen;

/* the table's number, in the order tables are first met; -1 when it is new (and now seen) */
static int table_number(const struct pmu_table *t, int *n)
{
	for (int k = 0; k < nr_seen; k++) {
		if (seen[k] == t) {
			*n = k;
			return 0;
		}
	}
	if (nr_seen == MAX_TABLES) {
		fprintf(stderr, "dump_bperf: more than %d tables\n", MAX_TABLES);
		return -1;
	}
	seen[nr_seen] = t;
	*n = nr_seen++;
	return 1;
}

static void dump_table(const struct pmu_table *t, int n)
{
	struct pmu_table_entry e;

	printf("table#%d %zu\n", n, pmu_table_size(t));
	for (size_t i = 0; i < pmu_table_size(t); i++) {
		pmu_table_entry(t, i, &e);
		DUMP_ENTRY(n, i, &e);
	}
}

int main(void)
{
	const char *arch, *cpuid;
	int n, fresh;

	for (size_t i = 0; i < pmu_tables_map_size(); i++) {
		const struct pmu_table *t = pmu_tables_map_row(i, &arch, &cpuid);

		fresh = table_number(t, &n);
		if (fresh < 0)
			return 1;
		printf("map %s %s table#%d\n", arch, cpuid, n);
		if (fresh)
			dump_table(t, n);
	}
	for (size_t i = 0; i < pmu_tables_sys_size(); i++) {
		const struct pmu_table *t = pmu_tables_sys_table(i);

		fresh = table_number(t, &n);
		if (fresh < 0)
			return 1;
		printf("sys %s table#%d\n", pmu_table_name(t), n);
		if (fresh)
			dump_table(t, n);
	}
	return 0;
}
