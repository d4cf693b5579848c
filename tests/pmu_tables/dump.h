/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The text both table dumpers print (dump_bperf.c: bperf's tables; dump_jevents.c: perf's
 * generated pmu-events.c), so that tests/shell/pmu_tables_vs_jevents.sh can diff them:
 *
 *	map ARCH CPUID table#N	each row of the map (N: the order tables are first met in)
 *	sys NAME table#N	each sys table
 *	table#N COUNT		first time a table is met, then its entries, a line a field:
 *	table#N I FIELD=VALUE	(absent fields print nothing; \ newline CR tab escaped)
 */
#ifndef BPERF_TESTS_PMU_TABLES_DUMP_H
#define BPERF_TESTS_PMU_TABLES_DUMP_H

#include <stdio.h>

static void dump_field(int table, size_t i, const char *field, const char *v)
{
	if (!v)
		return;
	printf("table#%d %zu %s=", table, i, field);
	for (; *v; v++) {
		switch (*v) {
		case '\\': fputs("\\\\", stdout); break;
		case '\n': fputs("\\n", stdout); break;
		case '\r': fputs("\\r", stdout); break;
		case '\t': fputs("\\t", stdout); break;
		default: putchar(*v);
		}
	}
	putchar('\n');
}

/* E: a struct with perf's 15 field names (perf's struct pmu_event or bperf's entry) */
#define DUMP_ENTRY(table, i, e) do {					\
	dump_field(table, i, "name", (e)->name);			\
	dump_field(table, i, "compat", (e)->compat);			\
	dump_field(table, i, "event", (e)->event);			\
	dump_field(table, i, "desc", (e)->desc);			\
	dump_field(table, i, "topic", (e)->topic);			\
	dump_field(table, i, "long_desc", (e)->long_desc);		\
	dump_field(table, i, "pmu", (e)->pmu);				\
	dump_field(table, i, "unit", (e)->unit);			\
	dump_field(table, i, "perpkg", (e)->perpkg);			\
	dump_field(table, i, "aggr_mode", (e)->aggr_mode);		\
	dump_field(table, i, "metric_expr", (e)->metric_expr);		\
	dump_field(table, i, "metric_name", (e)->metric_name);		\
	dump_field(table, i, "metric_group", (e)->metric_group);	\
	dump_field(table, i, "deprecated", (e)->deprecated);		\
	dump_field(table, i, "metric_constraint", (e)->metric_constraint); \
} while (0)

#endif
