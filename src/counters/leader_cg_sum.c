// SPDX-License-Identifier: GPL-2.0-only
/*
 * A reader of many cgroups (the daemon) wants each cgroup's sums over the CPUs: read in runs of
 * consecutive indices, a bounded number at a time, so that the buffer holds at most
 * CG_SUM_BATCH cgroups x members x possible CPUs whatever the number of cgroups.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "leader_cgroups.h"
#include "leader_info.h"

/* cgroups per batch read: 64 x 8 members x 256 CPUs x 24 bytes is 3 MiB at most */
#define CG_SUM_BATCH 64

struct idx_pos {
	__u32 idx;
	__u32 pos;	/* where in the caller's list */
};

static int cmp_idx(const void *a, const void *b)
{
	const struct idx_pos *x = a, *y = b;

	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The run of consecutive indices from order[at] on, at most CG_SUM_BATCH long. */
static __u32 run_length(const struct idx_pos *order, __u32 at, __u32 nr)
{
	__u32 n = 1;

	while (at + n < nr && n < CG_SUM_BATCH && order[at + n].idx == order[at].idx + n)
		n++;
	return n;
}

static void add_value(struct bpf_perf_event_value *sum, const struct bpf_perf_event_value *v)
{
	sum->counter += v->counter;
	sum->enabled += v->enabled;
	sum->running += v->running;
}

/* Adds up the CPUs of a batch (leader_cg_read_batch()'s order) into the callers' slots. */
static void sum_run(const struct leader_handle *h, const struct bpf_perf_event_value *raw,
		    const struct idx_pos *run, __u32 n, struct bpf_perf_event_value *out)
{
	__u32 i, m, cpu, nr_members = leader_nr_members(h), nr_cpus = leader_nr_cpus(h);

	for (i = 0; i < n; i++) {
		for (m = 0; m < nr_members; m++) {
			struct bpf_perf_event_value *sum = &out[(size_t)run[i].pos * nr_members + m];
			const struct bpf_perf_event_value *v = &raw[((size_t)i * nr_members + m) * nr_cpus];

			memset(sum, 0, sizeof(*sum));
			for (cpu = 0; cpu < nr_cpus; cpu++)
				add_value(sum, &v[cpu]);
		}
	}
}

int leader_cg_sum(const struct leader_handle *h, const __u32 *idx, __u32 nr,
		  struct bpf_perf_event_value *out)
{
	struct idx_pos *order = xzalloc((nr ? nr : 1) * sizeof(*order));
	struct bpf_perf_event_value *raw;
	__u32 i, n;
	int err = 0;

	for (i = 0; i < nr; i++)
		order[i] = (struct idx_pos){ .idx = idx[i], .pos = i };
	qsort(order, nr, sizeof(*order), cmp_idx);
	raw = xzalloc((size_t)CG_SUM_BATCH * leader_nr_members(h) * leader_nr_cpus(h) *
		      sizeof(*raw));
	for (i = 0; i < nr && !err; i += n) {
		n = run_length(order, i, nr);
		err = leader_cg_read_batch(h, order[i].idx, n, raw);
		if (!err)
			sum_run(h, raw, &order[i], n, out);
	}
	free(raw);
	free(order);
	return err;
}
