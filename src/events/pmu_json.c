// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf 6.1's table events as aliases of the PMUs they belong to (util/pmu.c pmu_lookup,
 * pmu_add_cpu_aliases, pmu_add_sys_aliases, __perf_pmu__new_alias, perf_pmu_merge_alias).
 * A PMU gets them the first time its aliases are read, not when it is loaded, so that
 * `bperf stat -e task-clock` never touches the tables; their term strings are parsed only when
 * an alias is used.
 */
#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/common.h"
#include "events/pmu.h"
#include "events/pmu_tables.h"

bool pmu_valid_suffix(const char *name, const char *tok)
{
	size_t n = strlen(tok);
	const char *p;

	if (strncmp(name, tok, n))
		return false;
	p = name + n;
	if (!*p)
		return true;
	if (*p == '_')
		p++;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

bool pmu_uncore_alias_match(const char *pname, const char *name)
{
	char *copy = xstrdup(pname), *save = NULL;
	char *tok = strtok_r(copy, ",", &save);
	bool ok = tok != NULL;

	while (ok) {
		char *next = strtok_r(NULL, ",", &save);

		name = strstr(name, tok);
		if (!name || (!next && !pmu_valid_suffix(name, tok))) {
			ok = false;
			break;
		}
		if (!next)
			break;
		tok = next;
		/* as perf: skips the length of the next token, not of the one found */
		name += strlen(tok);
	}
	free(copy);
	return ok;
}

/* ScaleUnit "9.765625e-4KB": strtod in the C locale as perf_pmu__convert_scale, unit the rest */
static double convert_scale(const char *text, const char **unit)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	char *end;
	double v = strtod(text, &end);

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	*unit = end;
	return v;
}

/* perf_pmu_assign_str: a text the new entry has replaces the old one's, which -v notes */
static void assign_text(const char *name, const char *field, const char **old, const char *new,
			int verbose)
{
	if (!new)
		return;
	if (*old && strcmp(*old, new) && verbose > 0)
		fprintf(stderr, "alias %s differs in field '%s'\n", name, field);
	*old = new;
}

/* perf_pmu_update_alias: texts, value string, scale and unit from the table; terms stay */
static void update_alias(struct pmu_alias *old, const struct pmu_alias *new, int verbose)
{
	assign_text(old->name, "desc", &old->desc, new->desc, verbose);
	assign_text(old->name, "long_desc", &old->long_desc, new->long_desc, verbose);
	assign_text(old->name, "topic", &old->topic, new->topic, verbose);
	assign_text(old->name, "metric_expr", &old->metric_expr, new->metric_expr, verbose);
	assign_text(old->name, "metric_name", &old->metric_name, new->metric_name, verbose);
	old->scale = new->scale;
	old->per_pkg = new->per_pkg;
	old->snapshot = new->snapshot;
	memcpy(old->unit, new->unit, sizeof(old->unit));
}

static void add_entry_alias(struct pmu *pmu, const struct pmu_table_entry *e, int verbose)
{
	struct pmu_alias a = {
		.scale = 1.0,
		.event = e->event ? e->event : "",
		.desc = e->desc,
		.long_desc = e->long_desc ? e->long_desc : e->desc,
		.topic = e->topic,
		.pmu_name = e->pmu,
		.metric_expr = e->metric_expr,
		.metric_name = e->metric_name,
		.deprecated = e->deprecated != NULL,
	};

	if (e->unit) {
		const char *unit;

		a.scale = convert_scale(e->unit, &unit);
		snprintf(a.unit, sizeof(a.unit), "%s", unit);
	}
	a.per_pkg = e->perpkg && atoi(e->perpkg) == 1;
	for (int i = 0; i < pmu->nr_aliases; i++) {
		struct pmu_alias *old = &pmu->aliases[i];
		struct term_list terms = { NULL, 0 };

		if (strcasecmp(old->name, e->name))
			continue;
		if (a.pmu_name && old->pmu_name && !strcasecmp(a.pmu_name, old->pmu_name))
			continue;
		update_alias(old, &a, verbose);
		/* the value string is the table's, though the terms stay the old alias's */
		if (parse_terms_string(a.event, &terms) == 0) {
			char *str = pmu_terms_string(&terms);

			pmu_alias_terms(old);	/* a table alias's own string, to compare */
			if (old->str && strcmp(old->str, str) && verbose > 0)
				fprintf(stderr, "alias %s differs in field 'value'\n", old->name);
			free(old->str);
			old->str = str;
			term_list_free(&terms);
		}
		return;
	}
	a.name = xstrdup(e->name);
	pmu->aliases = xgrow(pmu->aliases, pmu->nr_aliases, sizeof(*pmu->aliases));
	pmu->aliases[pmu->nr_aliases++] = a;
}

