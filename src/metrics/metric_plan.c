// SPDX-License-Identifier: GPL-2.0-only
/* perf 6.1's -M planning (metricgroup.c: add_metric_list, parse_groups, parse_ids). */
#include "metric_plan.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/common.h"

/* perf's tool events, in perf_tool_event order */
static const char *const tool_events[] = { "duration_time", "user_time", "system_time" };

bool metric_id_is_tool(const char *id)
{
	for (size_t i = 0; i < ARRAY_SIZE(tool_events); i++)
		if (!strcmp(id, tool_events[i]))
			return true;
	return false;
}

char *metric_id_encode(const char *id)
{
	static const char codes[] = ",-=@";
	char *out = xzalloc(2 * strlen(id) + 1), *o = out;
	const char *c;

	for (; *id; id++) {
		c = strchr(codes, *id);
		if (c) {
			*o++ = '!';
			*o++ = '0' + (c - codes);
		} else {
			*o++ = *id;
		}
	}
	return out;
}

char *metric_id_evsel_name(const char *id, const char *modifier)
{
	char *name = xstrdup(id), *c;
	bool slash = false;

	for (c = strchr(name, '@'); c; c = strchr(c + 1, '@')) {
		*c = '/';
		slash = true;
	}
	if (modifier) {
		char *with = xasprintf("%s%s%s", name, !slash && !strchr(name, ':') ? ":" : "",
				       modifier);

		free(name);
		name = with;
	}
	return name;
}

struct plan_ctx {
	struct metric_plan *plan;
	const struct metric_plan_opts *o;
	struct metric_expr_ctx expr_ctx;
	const char *item;
	const char *modifier;
	struct metric_plan_metric *found;	/* the item's metrics, perf's local list order */
	int nr_found;
	bool split;				/* a NO_NMI_WATCHDOG metric was split out */
	int err;
};

static int find_metric(void *priv, const char *id, const char **name, const char **expr)
{
	struct plan_ctx *c = priv;
	struct metric_def def;
	int ret = metric_table_find(c->o->table, id, &def);

	if (ret)
		return ret;
	*name = def.name;
	*expr = def.expr;
	return 0;
}

static void plan_metric_free(struct metric_plan_metric *m)
{
	free(m->modifier);
	metric_ids_free(m->ids);
	metric_refs_free(&m->refs);
	free(m->leader_id);
}

/* perf's metricgroup__add_metric_callback() and __add_metric() for a root */
static int add_root(const struct metric_def *def, void *data)
{
	struct plan_ctx *c = data;
	struct metric_plan_metric m = { .def = *def, .own_events = -1, .events = -1,
					 .shares = -1 };
	int ret;

	if (!metric_def_matches(def, c->item))
		return 0;
	pr_debug(c->o->verbose, 1, "metric expr %s for %s", def->expr, def->name);
	m.modifier = c->modifier ? xstrdup(c->modifier) : NULL;
	m.has_constraint = c->o->no_group;
	if (!m.has_constraint && def->constraint && !strcmp(def->constraint, "NO_NMI_WATCHDOG") &&
	    c->o->nmi_watchdog) {
		fprintf(stderr, "Splitting metric group %s into standalone metrics.\n", def->name);
		c->split = true;
		m.has_constraint = true;
	}
	ret = metric_root_ids(def->name, def->expr, find_metric, c, &c->expr_ctx, &m.ids,
			      &m.refs);
	if (ret) {
		plan_metric_free(&m);
		return -EINVAL;
	}
	/* list_add(): the newest first */
	c->found = xrealloc(c->found, (c->nr_found + 1) * sizeof(*c->found));
	memmove(c->found + 1, c->found, c->nr_found * sizeof(*c->found));
	c->found[0] = m;
	c->nr_found++;
	return 0;
}

/* list_splice() of an item's metrics at the head of the list */
static void splice_found(struct plan_ctx *c)
{
	struct metric_plan *p = c->plan;

	p->metrics = xrealloc(p->metrics, (p->nr + c->nr_found) * sizeof(*p->metrics));
	memmove(p->metrics + c->nr_found, p->metrics, p->nr * sizeof(*p->metrics));
	memcpy(p->metrics, c->found, c->nr_found * sizeof(*c->found));
	p->nr += c->nr_found;
	free(c->found);
	c->found = NULL;
	c->nr_found = 0;
}

