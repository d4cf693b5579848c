// SPDX-License-Identifier: GPL-2.0-only
#include "aggregate.h"

#include <string.h>

#include "../common.h"

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
		v->count = (double)(__u64)(v->count * (double)v->ena / (double)v->run);
}

void aggregate_counts(const struct counter *counters, int nr_counters,
		      const struct raw_count *const *prev, enum aggr_mode mode, int nr_aggr,
		      bool scale, struct counter_value *values)
{
	int ev, cpu, t, a;

	memset(values, 0, (size_t)nr_counters * nr_aggr * sizeof(*values));
	for (ev = 0; ev < nr_counters; ev++) {
		const struct counter *c = &counters[ev];
		struct counter_value *row = &values[ev * nr_aggr];

		for (cpu = 0; cpu < c->nr_cpus; cpu++) {
			for (t = 0; t < c->nr_threads; t++) {
				int i = cpu * c->nr_threads + t;
				struct raw_count d = c->counts[i];

				if (prev && prev[ev]) {
					d.val -= prev[ev][i].val;
					d.ena -= prev[ev][i].ena;
					d.run -= prev[ev][i].run;
				}
				a = aggr_index(mode, cpu, t);
				row[a].count += (double)d.val;
				row[a].ena += d.ena;
				row[a].run += d.run;
			}
		}
		for (a = 0; a < nr_aggr; a++) {
			row[a].nr_cpus = mode == AGGR_NONE ? 1 : c->nr_cpus;
			/* A tool event lives on the first CPU only: -A prints no other line. */
			row[a].absent = c->evsel->tool && mode == AGGR_NONE && a > 0;
			scale_value(&row[a], scale);
		}
	}
}
