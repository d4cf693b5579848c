// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared BPF backend: a session takes a slot in the leader of its event (one leader per
 * distinct attr on the host, found through the pinned attr map). A session counting threads
 * reads what the leader credited to its slot; one counting CPUs (-a, -C) takes differences of
 * the leader's raw per-CPU readings, so it costs nothing at a context switch; one counting a
 * cgroup (-G) registers the cgroup with the leader, which sums each registered cgroup once
 * however many sessions count it, and takes differences of those sums on each CPU. No BPF
 * trampolines: the leader does all the filtering itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "counter.h"
#include "leader.h"
#include "leader_cgroups.h"
#include "shared.h"
#include "shared_join.h"

struct shared_priv {
	struct leader_handle leader;
	struct shared_slot s;
	/*
	 * Every member's sums, read at once when the group's leader is read: perf reads a group
	 * in one read, with one enabled and running time for all its members (those of the
	 * first, the kernel schedules them together), and so do the members here.
	 */
	struct bpf_perf_event_value *vals; /* [member][possible CPUs] */
	int read_err;	/* of the last read of vals */
	/*
	 * A group the PMU cannot hold (more members than counters): no leader, and each
	 * member's refusal (0 for those the kernel took). perf prints such a group as
	 * <not counted>, its refused members as <not supported>; so does this session.
	 */
	bool refused;
	int member_err[LEADER_MAX_MEMBERS];
	const char *map_path;
	const struct target *target;
	struct perf_event_attr key;	/* the attr map key of the leader */
};

static int build_spec(const struct counter *c, const struct open_ctx *ctx,
		      struct leader_session_spec *spec)
{
	const struct target *t = ctx->target;

	memset(spec, 0, sizeof(*spec));
	spec->inherit = c->evsel->attr.inherit;
	if (c->evsel->cgroup) {
		spec->filter = FILTER_CGROUP;
		spec->cpus = t->cpus.cpus;
		spec->nr_cpus = t->cpus.nr;
		spec->cgroup_id = c->evsel->cgroup->id;
		return 0;
	}
	if (t->system_wide && t->threads.tids[0] == -1) {
		spec->filter = FILTER_CPU;
		spec->cpus = t->cpus.cpus;
		spec->nr_cpus = t->cpus.nr;
		return 0;
	}
	/* Threads, each followed into its children unless -i: perf's inherited counters. */
	spec->filter = FILTER_TID;
	spec->ids = t->threads.tids;
	spec->nr_ids = t->threads.nr;
	if (t->forked)
		spec->exec_tgid = t->threads.tids[0];
	return 0;
}

static int shared_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	struct perf_event_attr attrs[LEADER_MAX_MEMBERS], key;
	int nr = c->evsel->nr_members > 1 ? c->evsel->nr_members : 1;
	struct shared_priv *p;
	struct leader_session_spec spec;
	__u32 slot, cg_idx = 0;
	int err, m;

	/* One slot serves every CPU of the target, and every member of a group. */
	if (cpu_idx)
		return 0;
	if (c->leader != c) {
		p = c->leader->priv;
		/* the kernel's refusal of this member, as direct counting would meet it */
		return p && p->refused ? p->member_err[c->member_idx] : 0;
	}
	if (nr > LEADER_MAX_MEMBERS)
		return -E2BIG;
	for (m = 0; m < nr; m++)
		attrs[m] = (c->members ? c->members[m] : c)->evsel->parsed_attr;
	p = xzalloc(sizeof(*p));
	/* Before any leader is made: a BPF load costs far more than these opens. */
	if (nr > 1) {
		err = leader_probe_group(attrs, nr, p->member_err);
		if (err && p->member_err[0]) {
			free(p);
			return err;
		}
		if (err) {
			p->refused = true;
			c->priv = p;
			return 0;
		}
	}
	key = attrs[0];
	if (nr > 1)
		shared_group_key(attrs, nr, &key);
	p->map_path = ctx->bpf_attr_map ? ctx->bpf_attr_map : DEFAULT_ATTR_MAP_PATH;
	build_spec(c, ctx, &spec);
	spec.enabled = false;
	err = shared_join(p->map_path, &key, attrs, nr, &spec, c->evsel->name, ctx->verbose,
			  &p->leader, &slot, &cg_idx);
	if (err)
		goto fail;
	shared_slot_init(&p->s, &p->leader, slot, cg_idx, &spec, nr);
	p->target = ctx->target;
	p->key = key;
	p->vals = xzalloc(nr * p->leader.nr_cpus * sizeof(*p->vals));
	c->priv = p;
	return 0;
