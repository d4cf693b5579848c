// SPDX-License-Identifier: GPL-2.0-only
/* perf 6.1's __add_metric() and resolve_metric() over bperf's id set. */
#include "metric_refs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

/* the metrics being added, from the root down: a name met twice on the way is a loop */
struct visited {
	const char *name;
	const struct visited *parent;
};

struct adder {
	metric_find_fn find;
	void *priv;
	const struct metric_expr_ctx *ctx;
	struct metric_ids **ids;
	struct metric_refs *refs;
};

static int add_metric(struct adder *a, const char *name, const char *expr, bool root,
		      const struct visited *parent)
{
	const struct visited here = { .name = name, .parent = parent };
	const char **names = NULL, **exprs = NULL;
	struct metric_ids_iter it;
	char **keys = NULL;
	const char *id;
	int nr = 0, err, i;

	for (const struct visited *v = parent; v; v = v->parent) {
		if (!strcmp(v->name, name)) {
			pr_err("failed: recursion detected for %s", name);
			return -ELOOP;
		}
	}
	if (!root) {
		for (i = 0; i < a->refs->nr; i++)
			if (!strcmp(a->refs->names[i], name))
				return 0;
		a->refs->names = xgrow(a->refs->names, a->refs->nr, sizeof(char *));
		a->refs->exprs = xgrow(a->refs->exprs, a->refs->nr, sizeof(char *));
		a->refs->names[a->refs->nr] = name;
		a->refs->exprs[a->refs->nr++] = expr;
	}
	err = metric_expr_find_ids(expr, a->ctx, a->ids);
	if (err)
		return err;
	/* every id of the set that names a metric, in iteration order: all removed, then added */
	metric_ids_for_each(*a->ids, it, id) {
		const char *ref_name, *ref_expr;

		if (a->find(a->priv, id, &ref_name, &ref_expr))
			continue;
		keys = xgrow(keys, nr, sizeof(*keys));
		names = xgrow(names, nr, sizeof(*names));
		exprs = xgrow(exprs, nr, sizeof(*exprs));
		keys[nr] = xstrdup(id);
		names[nr] = ref_name;
		exprs[nr++] = ref_expr;
	}
	for (i = 0; i < nr; i++)
		metric_ids_delete(*a->ids, keys[i]);
	for (i = 0; i < nr && !err; i++)
		err = add_metric(a, names[i], exprs[i], false, &here);
	for (i = 0; i < nr; i++)
		free(keys[i]);
	free(keys);
	free(names);
	free(exprs);
	return err;
}

int metric_root_ids(const char *name, const char *expr, metric_find_fn find, void *priv,
		    const struct metric_expr_ctx *ctx, struct metric_ids **ids,
		    struct metric_refs *refs)
{
	struct adder a = { .find = find, .priv = priv, .ctx = ctx, .ids = ids, .refs = refs };

	return add_metric(&a, name, expr, true, NULL);
}

void metric_refs_free(struct metric_refs *refs)
{
	free(refs->names);
	free(refs->exprs);
	memset(refs, 0, sizeof(*refs));
}

int metric_refs_value(const struct metric_refs *refs, const char *id,
		      const struct metric_expr_ctx *ctx, double *value)
{
	for (int i = 0; i < refs->nr; i++)
		if (!strcmp(refs->names[i], id))
			return metric_expr_eval(refs->exprs[i], ctx, value);
	return -ENOENT;
}
