// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf list`'s PMU events, as perf 6.1's print_pmu_events (util/pmu.c): every alias of every
 * PMU, sysfs and table ones; described ones under their topic with the description word-wrapped,
 * the others as "[Kernel PMU event]" lines first. The sort and the duplicate rule are perf's.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* FNM_CASEFOLD */
#endif
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "list/list_internal.h"
#include "events/pmu.h"

struct list_event {
	char *name;
	const char *desc;
	const char *topic;
	const char *str;
	const char *pmu;
	const char *metric_expr;
	const char *metric_name;
	bool is_cpu;
	bool hybrid;
};

static bool glob_nocase(const char *str, const char *glob)
{
	return !fnmatch(glob, str, FNM_CASEFOLD);
}

/* x86's PMUs perf offers as "pmu//" (its auxtrace PMUs) */
static bool pmu_selectable(const char *name)
{
	return !strcmp(name, "intel_pt") || !strcmp(name, "intel_bts");
}

/* perf's format_alias: "pmu/alias[,term=string...]/" */
static char *format_alias(const struct pmu *pmu, struct pmu_alias *a)
{
	size_t len = strlen(pmu->name) + strlen(a->name) + 3;
	char *s;

	pmu_alias_terms(a);
	for (int i = 0; i < a->terms.nr; i++)
		if (a->terms.terms[i].is_str)
			len += strlen(a->terms.terms[i].config) + strlen(a->terms.terms[i].str) + 2;
	s = xzalloc(len);
	snprintf(s, len, "%s/%s", pmu->name, a->name);
	for (int i = 0; i < a->terms.nr; i++) {
		const struct term *t = &a->terms.terms[i];

		if (t->is_str)
			snprintf(s + strlen(s), len - strlen(s), ",%s=%s", t->config, t->str);
	}
	strcat(s, "/");
	return s;
}

/* cmp_sevent: undescribed first, then topic, core PMUs first, name, PMU */
static int cmp_event(const void *pa, const void *pb)
{
	const struct list_event *a = pa, *b = pb;
	int ret;

	if (!!a->desc != !!b->desc)
		return !!a->desc - !!b->desc;
	if (a->topic && b->topic) {
		ret = strcmp(a->topic, b->topic);
		if (ret)
			return ret;
	}
	if (a->is_cpu != b->is_cpu)
		return b->is_cpu - a->is_cpu;
	ret = strcmp(a->name, b->name);
	if (!ret && a->pmu && b->pmu)
		return strcmp(a->pmu, b->pmu);
	return ret;
}

/* perf's wordwrap: words split at blanks, a line broken before a word that would reach max */
static void wordwrap(const char *s, int start, int max)
{
	int column = start;

	while (*s) {
		int wlen = (int)strcspn(s, " \t"), n;

		if (column + wlen >= max && column > start) {
			printf("\n%*s", start, "");
			column = start;
		}
		n = printf("%s%.*s", column > start ? " " : "", wlen, s);
		if (n <= 0)
			break;
		s += wlen;
		column += n;
		while (isspace((unsigned char)*s))
			s++;
	}
}

static void add_event(struct list_event **v, int *nr, const struct list_event *e)
{
	*v = xgrow(*v, *nr, sizeof(**v));
	(*v)[(*nr)++] = *e;
}

static void collect(struct pmu_set *set, struct pmu *pmu, const char *glob,
		    const struct list_opts *o, struct list_event **v, int *nr)
{
	bool hybrid = pmu_is_hybrid(pmu);
	bool is_cpu = !strcmp(pmu->name, "cpu") || pmu->has_cpus || hybrid;

	if (o->cpu_pmu && hybrid && strcmp(o->cpu_pmu, pmu->name))
		return;
	pmu_load_table_aliases(set, pmu);
	for (int i = 0; i < pmu->nr_aliases; i++) {
		struct pmu_alias *a = &pmu->aliases[i];
		struct list_event e = {
			.desc = o->long_desc ? a->long_desc : a->desc,
			.topic = a->topic,
			.pmu = pmu->name,
			.metric_expr = a->metric_expr,
			.metric_name = a->metric_name,
			.is_cpu = is_cpu,
			.hybrid = hybrid,
		};

		if (a->deprecated && !o->deprecated)
			continue;
		e.name = a->desc ? xstrdup(a->name) : format_alias(pmu, a);
		if (glob && !(glob_nocase(e.name, glob) || (!is_cpu && glob_nocase(a->name, glob)) ||
			      (a->topic && glob_nocase(a->topic, glob)))) {
			free(e.name);
			continue;
		}
		if (is_cpu && !o->name_only && !a->desc) {
			free(e.name);
			e.name = xasprintf("%s OR %s/%s/", a->name, pmu->name, a->name);
		}
		if (o->details && pmu_alias_terms(a) == 0)
			e.str = a->str;
		add_event(v, nr, &e);
	}
	if (pmu_selectable(pmu->name) && (!glob || !fnmatch(glob, pmu->name, 0))) {
		struct list_event e = { .name = xasprintf("%s//", pmu->name) };

		add_event(v, nr, &e);
	}
}

static void print_event(const struct list_event *e, const char **topic, int *numdesc,
			const struct list_opts *o)
{
	if (o->name_only) {
		printf("%s ", e->name);
		return;
	}
	if (!e->desc || o->quiet) {
		printf("  %-50s [Kernel PMU event]\n", e->name);
		return;
	}
	if ((*numdesc)++ == 0)
		printf("\n");
	if (e->topic && (!*topic || strcmp(*topic, e->topic))) {
		printf("%s%s:\n", *topic ? "\n" : "", e->topic);
		*topic = e->topic;
	}
	printf("  %-50s\n", e->name);
	printf("%*s", 8, "[");
	wordwrap(e->desc, 8, o->columns);
	printf("]\n");
	if (o->details) {
		printf("%*s%s/%s/ ", 8, "", e->pmu, e->str ? e->str : "(null)");
		if (e->metric_name)
			printf(" MetricName: %s", e->metric_name);
		if (e->metric_expr)
			printf(" MetricExpr: %s", e->metric_expr);
		putchar('\n');
	}
}

void list_print_pmus(const char *glob, const struct list_opts *o)
{
	struct pmu_set *set = pmu_set_new(o->sysfs_root);
	struct list_event *v = NULL;
	const char *topic = NULL;
	int nr = 0, printed = 0, numdesc = 0;

	pmu_scan_all(set);
	for (int i = 0; i < set->nr; i++)
		collect(set, set->list[i], glob, o, &v, &nr);
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_event);
	for (int i = 0; i < nr; i++) {
		/* a name printed just before is skipped, unless both are hybrid PMUs' */
		if (i && !strcmp(v[i].name, v[i - 1].name) && !(v[i].hybrid && v[i - 1].hybrid))
			continue;
		print_event(&v[i], &topic, &numdesc, o);
		printed++;
	}
	if (printed && o->pager)
		printf("\n");
	for (int i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	pmu_set_free(set);
}