static int add_list(struct plan_ctx *c, const char *list)
{
	char *copy = xstrdup(list), *rest = copy, *item, *mod;
	int ret = 0, count = 0;

	while ((item = strsep(&rest, ","))) {
		mod = strchr(item, ':');
		if (mod)
			*mod++ = '\0';
		c->item = item;
		c->modifier = mod;
		ret = metric_table_for_each(c->o->table, add_root, c);
		if (!ret && !c->nr_found)
			ret = -EINVAL;
		splice_found(c);
		if (ret == -EINVAL)
			pr_err("Cannot find metric or group `%s'", item);
		if (ret)
			break;
		count++;
	}
	free(copy);
	if (ret)
		return ret;
	if (c->split)
		fprintf(stderr, "Try disabling the NMI watchdog to comply NO_NMI_WATCHDOG metric "
			"constraint:\n    echo 0 > /proc/sys/kernel/nmi_watchdog\n"
			"    perf stat ...\n    echo 1 > /proc/sys/kernel/nmi_watchdog\n");
	return count ? 0 : -EINVAL;
}

static int event_count(const struct metric_ids *ids)
{
	int n = metric_ids_size(ids);

	for (size_t i = 0; i < ARRAY_SIZE(tool_events); i++)
		n -= metric_ids_has(ids, tool_events[i]);
	return n;
}

/* perf's list_sort() with metric_list_cmp: stable, most events first */
static void sort_metrics(struct metric_plan *p)
{
	for (int i = 1; i < p->nr; i++) {
		struct metric_plan_metric m = p->metrics[i];
		int n = event_count(m.ids), j = i;

		while (j > 0 && event_count(p->metrics[j - 1].ids) < n) {
			p->metrics[j] = p->metrics[j - 1];
			j--;
		}
		p->metrics[j] = m;
	}
}

static void str_add(char **s, size_t *len, const char *add, size_t n)
{
	*s = xrealloc(*s, *len + n + 1);
	memcpy(*s + *len, add, n);
	*len += n;
	(*s)[*len] = '\0';
}

static void str_adds(char **s, size_t *len, const char *add)
{
	str_add(s, len, add, strlen(add));
}

/* perf's metricgroup__build_event_string() */
static void build_events(struct metric_plan_events *ev, const struct metric_ids *ids,
			 const char *modifier, bool has_constraint)
{
	bool tools[ARRAY_SIZE(tool_events)] = { false }, any = false;
	struct metric_ids_iter it;
	const char *id, *sep, *rsep;
	size_t len = 0;
	char *s = xstrdup(""), *enc;

	ev->ids = xzalloc((metric_ids_size(ids) + 1) * sizeof(*ev->ids));
	metric_ids_for_each(ids, it, id) {
		size_t t;

		for (t = 0; t < ARRAY_SIZE(tool_events) && strcmp(id, tool_events[t]); t++)
			;
		if (t < ARRAY_SIZE(tool_events)) {
			tools[t] = true;
			continue;
		}
		ev->ids[ev->nr_ids++] = xstrdup(id);
		if (!any && !has_constraint)
			str_adds(&s, &len, "{");
		else if (any)
			str_adds(&s, &len, ",");
		any = true;
		sep = strchr(id, '@');
		if (sep) {
			str_add(&s, &len, id, sep - id);
			str_adds(&s, &len, "/");
			rsep = strrchr(sep, '@');
			str_add(&s, &len, sep + 1, rsep - sep - 1 < 0 ? 0 : rsep - sep - 1);
			str_adds(&s, &len, ",metric-id=");
			sep = rsep;
		} else {
			sep = strchr(id, ':');
			str_add(&s, &len, id, sep ? (size_t)(sep - id) : strlen(id));
			str_adds(&s, &len, "/metric-id=");
		}
		enc = metric_id_encode(id);
		str_adds(&s, &len, enc);
		free(enc);
		str_adds(&s, &len, "/");
		if (sep)
			str_adds(&s, &len, sep + 1);
		if (modifier)
			str_adds(&s, &len, modifier);
	}
	if (any && !has_constraint)
		str_adds(&s, &len, "}:W");
	for (size_t t = 0; t < ARRAY_SIZE(tool_events); t++) {
		if (!tools[t])
			continue;
		if (any)
			str_adds(&s, &len, ",");
		any = true;
		str_adds(&s, &len, tool_events[t]);
		ev->ids[ev->nr_ids++] = xstrdup(tool_events[t]);
	}
	ev->str = s;
	ev->modifier = modifier;
}

