// SPDX-License-Identifier: GPL-2.0-only
/* -M: from metric names to evsels, and each metric's value from their counts. */
#include "metric_set.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../common.h"
#include "metric_expr.h"

/* perf opens tool events outside the metric's group: they are not perf events. */
static bool is_tool_event(const char *id)
{
	return !strcmp(id, "duration_time") || !strcmp(id, "user_time") ||
	       !strcmp(id, "system_time");
}

struct resolve_ctx {
	const char *name;
	struct metric_def *defs;
	int nr;
	int matched;
};

static int resolve_one(const struct metric_def *def, void *data)
{
	struct resolve_ctx *c = data;
	int j;

	if (!metric_def_matches(def, c->name))
		return 0;
	c->matched++;
	for (j = 0; j < c->nr && strcmp(c->defs[j].name, def->name); j++)
		;
	if (j == c->nr) {
		c->defs = xrealloc(c->defs, (c->nr + 1) * sizeof(*c->defs));
		c->defs[c->nr++] = *def;
	}
	return 0;
}

/* The defs a -M list names, each once, in the order given; NULL after the error line. */
static struct metric_def *resolve_list(const char *list, int *nr)
{
	const struct pmu_table *table = metric_table_model();
	char *copy = xstrdup(list), *tok = copy, *end;
	struct resolve_ctx c = { 0 };
	bool more = true;

	while (more) {
		end = strchr(tok, ',');
		more = end != NULL;
		if (end)
			*end = '\0';
		c.name = tok;
		c.matched = 0;
		metric_table_for_each(table, resolve_one, &c);
		if (!c.matched) {
			pr_err("Cannot find metric or group `%s'", tok);
			free(copy);
			free(c.defs);
			return NULL;
		}
		tok = end + 1;
	}
	free(copy);
	*nr = c.nr;
	return c.defs ? c.defs : xzalloc(sizeof(*c.defs));
}

static int id_index(char **ids, const char *id)
{
	for (int i = 0; ids[i]; i++)
		if (!strcmp(ids[i], id))
			return i;
	return -1;
}

/* Without --metric-no-merge, a metric whose events an earlier one counts shares them. */
static bool share_events(const struct metric_set *set, struct metric_instance *m)
{
	for (int k = 0; k < set->nr; k++) {
		const struct metric_instance *old = &set->metrics[k];
		int i, at;

		for (i = 0; m->ids[i]; i++)
			if (id_index(old->ids, m->ids[i]) < 0)
				break;
		if (m->ids[i])
			continue;
		for (i = 0; m->ids[i]; i++) {
			at = id_index(old->ids, m->ids[i]);
			m->evs[i] = old->evs[at];
		}
		return true;
	}
	return false;
}

/*
 * Can this machine count every event of ids? A group whose leader cannot be opened fails the
 * whole session (as in perf), so a metric whose events are missing is counted ungrouped: its
 * events print <not supported> and the metric stays empty, instead of bperf giving up.
 */
