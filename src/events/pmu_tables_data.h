/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The layout of perf 6.1's event tables as tools/gen-pmu-events.c writes them into the generated
 * pmu-events.c (never committed) and src/events/pmu_tables.c reads them. Only offsets and
 * indices, no pointers inside the arrays: the data needs no relocations and pages that are never
 * read are never faulted in.
 *
 * Every string lives once in one pool; offset 0 is the empty string, which stands for "absent"
 * (perf's tables cannot tell an empty field from a missing one either). Fields with few distinct
 * values (PMU, topic, unit, ...) are 16-bit indices into a table of pool offsets. Identical
 * entries are stored once; a model's table is a run of record indices in perf's order.
 */
#ifndef BPERF_EVENTS_PMU_TABLES_DATA_H
#define BPERF_EVENTS_PMU_TABLES_DATA_H

#include <stdint.h>

/* One entry (event or metric) of a table. */
struct pmu_table_rec {
	/* pool offsets */
	uint32_t name, event, desc, long_desc, metric_expr, metric_name, metric_group;
	/* indices into pmu_tables_data.shorts */
	uint16_t compat, topic, pmu, unit, perpkg, aggr_mode, deprecated, metric_constraint;
};

/* A model's table (perf's pme_<dir> array): entries[first .. first + count) */
struct pmu_table {
	uint32_t name;	/* pool offset of perf's C name of the table, e.g. pme_skylakex */
	uint32_t first;
	uint32_t count;
};

/* A row of a mapfile.csv, or the test table's built-in "testcpu" row, in perf's order. */
struct pmu_table_map_row {
	uint32_t arch;	/* pool offsets */
	uint32_t cpuid;	/* a POSIX extended regular expression */
	uint32_t table;	/* index into tables */
};

struct pmu_tables_data {
	const char *pool;
	uint32_t pool_size;
	const uint32_t *shorts;
	uint32_t nr_shorts;
	const struct pmu_table_rec *recs;
	uint32_t nr_recs;
	const uint32_t *entries;	/* record indices */
	uint32_t nr_entries;
	const struct pmu_table *tables;
	uint32_t nr_tables;
	const struct pmu_table_map_row *map;
	uint32_t nr_map;
	const uint32_t *sys_tables;	/* indices into tables: the `sys` directories */
	uint32_t nr_sys_tables;
};

/* in the generated pmu-events.c */
extern const struct pmu_tables_data pmu_tables_data;

#endif