struct table_walk {
	struct pmu *pmu;
	const char *cpu_name;	/* what an entry without Unit belongs to */
	int verbose;
};

/* pmu_add_cpu_aliases_map_callback */
static int add_model_entry(const struct pmu_table_entry *e, void *data)
{
	const struct table_walk *w = data;
	const char *pname = e->pmu ? e->pmu : w->cpu_name;

	if (!e->name)
		return 0;
	if (!(w->pmu->is_uncore && pmu_uncore_alias_match(pname, w->pmu->name)) &&
	    strcmp(pname, w->pmu->name))
		return 0;
	add_entry_alias(w->pmu, e, w->verbose);
	return 0;
}

/* pmu_add_sys_aliases_iter_fn: a nameless entry that is no metric ends the walk */
static int add_sys_entry(const struct pmu_table_entry *e, void *data)
{
	const struct table_walk *w = data;

	if (!e->name)
		return e->metric_group || e->metric_name ? 0 : -EINVAL;
	if (!e->compat || !e->pmu)
		return 0;
	if (!strcmp(w->pmu->id, e->compat) && pmu_uncore_alias_match(e->pmu, w->pmu->name))
		add_entry_alias(w->pmu, e, w->verbose);
	return 0;
}

/* perf_pmu__find_table(pmu): on x86 one id for all; elsewhere the id of the PMU's CPUs */
static const struct pmu_table *table_for_pmu(const struct pmu *pmu, int verbose)
{
#if defined(__x86_64__) || defined(__i386__)
	(void)pmu;
	return pmu_table_for_cpu(verbose);
#else
	const struct pmu_table *t;
	char *id;

	if (getenv("PERF_CPUID"))
		return pmu_table_for_cpu(verbose);
	if (!pmu->cpumask)	/* perf's get_cpuid_str: no CPUs, no id */
		return NULL;
	pmu_cpuid(verbose);	/* perf's "Using CPUID" comes first */
	id = pmu_cpuid_for_cpus(pmu->cpumask);
	t = id ? pmu_table_for_cpuid(id) : NULL;
	free(id);
	return t;
#endif
}

/*
 * perf loads each PMU once per process, and notes its merges at -v then; bperf reads the PMUs
 * again for each -e, so it keeps the names of the PMUs whose notes were given.
 */
static struct {
	char **names;
	int nr;
} noted;

static bool notes_due(const char *pmu)
{
	for (int i = 0; i < noted.nr; i++)
		if (!strcmp(noted.names[i], pmu))
			return false;
	noted.names = xgrow(noted.names, noted.nr, sizeof(*noted.names));
	noted.names[noted.nr++] = xstrdup(pmu);
	return true;
}

void pmu_load_table_aliases(const struct pmu_set *set, struct pmu *pmu)
{
	struct table_walk w = {
		.pmu = pmu,
		/* perf's is_arm_pmu_core: any PMU with a cpus file (hybrid ones too) */
		.cpu_name = pmu->has_cpus ? pmu->name : "cpu",
	};
	const struct pmu_table *t;

	if (pmu->tables_loaded)
		return;
	pmu->tables_loaded = true;
	w.verbose = notes_due(pmu->name) ? set->verbose : 0;
	t = table_for_pmu(pmu, set->verbose);
	if (t)
		pmu_table_for_each(t, add_model_entry, &w);
	if (pmu->id)
		pmu_tables_for_each_sys(NULL, add_sys_entry, &w);
}

void pmu_load_all_table_aliases(struct pmu_set *set)
{
	pmu_scan_all(set);
	for (int i = 0; i < set->nr; i++)
		pmu_load_table_aliases(set, set->list[i]);
}

void pmu_tables_verbose_notes(const char *sysfs_root, int verbose)
{
	struct pmu_set *set;

	if (verbose <= 0)
		return;
	pmu_cpuid(verbose);
	set = pmu_set_new(sysfs_root);
	set->verbose = verbose;
	pmu_load_all_table_aliases(set);
	pmu_set_free(set);
}

int pmu_alias_terms(struct pmu_alias *alias)
{
	const char *src = alias->event;

	if (!src)
		return 0;
	alias->event = NULL;
	if (parse_terms_string(src, &alias->terms) < 0) {
		fprintf(stderr, "Cannot parse alias %s: %d\n", src, -EINVAL);
		return -EINVAL;
	}
	if (!alias->str)
		alias->str = pmu_terms_string(&alias->terms);
	return 0;
}