fail:
	free(p);
	/* -ECANCELED: reported already; an unsupported event's errno: <not supported> */
	return err;
}

void shared_slot_init(struct shared_slot *s, struct leader_handle *h, __u32 slot, __u32 cg_idx,
		      const struct leader_session_spec *spec, int nr_members)
{
	memset(s, 0, sizeof(*s));
	s->leader = h;
	s->slot = slot;
	s->filter = spec->filter;
	s->cgroup_id = spec->filter == FILTER_CGROUP ? spec->cgroup_id : 0;
	s->cg_idx = cg_idx;
	s->nr_members = nr_members;
	s->member = h->member;
	s->buf = xzalloc(h->nr_cpus * sizeof(*s->buf));
	if (s->filter != FILTER_TID) {
		s->base = xzalloc(nr_members * h->nr_cpus * sizeof(*s->base));
		s->saved = xzalloc(nr_members * h->nr_cpus * sizeof(*s->saved));
	}
}

void shared_slot_free(struct shared_slot *s)
{
	free(s->buf);
	free(s->base);
	free(s->saved);
	memset(s, 0, sizeof(*s));
}

static void add_value(struct bpf_perf_event_value *sum, const struct bpf_perf_event_value *now,
		      const struct bpf_perf_event_value *then)
{
	sum->counter += now->counter - then->counter;
	sum->enabled += now->enabled - then->enabled;
	sum->running += now->running - then->running;
}

/* -a / -C: the leader's raw readings; -G: its sums of the session's cgroup. */
static int read_sums(const struct shared_slot *s, __u32 member, struct bpf_perf_event_value *out)
{
	if (s->filter == FILTER_CGROUP)
		return leader_cg_read(s->leader, s->cg_idx, s->member + member, out);
	return leader_read_raw(s->leader, s->member + member, out);
}

/* -a, -C, -G: the leader's sums start (enable) or close (disable) a counted period. */
static int mark_cpu_period(struct shared_slot *s, bool enabled)
{
	__u32 nr_cpus = s->leader->nr_cpus, cpu, m;
	int err;

	for (m = 0; m < s->nr_members; m++) {
		struct bpf_perf_event_value *base = &s->base[m * nr_cpus];
		struct bpf_perf_event_value *saved = &s->saved[m * nr_cpus];

		err = read_sums(s, m, s->buf);
		if (err)
			return err;
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			if (s->enabled && !enabled)
				add_value(&saved[cpu], &s->buf[cpu], &base[cpu]);
			base[cpu] = s->buf[cpu];
		}
	}
	return 0;
}

int shared_slot_set_enabled_synced(struct shared_slot *s, bool enabled)
{
	int err = 0;

	if (s->filter != FILTER_TID && enabled != s->enabled)
		err = mark_cpu_period(s, enabled);
	if (err)
		return err;
	s->enabled = enabled;
	return leader_slot_set_enabled(s->leader, s->slot, enabled);
}

int shared_slot_set_enabled(struct shared_slot *s, bool enabled)
{
	/* Slices that ran before this moment belong to the old state. */
	int err = leader_sync(s->leader);

	return err ? err : shared_slot_set_enabled_synced(s, enabled);
}

