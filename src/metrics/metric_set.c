// SPDX-License-Identifier: GPL-2.0-only
/* -M: from metric names to evsels, and each metric's value from their counts. */
#include "metric_set.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/proc.h"
#include "metric_expr.h"
#include "metric_plan.h"

void metric_scale_unit(const char *scale_unit, double *scale, const char **unit)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	char *end = (char *)scale_unit;

	*scale = 1;
	if (c) {
		*scale = strtod_l(scale_unit, &end, c);
		freelocale(c);
	}
	if (end == scale_unit)
		*scale = 1;
	*unit = end;
}

/*
 * perf's generic_metric() text: "<unit>  <name>" with a ScaleUnit ("<unit>  <name>_<runtime>"
 * for an expression with '?'), in perf's 64-byte buffer; else the name.
 */
static void set_unit(struct metric_instance *m)
{
	const char *unit;

	m->scale = 1;
	if (!m->def.scale_unit) {
		m->unit = xstrdup(m->name);
		return;
	}
	metric_scale_unit(m->def.scale_unit, &m->scale, &unit);
	if (strchr(m->def.expr, '?'))
		m->unit = xasprintf("%s  %s_%d", unit, m->name, 0);
	else
		m->unit = xasprintf("%s  %s", unit, m->name);
	if (strlen(m->unit) > 63)
		m->unit[63] = '\0';
}

/* How many evsels one id's event gives (an uncore alias gives one per PMU instance). */
static int id_evsels(const char *str, const struct parse_events_ctx *ctx)
{
	struct parse_events_error err = { .idx = -1 };
	struct evlist probe = { 0 };
	int n = parse_events(&probe, str, ctx, &err) ? 1 : probe.nr;

	parse_events_error_free(&err);
	evlist_free(&probe);
	return n ? n : 1;
}

/* One id's event as its string holds it, without the group: for id_evsels(). */
static char *id_event(const char *id, const char *modifier)
{
	const char *at = strchr(id, '@');
	char *enc = metric_id_encode(id), *s;

	if (at) {
		const char *rat = strrchr(id, '@');

		s = xasprintf("%.*s/%.*s,metric-id=%s/%s%s", (int)(at - id), id,
			      (int)(rat - at - 1 > 0 ? rat - at - 1 : 0), at + 1, enc, rat + 1,
			      modifier ?: "");
	} else if (metric_id_is_tool(id)) {
		s = xstrdup(id);
	} else {
		const char *colon = strchr(id, ':');

		s = xasprintf("%.*s/metric-id=%s/%s%s", colon ? (int)(colon - id) : (int)strlen(id),
			      id, enc, colon ? colon + 1 : "", modifier ?: "");
	}
	free(enc);
	return s;
}

/*
 * Parses one planned string into tmp and notes, for each of its ids, the index of its first
 * evsel; evsels named by their event string take perf's metric-id names.
 */
static int parse_planned(const struct metric_plan_events *pe, struct evlist *tmp, int **first,
			 const struct parse_events_ctx *ctx)
{
	struct parse_events_error err = { .idx = -1 };
	int base = tmp->nr, at, i;

	pr_debug(ctx->verbose, 1, "Parsing metric events '%s'", pe->str);
	if (parse_events(tmp, pe->str, ctx, &err)) {
		parse_events_error_print_errors(stderr, pe->str, &err);
		parse_events_error_free(&err);
		return -EINVAL;
	}
	parse_events_error_free(&err);
	*first = xzalloc((pe->nr_ids + 1) * sizeof(**first));
	at = base;
	for (i = 0; i < pe->nr_ids; i++) {
		int n = 1, k;

		if (tmp->nr - base != pe->nr_ids) {
			char *one = id_event(pe->ids[i], pe->modifier);

			n = id_evsels(one, ctx);
			free(one);
		}
		(*first)[i] = at;
		for (k = at; k < at + n && k < tmp->nr; k++) {
			struct evsel *e = &tmp->entries[k];

			if (e->name && strstr(e->name, "metric-id=")) {
				free(e->name);
				e->name = metric_id_evsel_name(pe->ids[i], pe->modifier);
			}
		}
		at += n;
	}
	/* the end of the last id's evsels: each id's count is the next one's first less its own */
	(*first)[pe->nr_ids] = at;
	return 0;
}

static int index_of(char **ids, int nr, const char *id)
{
	for (int i = 0; i < nr; i++)
		if (!strcmp(ids[i], id))
			return i;
	return -1;
}

