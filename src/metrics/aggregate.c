// SPDX-License-Identifier: GPL-2.0-only
#include "aggregate.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

int aggr_ids_build(enum aggr_mode mode, const struct target *target, struct aggr_id **ids)
{
	struct aggr_id *id;
	int i, nr;

	switch (mode) {
	case AGGR_NONE:
		nr = target->cpus.nr;
		break;
	case AGGR_THREAD:
		nr = target->threads.nr;
		break;
	default:
		nr = 1;
		break;
	}
	id = xzalloc(nr * sizeof(*id));
	for (i = 0; i < nr; i++) {
		id[i].cpu = mode == AGGR_NONE ? target->cpus.cpus[i] : -1;
		if (mode == AGGR_THREAD) {
			id[i].tid = target->threads.tids[i];
			snprintf(id[i].comm, sizeof(id[i].comm), "%s", target->threads.comms[i]);
		}
	}
	*ids = id;
	return nr;
}

static int aggr_index(enum aggr_mode mode, int cpu_idx, int thread_idx)
{
	switch (mode) {
	case AGGR_NONE:
		return cpu_idx;
	case AGGR_THREAD:
		return thread_idx;
	default:
		return 0;
	}
}

/* perf scales by enabled/running, truncating, and zeroes a count that never ran. */
static void scale_value(struct counter_value *v, bool scale)
{
	if (!scale)
		return;
	if (!v->run)
		v->count = 0;
	else if (v->run < v->ena)
		v->count = (double)double_to_u64(v->count * (double)v->ena / (double)v->run);
}

static int topo_id(const int *ids, const struct cpu_topology *topo, int cpu)
{
	return ids && cpu >= 0 && cpu < topo->nr ? ids[cpu] : -1;
}

static struct aggr_id cpu_aggr_id(enum aggr_mode mode, const struct cpu_topology *topo, int cpu)
{
	struct aggr_id id = { .cpu = -1, .socket = -1, .die = -1, .core = -1, .node = -1 };

	if (mode == AGGR_NODE) {
		id.node = topo_id(topo->node, topo, cpu);
		return id;
	}
	id.socket = topo_id(topo->socket, topo, cpu);
	if (mode == AGGR_DIE || mode == AGGR_CORE)
		id.die = topo_id(topo->die, topo, cpu);
	if (mode == AGGR_CORE)
		id.core = topo_id(topo->core, topo, cpu);
	return id;
}

static int cmp_aggr_id(const void *a, const void *b)
{
	const struct aggr_id *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->socket != y->socket)
		return x->socket < y->socket ? -1 : 1;
	if (x->die != y->die)
		return x->die < y->die ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	return 0;
}

int aggr_ids_build_topology(enum aggr_mode mode, const struct cpu_map *cpus,
			    const struct cpu_topology *topo, struct aggr_id **ids, int **cpu_aggr)
{
	struct aggr_id *id = xzalloc((cpus->nr + 1) * sizeof(*id));
	int *map = xzalloc((cpus->nr + 1) * sizeof(*map));
	int nr = 0, i, k;

	for (i = 0; i < cpus->nr; i++) {
		struct aggr_id one = cpu_aggr_id(mode, topo, cpus->cpus[i]);

		for (k = 0; k < nr && cmp_aggr_id(&id[k], &one); k++)
			;
		if (k == nr)
			id[nr++] = one;
	}
	qsort(id, nr, sizeof(*id), cmp_aggr_id);
	for (i = 0; i < cpus->nr; i++) {
		struct aggr_id one = cpu_aggr_id(mode, topo, cpus->cpus[i]);

		map[i] = (struct aggr_id *)bsearch(&one, id, nr, sizeof(*id), cmp_aggr_id) - id;
	}
	*ids = id;
	*cpu_aggr = map;
	return nr;
}

void aggregate_counts(const struct counter *counters, int nr_counters,
		      const struct raw_count *const *prev, enum aggr_mode mode, int nr_aggr,
		      bool scale, struct counter_value *values)
{
	aggregate_counts_mapped(counters, nr_counters, prev, mode, nr_aggr, NULL, scale, values);
}

void aggregate_counts_mapped(const struct counter *counters, int nr_counters,
			     const struct raw_count *const *prev, enum aggr_mode mode, int nr_aggr,
			     const int *cpu_aggr, bool scale, struct counter_value *values)
{
	int ev, cpu, t, a;

	memset(values, 0, (size_t)nr_counters * nr_aggr * sizeof(*values));
	for (ev = 0; ev < nr_counters; ev++) {
		const struct counter *c = &counters[ev];
		struct counter_value *row = &values[ev * nr_aggr];

		for (cpu = 0; cpu < c->nr_cpus; cpu++) {
			a = cpu_aggr ? cpu_aggr[cpu] : aggr_index(mode, cpu, 0);
			if (cpu_aggr)
				row[a].nr_cpus++;
			for (t = 0; t < c->nr_threads; t++) {
				int i = cpu * c->nr_threads + t;
				struct raw_count d = c->counts[i];

				if (prev && prev[ev]) {
					d.val -= prev[ev][i].val;
					d.ena -= prev[ev][i].ena;
					d.run -= prev[ev][i].run;
				}
				if (!cpu_aggr)
					a = aggr_index(mode, cpu, t);
				row[a].count += (double)d.val;
				row[a].ena += d.ena;
				row[a].run += d.run;
			}
		}
		for (a = 0; a < nr_aggr; a++) {
			if (!cpu_aggr)
				row[a].nr_cpus = mode == AGGR_NONE ? 1 : c->nr_cpus;
			/* A tool event lives on the first CPU only: -A prints no other line. */
			row[a].absent = c->evsel->tool && mode == AGGR_NONE && a > 0;
			scale_value(&row[a], scale);
		}
	}
}