/* -a, -C, -G: what each CPU counted in the enabled periods so far, into out[possible CPUs]. */
static int read_cpu_counts(struct shared_slot *s, __u32 member, struct bpf_perf_event_value *out)
{
	__u32 nr_cpus = s->leader->nr_cpus, cpu;
	const struct bpf_perf_event_value *base = &s->base[member * nr_cpus];
	const struct bpf_perf_event_value *saved = &s->saved[member * nr_cpus];
	int err;

	err = read_sums(s, member, out);
	if (err)
		return err;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		struct bpf_perf_event_value sum = saved[cpu];

		if (s->enabled)
			add_value(&sum, &out[cpu], &base[cpu]);
		out[cpu] = sum;
	}
	return 0;
}

int shared_slot_read(struct shared_slot *s, __u32 member, struct bpf_perf_event_value *out)
{
	if (s->filter != FILTER_TID)
		return read_cpu_counts(s, member, out);
	return leader_read(s->leader, s->slot, s->member + member, out);
}

static int shared_set_enabled(struct counter *c, bool enabled)
{
	struct shared_priv *p = c->priv;

	/* a group's members share their leader's slot */
	if (!p || p->refused || c->leader != c)
		return 0;
	return shared_slot_set_enabled(&p->s, enabled);
}

/* Brings the leader up to date and reads every member's sums into p->vals. */
static int read_members(struct shared_priv *p)
{
	__u32 m;
	int err;

	err = leader_sync(&p->leader);
	for (m = 0; m < p->s.nr_members && !err; m++)
		err = shared_slot_read(&p->s, m, &p->vals[m * p->leader.nr_cpus]);
	return err;
}

static int shared_enable(struct counter *c)
{
	return shared_set_enabled(c, true);
}

static int shared_disable(struct counter *c)
{
	return shared_set_enabled(c, false);
}

/* The members are read in list order, after their leader, which reads them all. */
static int shared_read(struct counter *c)
{
	struct shared_priv *p = c->leader->priv;
	const struct bpf_perf_event_value *vals, *times;
	const struct target *t;
	int i, cpu;

	if (!p)
		return 0;
	/* perf's read of a group short of members fails: the whole group is <not counted> */
	if (p->refused)
		return -ENOSPC;
	if (c->leader == c)
		p->read_err = read_members(p);
	if (p->read_err)
		return p->read_err;
	vals = &p->vals[c->member_idx * p->leader.nr_cpus];
	times = p->vals;
	memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
	if (p->s.filter != FILTER_TID) {
		t = p->target;
		for (i = 0; i < c->nr_cpus; i++) {
			cpu = t->cpus.cpus[i];
			if (cpu < 0 || (__u32)cpu >= p->leader.nr_cpus)
				continue;
			counter_count(c, i, 0)->val = vals[cpu].counter;
			counter_count(c, i, 0)->ena = times[cpu].enabled;
			counter_count(c, i, 0)->run = times[cpu].running;
		}
		return 0;
	}
	for (cpu = 0; cpu < (int)p->leader.nr_cpus; cpu++) {
		counter_count(c, 0, 0)->val += vals[cpu].counter;
		counter_count(c, 0, 0)->ena += times[cpu].enabled;
		counter_count(c, 0, 0)->run += times[cpu].running;
	}
	return 0;
}

static void shared_close(struct counter *c)
{
	struct shared_priv *p = c->priv;

	if (!p)
		return;
	if (p->refused)
		goto out;
	shared_leave(p->map_path, &p->key, &p->leader, p->s.slot, p->s.cgroup_id);
	shared_slot_free(&p->s);
out:
	free(p->vals);
	free(p);
	c->priv = NULL;
}

const struct counter_ops shared_counter_ops = {
	.name = "shared",
	.needs_bpf_caps = true,
	.open_cpu = shared_open_cpu,
	.enable = shared_enable,
	.disable = shared_disable,
	.read = shared_read,
	.close = shared_close,
};
