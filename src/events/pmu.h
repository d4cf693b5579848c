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

/* events/<name>: an alias standing for a list of terms */
struct pmu_alias {
	char *name;
	char *str;		/* the terms re-printed as perf does ("event=0x4") */
	struct term_list terms;
	char unit[32];
	double scale;
	bool per_pkg;
	bool snapshot;
};

struct pmu {
	char *name;
	uint32_t type;
	struct pmu_format *formats;	/* directory order */
	int nr_formats;
	struct pmu_alias *aliases;	/* directory order */
	int nr_aliases;
	bool is_uncore;			/* has a cpumask file: counted per CPU only */
	char *cpumask;			/* cpumask (or cpus) file contents, NULL if none */
};

/* The PMUs looked up so far, in lookup order (perf's pmus list). */
struct pmu_set {
	char *devices_dir;
	struct pmu **list;
	int nr;
	bool scanned;
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
/* The scanner's check of a bare name against every alias (pmu_str_check) */
int pmu_alias_token_class(const char *name, void *set);
/* The maximum value a format can hold */
uint64_t pmu_format_max(uint64_t bits);
/* Scatters value into the format's bits of *v (ORed in, as perf does) */
void pmu_format_apply(uint64_t bits, uint64_t value, uint64_t *v);

/* Parses a term list such as "event=0x3c,umask=1" (perf's PE_START_TERMS mode) */
int parse_terms_string(const char *str, struct term_list *out);

#endif