/* The metric's instance over the string it counts from (first evsels in firsts[events]). */
static void make_instance(struct metric_instance *mi, struct metric_plan_metric *m,
			  const struct metric_plan *plan, int **firsts, int offset)
{
	const struct metric_plan_events *pe = &plan->events[m->events];
	int n = 0;

	mi->def = m->def;
	mi->name = m->modifier ? xasprintf("%s:%s", m->def.name, m->modifier) :
				 xstrdup(m->def.name);
	mi->ids = metric_ids_to_array(m->ids);
	while (mi->ids[n])
		n++;
	mi->evs = xzalloc((n + 1) * sizeof(*mi->evs));
	mi->sources = xzalloc((n + 1) * sizeof(*mi->sources));
	for (int i = 0; i < n; i++) {
		int k = index_of(pe->ids, pe->nr_ids, mi->ids[i]);

		mi->evs[i] = k < 0 ? -1 : offset + firsts[m->events][k];
		mi->sources[i] = k < 0 ? 0 : firsts[m->events][k + 1] - firsts[m->events][k];
	}
	mi->leader = offset + firsts[m->events][index_of(pe->ids, pe->nr_ids, m->leader_id)];
	mi->refs = m->refs;
	m->refs = (struct metric_refs){ 0 };
	set_unit(mi);
}

/*
 * Can this machine count every event of the plan? bperf's generic metrics only (perf has
 * none): a weak group whose leader cannot be opened fails the whole session, so where their
 * events are missing they are counted ungrouped, print <not supported> and no value.
 */
static bool plan_openable(const struct metric_plan *plan, const struct parse_events_ctx *ctx)
{
	struct parse_events_error err = { .idx = -1 };
	struct evlist probe = { 0 };
	bool ok = true;
	int i, k;

	for (i = 0; i < plan->nr_events && ok; i++) {
		for (k = 0; k < plan->events[i].nr_ids && ok; k++) {
			char *one;

			if (metric_id_is_tool(plan->events[i].ids[k]))
				continue;
			one = id_event(plan->events[i].ids[k], plan->events[i].modifier);
			ok = !parse_events(&probe, one, ctx, &err);
			free(one);
		}
	}
	for (i = 0; i < probe.nr && ok; i++) {
		struct perf_event_attr attr = probe.entries[i].attr;
		int fd;

		attr.disabled = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			ok = false;
		else
			close(fd);
	}
	parse_events_error_free(&err);
	evlist_free(&probe);
	return ok;
}

int metric_set_add(struct metric_set *set, const char *list, struct evlist *evlist,
		   const struct parse_events_ctx *ctx)
{
	struct metric_plan_opts o = {
		.table = metric_table_model(),
		.no_group = set->no_group,
		.no_merge = set->no_merge,
		.verbose = ctx->verbose,
	};
	struct evlist tmp = { 0 };
	struct metric_plan plan;
	int **firsts, err = 0, i;

	if (!set->literals) {
		set->literals = xzalloc(sizeof(*set->literals));
		metric_sys_literals_init(set->literals, set->system_wide, set->cpu_list);
	}
	o.literals = &set->literals->base;
	o.nmi_watchdog = nmi_watchdog_enabled();
	err = metric_plan_build(&plan, list, &o);
	if (err)
		return err;
	if (!o.table && !o.no_group && !plan_openable(&plan, ctx)) {
		metric_plan_free(&plan);
		o.no_group = true;
		o.verbose = 0;
		err = metric_plan_build(&plan, list, &o);
		if (err)
			return err;
	}
	firsts = xzalloc((plan.nr_events + 1) * sizeof(*firsts));
	/* perf's order: the combined string first, then each metric's own or shared one */
	for (i = 0; i < plan.nr_events && !err; i++) {
		bool combined = true;

		for (int k = 0; k < plan.nr; k++)
			combined &= plan.metrics[k].own_events != i;
		if (combined)
			err = parse_planned(&plan.events[i], &tmp, &firsts[i], ctx);
	}
	for (i = 0; i < plan.nr && !err; i++) {
		struct metric_plan_metric *m = &plan.metrics[i];

		if (m->shares >= 0)
			pr_debug(ctx->verbose, 1, "Events in '%s' fully contained within '%s'",
				 m->def.name, plan.metrics[m->shares].def.name);
		if (m->own_events >= 0)
			err = parse_planned(&plan.events[m->own_events], &tmp,
					    &firsts[m->own_events], ctx);
	}
	if (!err) {
		int offset = evlist->nr;

		for (i = 0; i < tmp.nr; i++)
			evlist_append_copy(evlist, &tmp.entries[i]);
		/* perf attaches each metric at the head of its event's list: last printed first */
		set->metrics = xrealloc(set->metrics, (set->nr + plan.nr) * sizeof(*set->metrics));
		memmove(set->metrics + plan.nr, set->metrics, set->nr * sizeof(*set->metrics));
		for (i = 0; i < plan.nr; i++) {
			struct metric_instance *mi = &set->metrics[plan.nr - 1 - i];

			memset(mi, 0, sizeof(*mi));
			make_instance(mi, &plan.metrics[i], &plan, firsts, offset);
		}
		set->nr += plan.nr;
	}
	for (i = 0; i < plan.nr_events; i++)
		free(firsts[i]);
	free(firsts);
	evlist_free(&tmp);
	metric_plan_free(&plan);
	return err;
}

