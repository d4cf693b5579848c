// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading the generated tables (layout in pmu_tables_data.h): records of offsets into one string
 * pool, decoded into perf's fields on demand. Pure data access, nothing else: the tests build it
 * for the build machine to check another architecture's tables too.
 */
#include "events/pmu_tables.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

#include "events/pmu_tables_data.h"

static const char *pool_str(uint32_t off)
{
	return off ? pmu_tables_data.pool + off : NULL;
}

static const char *short_str(uint16_t idx)
{
	return pool_str(pmu_tables_data.shorts[idx]);
}

const char *pmu_table_name(const struct pmu_table *t)
{
	return pool_str(t->name);
}

size_t pmu_table_size(const struct pmu_table *t)
{
	return t->count;
}

void pmu_table_entry(const struct pmu_table *t, size_t i, struct pmu_table_entry *e)
{
	const struct pmu_table_rec *r =
		&pmu_tables_data.recs[pmu_tables_data.entries[t->first + i]];

	*e = (struct pmu_table_entry){
		.name = pool_str(r->name),
		.compat = short_str(r->compat),
		.event = pool_str(r->event),
		.desc = pool_str(r->desc),
		.topic = short_str(r->topic),
		.long_desc = pool_str(r->long_desc),
		.pmu = short_str(r->pmu),
		.unit = short_str(r->unit),
		.perpkg = short_str(r->perpkg),
		.aggr_mode = short_str(r->aggr_mode),
		.metric_expr = pool_str(r->metric_expr),
		.metric_name = pool_str(r->metric_name),
		.metric_group = pool_str(r->metric_group),
		.deprecated = short_str(r->deprecated),
		.metric_constraint = short_str(r->metric_constraint),
	};
}

int pmu_table_for_each(const struct pmu_table *t, pmu_table_fn fn, void *data)
{
	struct pmu_table_entry e;
	int ret;

	for (size_t i = 0; i < t->count; i++) {
		pmu_table_entry(t, i, &e);
		ret = fn(&e, data);
		if (ret)
			return ret;
	}
	return 0;
}

int pmu_table_find_metric(const struct pmu_table *t, const char *name,
			  struct pmu_table_entry *e)
{
	for (size_t i = 0; i < t->count; i++) {
		const struct pmu_table_rec *r =
			&pmu_tables_data.recs[pmu_tables_data.entries[t->first + i]];

		/* compare before decoding: a lookup touches only the names */
		if (r->metric_name && !strcasecmp(pool_str(r->metric_name), name)) {
			pmu_table_entry(t, i, e);
			return 0;
		}
	}
	return -ENOENT;
}

size_t pmu_tables_map_size(void)
{
	return pmu_tables_data.nr_map;
}

const struct pmu_table *pmu_tables_map_row(size_t i, const char **arch, const char **cpuid)
{
	const struct pmu_table_map_row *row = &pmu_tables_data.map[i];

	if (arch)
		*arch = pool_str(row->arch);
	if (cpuid)
		*cpuid = pool_str(row->cpuid);
	return &pmu_tables_data.tables[row->table];
}

size_t pmu_tables_sys_size(void)
{
	return pmu_tables_data.nr_sys_tables;
}

const struct pmu_table *pmu_tables_sys_table(size_t i)
{
	return &pmu_tables_data.tables[pmu_tables_data.sys_tables[i]];
}

int pmu_tables_for_each_sys(const char *compat, pmu_table_fn fn, void *data)
{
	struct pmu_table_entry e;
	int ret;

	for (size_t s = 0; s < pmu_tables_data.nr_sys_tables; s++) {
		const struct pmu_table *t = pmu_tables_sys_table(s);

		for (size_t i = 0; i < t->count; i++) {
			pmu_table_entry(t, i, &e);
			if (compat && (!e.compat || strcmp(e.compat, compat)))
				continue;
			ret = fn(&e, data);
			if (ret)
				return ret;
		}
	}
	return 0;
}
