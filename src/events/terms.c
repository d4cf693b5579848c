// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built-in event terms (config=, name=, period=, ...): their checks and
 * messages as perf stat 6.1 gives them. perf stat "shrinks" the usable terms
 * to config, config1, config2, name, period, percore and metric-id; the
 * others are rejected as "not usable in 'perf stat'".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "events/parse_internal.h"

static const char *const term_names[TERM_NR] = {
	[TERM_USER] = "<sysfs term>",
	[TERM_CONFIG] = "config",
	[TERM_CONFIG1] = "config1",
	[TERM_CONFIG2] = "config2",
	[TERM_NAME] = "name",
	[TERM_SAMPLE_PERIOD] = "period",
	[TERM_SAMPLE_FREQ] = "freq",
	[TERM_BRANCH_SAMPLE_TYPE] = "branch_type",
	[TERM_TIME] = "time",
	[TERM_CALLGRAPH] = "call-graph",
	[TERM_STACKSIZE] = "stack-size",
	[TERM_NOINHERIT] = "no-inherit",
	[TERM_INHERIT] = "inherit",
	[TERM_MAX_STACK] = "max-stack",
	[TERM_MAX_EVENTS] = "nr",
	[TERM_OVERWRITE] = "overwrite",
	[TERM_NOOVERWRITE] = "no-overwrite",
	[TERM_DRV_CFG] = "driver-config",
	[TERM_PERCORE] = "percore",
	[TERM_AUX_OUTPUT] = "aux-output",
	[TERM_AUX_SAMPLE_SIZE] = "aux-sample-size",
	[TERM_METRIC_ID] = "metric-id",
};

const char *term_type_name(int type)
{
	if (type < 0 || type >= TERM_NR)
		return "?";
	return term_names[type];
}

void term_list_add(struct term_list *list, const struct term *t)
{
	struct term *n;

	list->terms = xgrow(list->terms, list->nr, sizeof(*list->terms));
	n = &list->terms[list->nr++];
	*n = *t;
	n->config = t->config ? xstrdup(t->config) : NULL;
	n->str = t->str ? xstrdup(t->str) : NULL;
}

void term_list_copy(struct term_list *dst, const struct term_list *src)
{
	dst->terms = NULL;
	dst->nr = 0;
	for (int i = 0; src && i < src->nr; i++)
		term_list_add(dst, &src->terms[i]);
}

void term_list_free(struct term_list *list)
{
	for (int i = 0; i < list->nr; i++) {
		free(list->terms[i].config);
		free(list->terms[i].str);
	}
	free(list->terms);
	list->terms = NULL;
	list->nr = 0;
}

/* The terms perf stat accepts (config_term_avail with the shrunk set) */
static bool term_usable_in_stat(int type)
{
	switch (type) {
	case TERM_CONFIG:
	case TERM_CONFIG1:
	case TERM_CONFIG2:
	case TERM_NAME:
	case TERM_METRIC_ID:
	case TERM_SAMPLE_PERIOD:
	case TERM_PERCORE:
		return true;
	default:
		return false;
	}
}

char *valid_terms_help(const char *pmu_formats)
{
	char list[256] = "";

	for (int i = 0; i < TERM_NR; i++) {
		if (!term_usable_in_stat(i))
			continue;
		if (list[0])
			strcat(list, ",");
		strcat(list, term_names[i]);
	}
	if (pmu_formats)
		return xasprintf("valid terms: %s,%s", pmu_formats, list);
	return xasprintf("valid terms: %s", list);
}

static int check_type(const struct term *t, bool want_str, struct parse_events_error *err)
{
	if (t->is_str == want_str)
		return 0;
	parse_error_add(err, t->err_val,
			xstrdup(want_str ? "expected string value" : "expected numeric value"), NULL);
	return -EINVAL;
}

int config_term_common(struct perf_event_attr *attr, const struct term *t,
		       struct parse_events_error *err)
{
	bool want_str = false;

	switch (t->type) {
	case TERM_CONFIG:
	case TERM_CONFIG1:
	case TERM_CONFIG2:
	case TERM_SAMPLE_PERIOD:
	case TERM_SAMPLE_FREQ:
	case TERM_STACKSIZE:
	case TERM_INHERIT:
	case TERM_NOINHERIT:
	case TERM_OVERWRITE:
	case TERM_NOOVERWRITE:
	case TERM_MAX_STACK:
	case TERM_MAX_EVENTS:
	case TERM_AUX_OUTPUT:
		break;
	case TERM_TIME:
	case TERM_PERCORE:
		if (check_type(t, false, err))
			return -EINVAL;
		if ((t->type == TERM_TIME && t->num > 1) ||
		    (t->type == TERM_PERCORE && (unsigned int)t->num > 1)) {
			parse_error_add(err, t->err_val, xstrdup("expected 0 or 1"), NULL);
			return -EINVAL;
		}
		break;
	case TERM_AUX_SAMPLE_SIZE:
		if (check_type(t, false, err))
			return -EINVAL;
		if (t->num > 0xffffffffULL) {
			parse_error_add(err, t->err_val, xstrdup("too big"), NULL);
			return -EINVAL;
		}
		break;
	case TERM_BRANCH_SAMPLE_TYPE:
	case TERM_CALLGRAPH:
	case TERM_NAME:
	case TERM_METRIC_ID:
		want_str = true;
		break;
	default:
		parse_error_add(err, t->err_term, xstrdup("unknown term"), valid_terms_help(NULL));
		return -EINVAL;
	}
	if (check_type(t, want_str, err))
		return -EINVAL;
	if (t->type == TERM_CONFIG)
		attr->config = t->num;
	else if (t->type == TERM_CONFIG1)
		attr->config1 = t->num;
	else if (t->type == TERM_CONFIG2)
		attr->config2 = t->num;

	/* checked after the value so that a bad sysfs term gets the better message */
	if (!term_usable_in_stat(t->type)) {
		parse_error_add(err, -1,
				xasprintf("'%s' is not usable in 'perf stat'", term_names[t->type]),
				NULL);
		return -EINVAL;
	}
	return 0;
}
