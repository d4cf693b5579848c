/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf 6.1's pmu-events tables (vendor events and metrics per CPU model), built into bperf from
 * Debian's linux-source-6.1 by tools/gen-pmu-events: the build's architecture's tables and
 * perf's test table, as in perf's own build.
 *
 * A table is read entry by entry, in perf's order; an entry decodes into the fields of perf's
 * struct pmu_event, byte for byte as perf has them (absent fields are NULL). Nothing is read
 * until asked for: the CPU id and its table are found once, on the first call that needs them.
 */
#ifndef BPERF_EVENTS_PMU_TABLES_H
#define BPERF_EVENTS_PMU_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A model's table (or a sys table): opaque outside pmu_tables.c. */
struct pmu_table;

/* An entry of a table: an event (name set) or a metric (metric_name set). */
struct pmu_table_entry {
	const char *name;		/* lower case, e.g. inst_retired.any */
	const char *compat;		/* sys tables: the PMU identifier it applies to */
	const char *event;		/* the term string, e.g. event=0xc0,period=2000003 */
	const char *desc;
	const char *topic;		/* from the file name: cache, pipeline, metrics, ... */
	const char *long_desc;
	const char *pmu;		/* NULL: the core PMU (cpu, or the arm64 core PMU) */
	const char *unit;		/* ScaleUnit, raw: 100%, 64Bytes, 9.765625e-4KB */
	const char *perpkg;		/* "1" */
	const char *aggr_mode;		/* "1" PerChip, "2" PerCore */
	const char *metric_expr;
	const char *metric_name;
	const char *metric_group;	/* ';'-separated */
	const char *deprecated;		/* "1" */
	const char *metric_constraint;
};

/* ---- the tables (pmu_tables.c) ---- */

/* perf's C name of a table, e.g. pme_skylakex, pme_arm_cortex_a76_n1, pme_test_soc_cpu */
const char *pmu_table_name(const struct pmu_table *t);
size_t pmu_table_size(const struct pmu_table *t);
/* Entry i (< pmu_table_size) of t. */
void pmu_table_entry(const struct pmu_table *t, size_t i, struct pmu_table_entry *e);

/* Calls fn for each entry in table order; stops at and returns fn's first non-zero return. */
typedef int (*pmu_table_fn)(const struct pmu_table_entry *e, void *data);
int pmu_table_for_each(const struct pmu_table *t, pmu_table_fn fn, void *data);

/*
 * The first entry of t (in table order) whose metric_name equals name ignoring case, as perf
 * compares metric names; 0, or -ENOENT.
 */
int pmu_table_find_metric(const struct pmu_table *t, const char *name,
			  struct pmu_table_entry *e);

/* The rows of perf's pmu_events_map, in its order: mapfile rows plus the "testcpu" row. */
size_t pmu_tables_map_size(void);
/* Row i: its arch ("x86", "arm64", "testarch"), its cpuid pattern and its table. */
const struct pmu_table *pmu_tables_map_row(size_t i, const char **arch, const char **cpuid);

/* The tables of `sys` directories (uncore PMUs matched by identifier), in perf's order. */
size_t pmu_tables_sys_size(void);
const struct pmu_table *pmu_tables_sys_table(size_t i);
/*
 * Calls fn for each entry of the sys tables, in order, whose compat equals compat (a PMU's
 * `identifier` file), or for all of them when compat is NULL; stops at and returns fn's first
 * non-zero return.
 */
int pmu_tables_for_each_sys(const char *compat, pmu_table_fn fn, void *data);

/* ---- the CPU and its table (pmu_cpuid.c) ---- */

/*
 * The CPU id perf 6.1 uses: $PERF_CPUID if set, else x86 "GenuineIntel-6-55-4" (vendor, family
 * in decimal, model and stepping in hex) from cpuid, arm64 "0x00000000410fd0c0" (MIDR without
 * variant and revision) of the first core PMU's CPUs; NULL if there is none. Found on the first
 * call, which prints perf's "Using CPUID <id>" on stderr when verbose > 0 (perf prints it at its
 * first PMU, so later calls print nothing whatever their verbosity).
 */
const char *pmu_cpuid(int verbose);
/*
 * perf's id for one PMU (perf_pmu__getcpuid): $PERF_CPUID, else x86 the CPU's id, arm64 the
 * MIDR of the first of the PMU's CPUs (its sysfs `cpus` or `cpumask` list, NULL for none) that
 * can be read; NULL if none. Not cached, prints nothing (pmu_cpuid() says "Using CPUID").
 * The caller frees it.
 */
char *pmu_cpuid_for_cpus(const char *cpus);
/* The table of the first map row that matches pmu_cpuid(verbose), found once; NULL if none. */
const struct pmu_table *pmu_table_for_cpu(int verbose);
/*
 * The table of the first map row that matches cpuid by this architecture's rules, as perf's
 * perf_pmu__find_table; NULL if none. On x86 prints perf's "Invalid CPUID ..." line (stderr)
 * once when a row needs a full vendor-family-model-stepping id and cpuid is not one.
 */
const struct pmu_table *pmu_table_for_cpuid(const char *cpuid);

/*
 * perf's matchers, 0 when id matches pattern (a strcmp-like answer, as perf's); x86's says
 * PMU_CPUID_NEEDS_FULL when the pattern names a stepping and id has none.
 */
#define PMU_CPUID_NEEDS_FULL 2
int pmu_cpuid_match_x86(const char *pattern, const char *id);
int pmu_cpuid_match_generic(const char *pattern, const char *id);

/* perf's id formats: x86 from the vendor and CPUID leaf 1 EAX, arm64 from a MIDR value. */
void pmu_cpuid_format_x86(char *buf, size_t size, const char *vendor, uint32_t leaf1_eax);
void pmu_cpuid_format_midr(char *buf, size_t size, uint64_t midr);

#endif
