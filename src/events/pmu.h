/* SPDX-License-Identifier: GPL-2.0-only */
/* sysfs PMUs (/sys/bus/event_source/devices/<pmu>): type, format bits, event aliases. */
#ifndef BPERF_EVENTS_PMU_H
#define BPERF_EVENTS_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "events/parse_internal.h"

enum pmu_format_value { FORMAT_CONFIG, FORMAT_CONFIG1, FORMAT_CONFIG2 };

/* format/<name>: which config word, and which of its bits, a term fills */
struct pmu_format {
	char *name;
	enum pmu_format_value value;
	uint64_t bits;
};

/*
 * events/<name> or an entry of perf's tables: an alias standing for a list of terms. A table
 * alias keeps its term string until first used (pmu_alias_terms), so that loading thousands of
 * them costs no parsing; its texts point into bperf's built-in tables.
 */
struct pmu_alias {
	char *name;
	char *str;		/* the terms re-printed as perf does ("event=0x4"), NULL until parsed */
	struct term_list terms;
	const char *event;	/* table term string not parsed yet, else NULL */
	char unit[32];
	double scale;
	bool per_pkg;
	bool snapshot;
	bool deprecated;
	const char *desc;	/* NULL for a sysfs alias that no table entry describes */
	const char *long_desc;
	const char *topic;
	const char *pmu_name;	/* the table entry's PMU (Unit), NULL for core events */
	const char *metric_expr;
	const char *metric_name;
};

struct pmu {
	char *name;
	uint32_t type;
	struct pmu_format *formats;	/* directory order */
	int nr_formats;
	struct pmu_alias *aliases;	/* directory order */
	int nr_aliases;
	bool is_uncore;			/* has a cpumask file: counted per CPU only */
	bool has_cpus;			/* has a cpus file: a core PMU (arm64, hybrid) */
	bool tables_loaded;		/* perf's table aliases added (pmu_load_table_aliases) */
	char *cpumask;			/* cpumask (or cpus) file contents, NULL if none */
	char *id;			/* uncore: the identifier file, for sys tables */
};

/* The PMUs looked up so far, in lookup order (perf's pmus list). */
struct pmu_set {
	char *devices_dir;
	struct pmu **list;
	int nr;
	bool scanned;
	int verbose;		/* perf's "Using CPUID" when the tables are first needed */
};

struct pmu_set *pmu_set_new(const char *sysfs_root);
void pmu_set_free(struct pmu_set *set);
/* NULL when there is no such PMU (no type file) */
struct pmu *pmu_find(struct pmu_set *set, const char *name);
/* Loads every PMU in the devices directory (perf_pmu__scan) */
void pmu_scan_all(struct pmu_set *set);
/* A hybrid CPU PMU: named cpu_*, with a "cpus" file and no cpumask (cpu_core, cpu_atom). */
bool pmu_is_hybrid(const struct pmu *pmu);
/*
 * The hybrid CPU PMUs (cpu_core, cpu_atom: named cpu_*, with a "cpus" file and no cpumask), in
 * type order, at most max of them; their number (0 on a machine that is not hybrid).
 */
int pmu_hybrid_list(struct pmu_set *set, struct pmu **out, int max);
const struct pmu_format *pmu_find_format(const struct pmu *pmu, const char *name);
/* Joins the format names with ',' (perf's "valid terms" prefix), NULL if none */
char *pmu_formats_string(const struct pmu *pmu);
/*
 * Adds the aliases of perf's tables that belong to pmu, merged with its sysfs ones as perf 6.1
 * does; once. Every reader of pmu->aliases calls it first.
 */
void pmu_load_table_aliases(const struct pmu_set *set, struct pmu *pmu);
/*
 * Every PMU with its table aliases, as perf loads them all at once (first name to classify, or
 * perf stat's start-up): perf's -v notes on merged aliases come then, once per process.
 */
void pmu_load_all_table_aliases(struct pmu_set *set);
/*
 * perf stat's read of every PMU at start-up, for its -v lines: "Using CPUID" and the merge
 * notes, unless given already; nothing at verbose 0.
 */
void pmu_tables_verbose_notes(const char *sysfs_root, int verbose);
/* The alias's terms, parsed on first use (table aliases); 0 or -EINVAL. */
int pmu_alias_terms(struct pmu_alias *alias);
/* perf's pmu_uncore_alias_match: the tokens of pname (a ',' list) in order in name */
bool pmu_uncore_alias_match(const char *pname, const char *name);
/* perf_pmu__valid_suffix: name is tok, optionally followed by '_' and digits, or digits */
bool pmu_valid_suffix(const char *name, const char *tok);
/* The scanner's check of a bare name against every alias (pmu_str_check) */
int pmu_alias_token_class(const char *name, void *set);
/* The maximum value a format can hold */
uint64_t pmu_format_max(uint64_t bits);
/* Scatters value into the format's bits of *v (ORed in, as perf does) */
void pmu_format_apply(uint64_t bits, uint64_t value, uint64_t *v);

/* Re-prints terms as perf's alias->str: name=%#x (low 32 bits) or name=str, ',' between */
char *pmu_terms_string(const struct term_list *terms);
/* Parses a term list such as "event=0x3c,umask=1" (perf's PE_START_TERMS mode) */
int parse_terms_string(const char *str, struct term_list *out);

#endif