/* perf's parse_ids() up to the string: tool events into ids, then the event string. */
static int add_events(struct metric_plan *p, const struct metric_plan_opts *o,
		      struct metric_ids *ids, const char *modifier, bool has_constraint,
		      const bool *tools)
{
	struct metric_plan_events *ev;

	if (!o->no_merge || !metric_ids_size(ids)) {
		bool added = false;

		for (size_t t = 0; t < ARRAY_SIZE(tool_events); t++) {
			if (tools[t]) {
				metric_ids_insert(ids, tool_events[t]);
				added = true;
			}
		}
		if (!added && !metric_ids_size(ids))
			metric_ids_insert(ids, "duration_time");
	}
	p->events = xrealloc(p->events, (p->nr_events + 1) * sizeof(*p->events));
	ev = &p->events[p->nr_events];
	*ev = (struct metric_plan_events){ 0 };
	build_events(ev, ids, modifier, has_constraint);
	return p->nr_events++;
}

static bool same_modifier(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool ids_subset(const struct metric_ids *haystack, const struct metric_ids *needles)
{
	struct metric_ids_iter it;
	const char *id;

	metric_ids_for_each(needles, it, id)
		if (!metric_ids_has(haystack, id))
			return false;
	return true;
}

/* perf's parse_groups() up to the event strings, and setup_metric_events()' first event */
static void plan_events(struct metric_plan *p, const struct metric_plan_opts *o)
{
	bool tools[ARRAY_SIZE(tool_events)] = { false };
	int combined = -1;

	if (!o->no_merge) {
		struct metric_ids *all = metric_ids_new();

		for (int i = 0; i < p->nr; i++)
			for (size_t t = 0; t < ARRAY_SIZE(tool_events); t++)
				tools[t] |= metric_ids_has(p->metrics[i].ids, tool_events[t]);
		for (int i = 0; i < p->nr; i++) {
			struct metric_ids_iter it;
			const char *id;

			if (!p->metrics[i].has_constraint || p->metrics[i].modifier)
				continue;
			metric_ids_for_each(p->metrics[i].ids, it, id)
				metric_ids_insert(all, id);
		}
		if (metric_ids_size(all))
			combined = add_events(p, o, all, NULL, true, tools);
		metric_ids_free(all);
	}
	for (int i = 0; i < p->nr; i++) {
		struct metric_plan_metric *m = &p->metrics[i];
		const struct metric_plan_events *ev;

		if (combined >= 0 && m->has_constraint) {
			m->events = combined;
		} else if (!o->no_merge) {
			for (int k = 0; k < i; k++) {
				const struct metric_plan_metric *n = &p->metrics[k];

				if (n->own_events < 0 || !same_modifier(m->modifier, n->modifier))
					continue;
				if (ids_subset(n->ids, m->ids)) {
					m->shares = k;
					m->events = n->own_events;
					break;
				}
			}
		}
		if (m->events < 0) {
			m->own_events = add_events(p, o, m->ids, m->modifier, m->has_constraint,
						   tools);
			m->events = m->own_events;
		}
		ev = &p->events[m->events];
		for (int k = 0; k < ev->nr_ids && !m->leader_id; k++)
			if (metric_ids_has(m->ids, ev->ids[k]))
				m->leader_id = xstrdup(ev->ids[k]);
	}
}

int metric_plan_build(struct metric_plan *plan, const char *list,
		      const struct metric_plan_opts *o)
{
	struct plan_ctx c = { .plan = plan, .o = o };
	int ret;

	memset(plan, 0, sizeof(*plan));
	c.expr_ctx.literals = o->literals;
	ret = add_list(&c, list);
	for (int i = 0; i < c.nr_found; i++)
		plan_metric_free(&c.found[i]);
	free(c.found);
	if (ret) {
		metric_plan_free(plan);
		return ret;
	}
	sort_metrics(plan);
	plan_events(plan, o);
	return 0;
}

void metric_plan_free(struct metric_plan *plan)
{
	for (int i = 0; i < plan->nr; i++)
		plan_metric_free(&plan->metrics[i]);
	free(plan->metrics);
	for (int i = 0; i < plan->nr_events; i++) {
		for (int k = 0; k < plan->events[i].nr_ids; k++)
			free(plan->events[i].ids[k]);
		free(plan->events[i].ids);
		free(plan->events[i].str);
	}
	free(plan->events);
	memset(plan, 0, sizeof(*plan));
}