static bool events_openable(char **ids, const struct parse_events_ctx *ctx)
{
	struct parse_events_error err = { .idx = -1 };
	struct evlist probe = { 0 };
	bool ok = true;
	int i;

	for (i = 0; ids[i] && ok; i++) {
		if (is_tool_event(ids[i]))
			continue;
		ok = !parse_events(&probe, ids[i], ctx, &err);
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

/* "{a,b}:W,duration_time" (perf's weak group), or "a,b,duration_time" with --metric-no-group */
static char *events_string(const struct metric_set *set, char **ids, bool group)
{
	size_t size = 16;
	int i, nr_grouped = 0;
	char *s;

	for (i = 0; ids[i]; i++) {
		size += strlen(ids[i]) + 1;
		nr_grouped += !is_tool_event(ids[i]);
	}
	s = xzalloc(size);
	group = group && nr_grouped > 1 && !set->no_group;
	if (group)
		strcat(s, "{");
	for (i = 0; ids[i]; i++) {
		if (is_tool_event(ids[i]))
			continue;
		if (s[0] && strcmp(s, "{"))
			strcat(s, ",");
		strcat(s, ids[i]);
	}
	if (group)
		strcat(s, "}:W");
	for (i = 0; ids[i]; i++) {
		if (!is_tool_event(ids[i]))
			continue;
		if (s[0])
			strcat(s, ",");
		strcat(s, ids[i]);
	}
	return s;
}

static int add_events(const struct metric_set *set, struct metric_instance *m,
		      struct evlist *evlist, const struct parse_events_ctx *ctx)
{
	struct parse_events_error err = { .idx = -1 };
	char *str = events_string(set, m->ids, events_openable(m->ids, ctx));
	int base = evlist->nr, next, i, ret;

	ret = parse_events(evlist, str, ctx, &err);
	if (ret) {
		parse_events_error_print_errors(stderr, str, &err);
		parse_events_error_free(&err);
		free(str);
		return ret;
	}
	parse_events_error_free(&err);
	free(str);
	/* the order of events_string(): grouped events, then tool events */
	next = base;
	for (i = 0; m->ids[i]; i++)
		if (!is_tool_event(m->ids[i]))
			m->evs[i] = next++;
	for (i = 0; m->ids[i]; i++)
		if (is_tool_event(m->ids[i]))
			m->evs[i] = next++;
	return next == evlist->nr ? 0 : -EINVAL;
}

/* perf's metric unit: "<unit>  <name>" with a ScaleUnit, else the name */
static void set_unit(struct metric_instance *m)
{
	const char *su = m->def.scale_unit;
	char *end;

	m->scale = 1;
	if (!su) {
		m->unit = xstrdup(m->def.name);
		return;
	}
	m->scale = strtod(su, &end);
	if (end == su)
		m->scale = 1;
	m->unit = xasprintf("%s  %s", end, m->def.name);
}

int metric_set_add(struct metric_set *set, const char *list, struct evlist *evlist,
		   const struct parse_events_ctx *ctx)
{
	struct metric_def *defs;
	int nr, i, err = 0;

	defs = resolve_list(list, &nr);
	if (!defs)
		return -EINVAL;
	set->metrics = xrealloc(set->metrics, (set->nr + nr) * sizeof(*set->metrics));
	for (i = 0; i < nr && !err; i++) {
		struct metric_instance *m = &set->metrics[set->nr];
		int n = metric_expr_ids(defs[i].expr, &m->ids), j;

		if (n < 0) {
			err = n;
			break;
		}
		m->def = defs[i];
		m->evs = xzalloc((n + 1) * sizeof(*m->evs));
		if (set->no_merge || !share_events(set, m))
			err = add_events(set, m, evlist, ctx);
		if (err) {
			metric_expr_ids_free(m->ids);
			free(m->evs);
			break;
		}
		m->leader = m->evs[0];
		for (j = 1; j < n; j++)
			if (m->evs[j] < m->leader)
				m->leader = m->evs[j];
		set_unit(m);
		set->nr++;
	}
	free(defs);
	return err;
}

struct eval_ctx {
	const struct metric_instance *m;
	int (*value)(void *ctx, int ev, double *v);
	void *ctx;
};

static int lookup_id(void *ctx, const char *id, bool source_count, double *v)
{
	struct eval_ctx *ec = ctx;
	int i = id_index(ec->m->ids, id);

	if (i < 0)
		return -ENOENT;
	return ec->value(ec->ctx, ec->m->evs[i], v);
}

int metric_instance_eval(const struct metric_instance *m,
			 int (*value)(void *ctx, int ev, double *v), void *ctx, double *out)
{
	struct eval_ctx ec = { .m = m, .value = value, .ctx = ctx };
	struct metric_expr_ctx expr_ctx = { .lookup = lookup_id, .priv = &ec };
	double v;
	int err;

	/* as perf's prepare_metric(): a metric with an event that has no count is not computed */
	for (int i = 0; m->ids[i]; i++) {
		err = value(ctx, m->evs[i], &v);
		if (err)
			return err;
	}
	err = metric_expr_eval(m->def.expr, &expr_ctx, out);
	if (!err)
		*out *= m->scale;
	return err;
}

void metric_set_free(struct metric_set *set)
{
	for (int i = 0; i < set->nr; i++) {
		metric_expr_ids_free(set->metrics[i].ids);
		free(set->metrics[i].evs);
		free(set->metrics[i].unit);
	}
	free(set->metrics);
	memset(set, 0, sizeof(*set));
}
