// SPDX-License-Identifier: GPL-2.0-only
/* `bperf list metrics|metricgroups`: perf 6.1's metricgroup__print(), byte for byte. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "metric_table.h"

#include "../util/common.h"

/* perf's strlist: printed sorted by strcmp, each string once. */
struct str_set {
	char **s;
	int nr, cap;
};

static void str_set_add(struct str_set *set, const char *s)
{
	if (set->nr == set->cap) {
		set->cap = set->cap ? 2 * set->cap : 16;
		set->s = xrealloc(set->s, set->cap * sizeof(*set->s));
	}
	set->s[set->nr++] = xstrdup(s);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* perf's metricgroup__print_strlist() */
static void str_set_print(FILE *out, struct str_set *set, bool raw)
{
	int n = 0;

	qsort(set->s, set->nr, sizeof(*set->s), cmp_str);
	for (int i = 0; i < set->nr; i++) {
		if (i && !strcmp(set->s[i], set->s[i - 1]))
			continue;
		if (raw)
			fprintf(out, "%s%s", n ? " " : "", set->s[i]);
		else
			fprintf(out, "  %s\n", set->s[i]);
		n++;
	}
	if (raw)
		fputc('\n', out);
}

static void str_set_free(struct str_set *set)
{
	for (int i = 0; i < set->nr; i++)
		free(set->s[i]);
	free(set->s);
}

struct group {
	char *name;
	struct str_set metrics;
};

struct list_ctx {
	const struct metric_list_opts *o;
	struct str_set metrics;		/* without groups */
	struct group *groups;
	int nr_groups;
};

static struct group *group_get(struct list_ctx *c, const char *name)
{
	for (int i = 0; i < c->nr_groups; i++)
		if (!strcmp(c->groups[i].name, name))
			return &c->groups[i];
	c->groups = xrealloc(c->groups, (c->nr_groups + 1) * sizeof(*c->groups));
	c->groups[c->nr_groups] = (struct group){ .name = xstrdup(name) };
	return &c->groups[c->nr_groups++];
}

static int cmp_group(const void *a, const void *b)
{
	return strcmp(((const struct group *)a)->name, ((const struct group *)b)->name);
}

/* perf's "%s" of a NULL description */
static const char *str_or_null(const char *s)
{
	return s ? s : "(null)";
}

/* perf's metricgroup__print_pmu_event(): the metric under each of its groups. */
static int add_metric(const struct metric_def *def, void *data)
{
	struct list_ctx *c = data;
	const struct metric_list_opts *o = c->o;
	const char *groups = def->groups;
	char *copy, *rest, *g, *s;

	if (!groups) {
		/* an event that is also a metric is listed with the events only */
		if (def->event)
			return 0;
		groups = "No_group";
	}
	if (!def->name)
		return 0;
	copy = rest = xstrdup(groups);
	while ((g = strsep(&rest, ";"))) {
		g += strspn(g, " \t\n\v\f\r");
		if (!*g)
			g = "No_group";
		if (o->filter && !strstr(g, o->filter))
			continue;
		if (o->raw)
			s = xstrdup(def->name);
		else if (o->details)
			s = xasprintf("%s\n%*s%s]\n%*s%s]", def->name, 8, "[", str_or_null(def->desc),
				      8, "[", str_or_null(def->expr));
		else
			s = xasprintf("%s\n%*s%s]", def->name, 8, "[", str_or_null(def->desc));
		if (o->groups)
			str_set_add(&group_get(c, g)->metrics, s);
		else
			str_set_add(&c->metrics, s);
		free(s);
	}
	free(copy);
	return 0;
}

int metric_table_list(FILE *out, const struct pmu_table *table, const struct metric_list_opts *o)
{
	struct list_ctx c = { .o = o };
	int ret = metric_table_for_each(table, add_metric, &c);

	if (ret)
		return ret;
	qsort(c.groups, c.nr_groups, sizeof(*c.groups), cmp_group);
	if (!o->filter || c.nr_groups) {
		if (o->groups && !o->raw)
			fprintf(out, "\nMetric Groups:\n\n");
		else if (o->metrics && !o->raw)
			fprintf(out, "\nMetrics:\n\n");
	}
	for (int i = 0; i < c.nr_groups; i++) {
		if (o->groups)
			fprintf(out, "%s%s%s", c.groups[i].name, o->metrics && !o->raw ? ":" : "",
				o->raw ? " " : "\n");
		if (o->metrics)
			str_set_print(out, &c.groups[i].metrics, o->raw);
		str_set_free(&c.groups[i].metrics);
		free(c.groups[i].name);
	}
	free(c.groups);
	if (!o->groups)
		str_set_print(out, &c.metrics, o->raw);
	str_set_free(&c.metrics);
	return 0;
}

void metric_table_print(FILE *out, bool metrics, bool groups, const char *filter, bool raw)
{
	struct metric_list_opts o = {
		.metrics = metrics, .groups = groups, .filter = filter, .raw = raw,
	};

	metric_table_list(out, metric_table_model(), &o);
}
