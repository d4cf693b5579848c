// SPDX-License-Identifier: GPL-2.0-only
/*
 * `pmu/terms/` events and bare sysfs aliases, as perf 6.1's
 * parse_events_add_pmu: aliases are replaced by their terms (unit and scale
 * come with them), built-in terms are applied, then each sysfs term is
 * scattered into config/config1/config2 through its format bits. A PMU name
 * that does not match exactly is retried as a glob over all PMUs.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/common.h"
#include "events/pmu.h"

static int verbosity(const struct parse_state *state)
{
	return state->ctx ? state->ctx->verbose : 0;
}

static void print_terms(const char *what, const char *pmu, const struct term_list *terms)
{
	fprintf(stderr, "%s event pmu '%s' with '", what, pmu);
	for (int i = 0; terms && i < terms->nr; i++)
		fprintf(stderr, "%s,", terms->terms[i].config ? terms->terms[i].config : "(null)");
	fprintf(stderr, "' that may result in non-fatal errors\n");
}

/* perf's pmu_find_alias: `alias`, `alias=1` or `event=alias` */
static struct pmu_alias *find_alias(const struct pmu_set *set, struct pmu *pmu,
				    const struct term *t)
{
	const char *name;

	if (t->type != TERM_USER)
		return NULL;
	if (!t->is_str) {
		if (t->num != 1)
			return NULL;
		if (pmu_find_format(pmu, t->config))
			return NULL;
		name = t->config;
	} else {
		if (strcasecmp(t->config, "event"))
			return NULL;
		name = t->str;
	}
	pmu_load_table_aliases(set, pmu);
	for (int i = 0; i < pmu->nr_aliases; i++)
		if (!strcasecmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

struct alias_info {
	const char *unit;
	double scale;
	bool snapshot;
	bool per_pkg;
};

/* Replaces alias terms by their definitions; only one alias may bring unit or scale. */
static int expand_aliases(const struct pmu_set *set, struct pmu *pmu, struct term_list *terms,
			  struct alias_info *info)
{
	struct term_list out = { NULL, 0 };

	memset(info, 0, sizeof(*info));
	for (int i = 0; i < terms->nr; i++) {
		struct pmu_alias *a = find_alias(set, pmu, &terms->terms[i]);

		if (!a) {
			term_list_add(&out, &terms->terms[i]);
			continue;
		}
		if (pmu_alias_terms(a)) {
			term_list_free(&out);
			return -EINVAL;
		}
		for (int j = 0; j < a->terms.nr; j++)
			term_list_add(&out, &a->terms.terms[j]);
		if ((info->unit && a->unit[0]) || (info->scale != 0.0 && a->scale != 0.0) ||
		    (info->snapshot && a->snapshot)) {
			term_list_free(&out);
			return -EINVAL;
		}
		if (a->unit[0])
			info->unit = a->unit;
		if (a->scale != 0.0)
			info->scale = a->scale;
		if (a->snapshot)
			info->snapshot = true;
		if (a->per_pkg)
			info->per_pkg = true;
	}
	term_list_free(terms);
	*terms = out;
	if (!info->unit)
		info->unit = "";
	if (info->scale == 0.0)
		info->scale = 1.0;
	return 0;
}

static int config_sysfs_term(struct parse_state *state, const struct pmu *pmu,
			     struct perf_event_attr *attr, const struct term *t)
{
	const struct pmu_format *f;
	__u64 *vp;
	uint64_t val, max, word;

	if (t->type != TERM_USER)
		return 0;	/* built-in terms are already in */
	f = pmu_find_format(pmu, t->config);
	if (!f) {
		char *formats = pmu_formats_string(pmu);

		parse_error_add(state->err, t->err_term,
				xasprintf("unknown term '%s' for pmu '%s'", t->config, pmu->name),
				valid_terms_help(formats));
		free(formats);
		return -EINVAL;
	}
	switch (f->value) {
	case FORMAT_CONFIG1:
		vp = &attr->config1;
		break;
	case FORMAT_CONFIG2:
		vp = &attr->config2;
		break;
	default:
		vp = &attr->config;
		break;
	}
	if (t->is_str) {
		if (strcmp(t->str, "?"))
			parse_error_add(state->err, t->err_val, xstrdup("expected numeric value"),
					NULL);
		return -EINVAL;
	}
	val = t->num;
	max = pmu_format_max(f->bits);
	if (val > max) {
		parse_error_add(state->err, t->err_val,
				xasprintf("value too big for format, maximum is %llu",
					  (unsigned long long)max),
				NULL);
		return -EINVAL;
	}
	word = *vp;
	pmu_format_apply(f->bits, val, &word);
	*vp = word;
	return 0;
}

static struct evsel *new_pmu_evsel(struct parse_state *state, const struct pmu *pmu,
				   const struct perf_event_attr *attr, const char *name)
{
	struct evsel *e = state_new_evsel(state, attr, name);

	free(e->pmu_name);
	e->pmu_name = xstrdup(pmu->name);
	e->requires_cpu = pmu->is_uncore;
	e->sysfs_pmu = true;
	e->auto_merge = state->auto_merge;
	e->cpumask = pmu->cpumask ? xstrdup(pmu->cpumask) : NULL;
	/* cpu_core/.../: counted on that PMU's CPUs, as the hybrid copies of legacy events */
	e->hybrid = pmu_is_hybrid(pmu);
	return e;
}

static int add_pmu(struct parse_state *state, const char *pmu_name, const struct term_list *in)
{
	struct pmu *pmu = pmu_find(state->pmus, pmu_name);
	struct term_list terms;
	struct perf_event_attr attr;
	struct alias_info info;
	const char *name = NULL;
	bool percore = false;
	struct evsel *e;

	if (verbosity(state) > 1)
		print_terms("Attempting to add", pmu_name, in);
	if (!pmu) {
		parse_error_add(state->err, 0,
				xasprintf("Cannot find PMU `%s'. Missing kernel support?", pmu_name),
				NULL);
		return -EINVAL;
	}
	memset(&attr, 0, sizeof(attr));
	if (!in || !in->nr) {
		attr.type = pmu->type;
		new_pmu_evsel(state, pmu, &attr, NULL);
		return 0;
	}
	term_list_copy(&terms, in);
	if (expand_aliases(state->pmus, pmu, &terms, &info))
		goto fail;
	if (verbosity(state) > 1)
		print_terms("After aliases, add", pmu_name, &terms);
	for (int i = 0; i < terms.nr; i++) {
		const struct term *t = &terms.terms[i];

		if (t->type == TERM_USER || t->type == TERM_DRV_CFG)
			continue;
		if (config_term_common(&attr, t, state->err))
			goto fail;
	}
	for (int i = 0; i < terms.nr; i++) {
		const struct term *t = &terms.terms[i];

		if (t->type == TERM_NAME && !name)
			name = t->str;
		if (t->type == TERM_PERCORE)
			percore = t->num != 0;
	}
	attr.type = pmu->type;
	for (int i = 0; i < terms.nr; i++)
		if (config_sysfs_term(state, pmu, &attr, &terms.terms[i]))
			goto fail;
	e = new_pmu_evsel(state, pmu, &attr, name);
	e->name_given = name != NULL;
	e->percore = percore;
	e->unit = xstrdup(info.unit);
	e->unit_owned = true;
	e->scale = info.scale;
	e->per_pkg = info.per_pkg;
	term_list_free(&terms);
	return 0;
fail:
	term_list_free(&terms);
	return -EINVAL;
}

int add_pmu_event(struct parse_state *state, const char *pmu_name, struct term_list *terms,
		  bool use_alias)
{
	(void)use_alias;
	return add_pmu(state, pmu_name, terms);
}

int add_pmu_glob(struct parse_state *state, const char *name, struct term_list *terms)
{
	char *pattern;
	int ok = 0;

	if (!add_pmu(state, name, terms))
		return 0;
	pattern = xasprintf("%s*", name);
	pmu_scan_all(state->pmus);
	state->auto_merge = true;
	for (int i = 0; i < state->pmus->nr; i++) {
		const char *pname = state->pmus->list[i]->name;

		/* "uncore_" is implied unless the user wrote it */
		if (!strncmp(pname, "uncore_", 7) && strncmp(name, "uncore_", 7))
			pname += 7;
		if (fnmatch(pattern, pname, 0) || !pmu_valid_suffix(pname, name))
			continue;
		if (!add_pmu(state, state->pmus->list[i]->name, terms))
			ok++;
	}
	state->auto_merge = false;
	free(pattern);
	return ok ? 0 : -EINVAL;
}

int add_multi_pmu_alias(struct parse_state *state, const char *alias, struct term_list *terms)
{
	struct term_list all;
	struct term t = {
		.type = TERM_USER,
		.config = (char *)alias,
		.num = 1,
	};
	int ok = 0;

	term_list_copy(&all, terms);
	term_list_add(&all, &t);
	/* perf_pmu__scan: every PMU read, in order, before the first is looked at */
	pmu_load_all_table_aliases(state->pmus);
	state->auto_merge = true;
	for (int i = 0; i < state->pmus->nr; i++) {
		struct pmu *pmu = state->pmus->list[i];

		for (int j = 0; j < pmu->nr_aliases; j++) {
			if (strcasecmp(pmu->aliases[j].name, alias))
				continue;
			if (!add_pmu(state, pmu->name, &all) && !pmu_alias_terms(&pmu->aliases[j])) {
				if (verbosity(state) > 0)
					fprintf(stderr, "%s -> %s/%s/\n", alias, pmu->name,
						pmu->aliases[j].str);
				ok++;
			}
		}
	}
	state->auto_merge = false;
	term_list_free(&all);
	return ok ? 0 : -1;
}