struct eval_ctx {
	const struct metric_instance *m;
	struct metric_expr_ctx *expr_ctx;
	int (*value)(void *ctx, int ev, double *v);
	void *ctx;
};

/*
 * An id's value: the sum of its PMU instances' counts, as perf's metric_total. A merged
 * instance's count is in the first one's already, and it answers none.
 */
static int sum_sources(const struct eval_ctx *ec, int id, double *v)
{
	int n = ec->m->sources && ec->m->sources[id] > 1 ? ec->m->sources[id] : 1;
	bool counted = false;
	double one;

	*v = 0;
	for (int k = 0; k < n; k++) {
		if (ec->value(ec->ctx, ec->m->evs[id] + k, &one))
			continue;
		*v += one;
		counted = true;
	}
	return counted ? 0 : -ENOENT;
}

static int lookup_id(void *ctx, const char *id, bool source_count, double *v)
{
	struct eval_ctx *ec = ctx;
	int i, err;

	/* a referenced metric: its expression's value, as perf's expr__resolve_id() */
	err = metric_refs_value(&ec->m->refs, id, ec->expr_ctx, v);
	if (err != -ENOENT)
		return err;
	for (i = 0; ec->m->ids[i]; i++)
		if (!strcmp(ec->m->ids[i], id))
			break;
	if (!ec->m->ids[i] || ec->m->evs[i] < 0)
		return -ENOENT;
	if (source_count) {
		*v = ec->m->sources ? ec->m->sources[i] : 1;
		return 0;
	}
	err = sum_sources(ec, i, v);
	/* perf's prepare_metric(): duration_time in seconds */
	if (!err && !strcmp(id, "duration_time"))
		*v *= 1e-9;
	return err;
}

int metric_instance_eval(const struct metric_instance *m, const struct metric_set *set,
			 int (*value)(void *ctx, int ev, double *v), void *ctx, double *out)
{
	struct metric_expr_ctx expr_ctx = {
		.lookup = lookup_id,
		.literals = set && set->literals ? &set->literals->base : NULL,
	};
	struct eval_ctx ec = { .m = m, .expr_ctx = &expr_ctx, .value = value, .ctx = ctx };
	double v;
	int err;

	expr_ctx.priv = &ec;
	/* as perf's prepare_metric(): a metric with an event that has no count is not computed */
	for (int i = 0; m->ids[i]; i++) {
		if (m->evs[i] < 0)
			continue;
		err = value(ctx, m->evs[i], &v);
		if (err)
			return err;
	}
	err = metric_expr_eval(m->def.expr, &expr_ctx, out);
	if (!err)
		*out *= m->scale;
	return err;
}

bool metric_set_counts_event(const struct metric_set *set, int ev)
{
	int i, j;

	for (i = 0; set && i < set->nr; i++)
		for (j = 0; set->metrics[i].ids[j]; j++)
			if (set->metrics[i].evs[j] == ev)
				return true;
	return false;
}

void metric_set_free(struct metric_set *set)
{
	for (int i = 0; i < set->nr; i++) {
		struct metric_instance *m = &set->metrics[i];

		for (int k = 0; m->ids[k]; k++)
			free(m->ids[k]);
		free(m->ids);
		free(m->evs);
		free(m->sources);
		free(m->unit);
		free(m->name);
		metric_refs_free(&m->refs);
	}
	free(set->metrics);
	if (set->literals) {
		metric_sys_literals_free(set->literals);
		free(set->literals);
	}
	set->metrics = NULL;
	set->literals = NULL;
	set->nr = 0;
}
