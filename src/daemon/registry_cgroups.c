// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's cgroups (registry.h): registered in every leader, and read as each cgroup's own
 * count. A leader adds a slice to the cgroup it ran in and to every registered ancestor, as
 * perf's cgroup events count descendants; a cgroup's own count is its sum less its counted
 * children's sums (each since its own registration), and "/" is the machine's count less the
 * top counted cgroups'. So the series of one family add up to the machine's count with no
 * slice counted twice. A cgroup removed is folded into its nearest counted ancestor: what its
 * tasks counted stays in the ancestor's sum and leaves the subtraction, so the ancestor's own
 * count does not jump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../counters/leader_cgroups.h"
#include "../counters/leader_info.h"
#include "registry_internal.h"

static void delta_of(struct reg_delta *d, const struct bpf_perf_event_value *now,
		     const struct bpf_perf_event_value *base)
{
	d->count = (long long)(now->counter - base->counter);
	d->enabled = (long long)(now->enabled - base->enabled);
	d->running = (long long)(now->running - base->running);
}

static void delta_add(struct reg_delta *d, const struct reg_delta *x, int sign)
{
	d->count += sign * x->count;
	d->enabled += sign * x->enabled;
	d->running += sign * x->running;
}

/* An own count below zero (see own_counts()) shows as 0. */
static void delta_to_snap(struct snap_value *v, const struct reg_delta *d)
{
	v->count = d->count > 0 ? d->count : 0;
	v->enabled = d->enabled > 0 ? d->enabled : 0;
	v->running = d->running > 0 ? d->running : 0;
}

static void cgroup_free(struct reg_cgroup *cg)
{
	free(cg->path);
	free(cg->idx);
	free(cg->base);
	free(cg->folded);
	free(cg->cpu_base);
	free(cg->cpu_folded);
	free(cg->cpu_now);
}

/* Why cgroups are not counted, once: the leader's per-cgroup sums are missing or full. */
static void cgroup_refused(struct registry *r, const struct reg_cgroup *cg, int err)
{
	if (r->cg_warned)
		return;
	r->cg_warned = true;
	if (err == -ENOSYS)
		pr_err("bperf daemon: per-cgroup counting is not available in this build: "
		       "only the CPU-wide series are exported");
	else
		pr_err("bperf daemon: cannot count cgroup %s%s: %s", cg->path,
		       err == -ENOSPC ? " (and further ones: bperf_daemon_cgroups_dropped)" : "",
		       strerror(-err));
}

/* Registers cg in every leader; all or nothing. The attr map is locked. */
static void cgroup_register(struct registry *r, struct reg_cgroup *cg)
{
	int i, err = 0;

	cg->tried = true;
	if (!cg->idx)
		cg->idx = xzalloc(r->nr_leaders * sizeof(*cg->idx));
	for (i = 0; i < r->nr_leaders && !err; i++)
		err = leader_cg_get(&r->leaders[i].h, r->leaders[i].slot, cg->id, &cg->idx[i]);
	cg->dropped = err == -ENOSPC;
	if (err) {
		for (i -= 2; i >= 0; i--)
			leader_cg_put(&r->leaders[i].h, r->leaders[i].slot, cg->id);
		cgroup_refused(r, cg, err);
		return;
	}
	cg->counted = true;
	r->nr_counted++;
	pr_debug(r->verbose, 2, "bperf daemon: counting cgroup %s", cg->path);
}

/*
 * locked: the attr map is, and the registrations are dropped; else they stay in the leaders
 * until the daemon's slots are released, which drops them all.
 */
static void cgroup_unregister(struct registry *r, struct reg_cgroup *cg, bool locked)
{
	int i;

	if (!cg->counted)
		return;
	for (i = 0; i < r->nr_leaders && locked; i++)
		leader_cg_put(&r->leaders[i].h, r->leaders[i].slot, cg->id);
	cg->counted = false;
	r->nr_counted--;
	pr_debug(r->verbose, 2, "bperf daemon: dropped cgroup %s", cg->path);
}

/* The cgroup of path (its first len bytes) in r->cgroups, or -1. */
static int find_cgroup(const struct registry *r, const char *path, size_t len)
{
	int lo = 0, hi = r->nr_cgroups - 1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strncmp(r->cgroups[mid].path, path, len);

		if (!c)
			c = r->cgroups[mid].path[len] ? 1 : 0;
		if (!c)
			return mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* The nearest counted proper ancestor of path among r->cgroups, or -1. */
static int nearest_counted(const struct registry *r, const char *path)
{
	size_t len = strlen(path);

	while (len > 1) {
		int i;

		while (len > 1 && path[len - 1] != '/')
			len--;
		if (len > 1)
			len--;	/* "/a/b" -> "/a" */
		else
			break;
		i = find_cgroup(r, path, len);
		if (i >= 0 && r->cgroups[i].counted)
			return i;
	}
	return -1;
}

/* Series per cgroup with CPU x cgroup series: each event's 1 or 3, on every online CPU. */
int registry_series_per_cpu_cgroup(const struct registry *r)
{
	int n = 0;

	for (int ev = 0; ev < r->nr_events; ev++)
		n += r->events[ev].scaled ? 3 : 1;
	return n * r->cpus.nr;
}

static bool listed_per_cpu(const struct registry *r, const char *path)
{
	return r->cpu_all ||
	       bsearch(&path, r->cpu_paths, r->nr_cpu_paths, sizeof(char *), registry_cmp_path);
}

/*
 * Which counted cgroups export CPU x cgroup series, within daemon.max-cgroup-cpu-series: a cgroup
 * keeps them once it has them; past the limit (daemon.cgroup-cpu-series = all) the first walk
 * stops the daemon, a later one says so once and leaves the new cgroups out.
 */
static void mark_per_cpu(struct registry *r)
{
	int per = registry_series_per_cpu_cgroup(r), fit = per ? r->max_cpu_series / per : 0;

	/* those that have them (removed ones are gone from the list) */
	r->nr_cpu_cgroups = 0;
	for (int i = 0; i < r->nr_cgroups; i++)
		r->nr_cpu_cgroups += r->cgroups[i].counted && r->cgroups[i].per_cpu;
	for (int i = 0; i < r->nr_cgroups; i++) {
		struct reg_cgroup *cg = &r->cgroups[i];

		if (!cg->counted || cg->per_cpu || !listed_per_cpu(r, cg->path))
			continue;
		if (r->nr_cpu_cgroups >= fit) {
			if (r->start_error)
				continue;
			if (!r->walked) {
				pr_err("bperf daemon: daemon.cgroup-cpu-series asks for more "
				       "than %d CPU x cgroup series (daemon.max-cgroup-cpu-series) "
				       "with the %d cgroups found", r->max_cpu_series,
				       r->nr_counted);
				r->start_error = -E2BIG;
			} else if (!r->cpu_full_warned) {
				pr_err("bperf daemon: no CPU x cgroup series for %s and further "
				       "cgroups: daemon.max-cgroup-cpu-series is %d", cg->path,
				       r->max_cpu_series);
				r->cpu_full_warned = true;
			}
			continue;
		}
		cg->per_cpu = true;
		cg->cpu_folded = xzalloc((size_t)r->nr_events * r->cpus.nr *
					 sizeof(*cg->cpu_folded));
		r->nr_cpu_cgroups++;
	}
}

/* Parents, places in the snapshot, and the counts of those with CPU series or dropped. */
static void link_cgroups(struct registry *r)
{
	int pos = 1, cpu_pos = 0;

	r->nr_dropped = 0;
	for (int i = 0; i < r->nr_cgroups; i++) {
		struct reg_cgroup *cg = &r->cgroups[i];

		cg->parent = cg->counted ? nearest_counted(r, cg->path) : -1;
		cg->pos = cg->counted ? pos++ : -1;
		cg->cpu_pos = cg->per_cpu && cg->counted ? cpu_pos++ : -1;
		r->nr_dropped += !cg->counted && cg->dropped;
	}
	r->nr_cpu_cgroups = cpu_pos;
}

static bool wants_cpu_values(const struct registry *r, const struct reg_cgroup *cg)
{
	return cg->counted && (cg->per_cpu || (cg->parent >= 0 && r->cgroups[cg->parent].per_cpu));
}

/*
 * cg's sums on each online CPU less its per-CPU bases (zero bases when base is NULL), for every
 * event, into out[event][CPU]: one read per leader.
 */
static int read_cpu_values(struct registry *r, const struct reg_cgroup *cg,
			   const struct bpf_perf_event_value *base, struct reg_delta *out)
{
	static const struct bpf_perf_event_value zero;
	int l, ev, c, err = 0;

	for (l = 0; l < r->nr_leaders && !err; l++) {
		const struct leader_handle *h = &r->leaders[l].h;
		size_t width = leader_nr_cpus(h);
		struct bpf_perf_event_value *raw =
			xzalloc(leader_nr_members(h) * width * sizeof(*raw));

		err = leader_cg_read_batch(h, cg->idx[l], 1, raw);
		for (ev = 0; ev < r->nr_events && !err; ev++) {
			const struct reg_event *e = &r->events[ev];

			if (e->leader != l)
				continue;
			for (c = 0; c < r->cpus.nr; c++) {
				size_t at = (size_t)ev * r->cpus.nr + c;
				int cpu = r->cpus.cpus[c];

				if (cpu >= 0 && (size_t)cpu < width)
					delta_of(&out[at], &raw[e->member * width + cpu],
						 base ? &base[at] : &zero);
			}
		}
		free(raw);
	}
	return err;
}

/*
 * Per-CPU bases for the cgroups that need them and have none (registered, or newly needed); a
 * cgroup whose values cannot be read has none (drop_baseless()).
 */
static void take_cpu_bases(struct registry *r)
{
	size_t n = (size_t)r->nr_events * r->cpus.nr;

	for (int i = 0; i < r->nr_cgroups; i++) {
		struct reg_cgroup *cg = &r->cgroups[i];
		struct reg_delta *now;

		if (!wants_cpu_values(r, cg) || cg->cpu_base)
			continue;
		now = xzalloc(n * sizeof(*now));
		if (!read_cpu_values(r, cg, NULL, now)) {
			cg->cpu_base = xzalloc(n * sizeof(*cg->cpu_base));
			cg->cpu_now = xzalloc(n * sizeof(*cg->cpu_now));
			for (size_t k = 0; k < n; k++)
				cg->cpu_base[k] = (struct bpf_perf_event_value){
					now[k].count, now[k].enabled, now[k].running };
		}
		free(now);
	}
}

static void sums_storage(struct registry *r, int nr)
{
	size_t need = (size_t)(nr ? nr : 1) * LEADER_MAX_MEMBERS;

	if (need > r->sums_cap) {
		free(r->sums);
		r->sums_cap = need * 2;
		r->sums = xzalloc(r->sums_cap * sizeof(*r->sums));
	}
	if ((size_t)nr + 1 > r->totals_cap) {
		free(r->totals);
		r->totals_cap = (nr + 1) * 2;
		r->totals = xzalloc(r->totals_cap * sizeof(*r->totals));
	}
}

/*
 * Leader l's sums over the CPUs of the counted cgroups cgs[0..nr) (pointers), into r->sums
 * ([k][member]): one bounded batch read per run of indices (leader_cg_sum()).
 */
static int read_sums(struct registry *r, int l, struct reg_cgroup **cgs, int nr)
{
	__u32 *idx = xzalloc((nr + 1) * sizeof(*idx));
	int err;

	sums_storage(r, nr);
	for (int k = 0; k < nr; k++)
		idx[k] = cgs[k]->idx[l];
	err = leader_cg_sum(&r->leaders[l].h, idx, nr, r->sums);
	free(idx);
	return err;
}

/* The sums over the CPUs of event ev for cgs[k] less their bases, into r->totals[k]. */
static void event_totals(struct registry *r, int ev, struct reg_cgroup **cgs, int nr)
{
	const struct reg_event *e = &r->events[ev];
	__u32 nr_members = leader_nr_members(&r->leaders[e->leader].h);

	for (int k = 0; k < nr; k++)
		delta_of(&r->totals[k], &r->sums[(size_t)k * nr_members + e->member],
			 &cgs[k]->base[ev]);
}

/* The counted cgroups, in path order. */
static struct reg_cgroup **counted_list(struct registry *r, int *nr)
{
	struct reg_cgroup **cgs = xzalloc((r->nr_cgroups + 1) * sizeof(*cgs));

	*nr = 0;
	for (int i = 0; i < r->nr_cgroups; i++)
		if (r->cgroups[i].counted)
			cgs[(*nr)++] = &r->cgroups[i];
	return cgs;
}

/* The sums over the CPUs now of cgs[0..nr), as their bases; 0 or -errno. */
static int read_bases(struct registry *r, struct reg_cgroup **cgs, int nr)
{
	int err = registry_sync(r);

	for (int l = 0; l < r->nr_leaders && nr && !err; l++) {
		__u32 nr_members = leader_nr_members(&r->leaders[l].h);

		err = read_sums(r, l, cgs, nr);
		for (int ev = 0; ev < r->nr_events; ev++)
			for (int k = 0; k < nr && !err && r->events[ev].leader == l; k++)
				cgs[k]->base[ev] = r->sums[(size_t)k * nr_members +
							   r->events[ev].member];
	}
	return err;
}

static bool has_bases(const struct registry *r, const struct reg_cgroup *cg)
{
	return cg->base && (!wants_cpu_values(r, cg) || cg->cpu_base);
}

/*
 * The counted cgroups with no bases (they could not be read): counted from 0 they would show
 * absolute counts, so they are not counted (nor exported) until registry_retry_bases() takes
 * their bases. Says so once until every base is read again. Returns how many.
 */
static int drop_baseless(struct registry *r, int err)
{
	struct attr_map map;
	bool locked = false;
	int nr = 0;

	for (int i = 0; i < r->nr_cgroups; i++) {
		struct reg_cgroup *cg = &r->cgroups[i];

		if (!cg->counted || has_bases(r, cg))
			continue;
		if (!nr++)
			locked = !attr_map_open_locked(&map, r->map_path);
		cgroup_unregister(r, cg, locked);
		free(cg->base);
		free(cg->cpu_base);
		free(cg->cpu_now);
		cg->base = NULL;
		cg->cpu_base = NULL;
		cg->cpu_now = NULL;
		cg->no_base = true;
	}
	if (locked)
		attr_map_close(&map);
	if (nr && !r->base_warned)
		pr_err("bperf daemon: cannot read the counts of %d new cgroup(s): %s (left out, "
		       "tried again at the next scrape)", nr, strerror(err ? -err : EIO));
	if (nr)
		r->bases_missing = true;
	else if (!r->bases_missing)
		r->base_warned = false;
	r->base_warned |= nr > 0;
	if (nr)
		link_cgroups(r);
	return nr;
}

/* Bases (sums over the CPUs, now) of the counted cgroups that have none yet. */
static void take_bases(struct registry *r)
{
	struct reg_cgroup **cgs = xzalloc((r->nr_cgroups + 1) * sizeof(*cgs));
	int nr = 0, err;

	for (int i = 0; i < r->nr_cgroups; i++)
		if (r->cgroups[i].counted && !r->cgroups[i].base)
			cgs[nr++] = &r->cgroups[i];
	for (int k = 0; k < nr; k++) {
		cgs[k]->base = xzalloc(r->nr_events * sizeof(*cgs[k]->base));
		if (!cgs[k]->folded)
			cgs[k]->folded = xzalloc(r->nr_events * sizeof(*cgs[k]->folded));
	}
	err = read_bases(r, cgs, nr);
	for (int k = 0; k < nr && err; k++) {
		free(cgs[k]->base);
		cgs[k]->base = NULL;
	}
	free(cgs);
	take_cpu_bases(r);
	drop_baseless(r, err);
}

void registry_retry_bases(struct registry *r)
{
	struct attr_map map;

	if (!r->bases_missing || attr_map_open_locked(&map, r->map_path))
		return;
	for (int i = 0; i < r->nr_cgroups; i++) {
		if (!r->cgroups[i].no_base)
			continue;
		r->cgroups[i].no_base = false;
		cgroup_register(r, &r->cgroups[i]);
	}
	attr_map_close(&map);
	r->bases_missing = false;
	mark_per_cpu(r);
	link_cgroups(r);
	take_bases(r);
}

/*
 * Folds removed cgroups (gone[0..nr), their old parents' removal in gone_parent[]) into their
 * nearest counted ancestor in the new list, or into "/": each removed cgroup whose own old
 * parent stays (a removed parent's sum holds its children's already).
 */
static void fold_removed(struct registry *r, struct reg_cgroup *gone, const bool *parent_gone,
			 int nr)
{
	struct reg_cgroup **cgs = xzalloc((nr + 1) * sizeof(*cgs));
	struct reg_delta *cpu = xzalloc((size_t)r->nr_events * r->cpus.nr * sizeof(*cpu));
	int n = 0;

	for (int i = 0; i < nr; i++)
		if (gone[i].counted && !parent_gone[i] && gone[i].base)
			cgs[n++] = &gone[i];
	for (int l = 0; l < r->nr_leaders && n; l++) {
		if (read_sums(r, l, cgs, n))
			break;
		for (int ev = 0; ev < r->nr_events; ev++) {
			if (r->events[ev].leader != l)
				continue;
			event_totals(r, ev, cgs, n);
			for (int k = 0; k < n; k++) {
				int a = nearest_counted(r, cgs[k]->path);

				delta_add(a >= 0 ? &r->cgroups[a].folded[ev] : &r->root_folded[ev],
					  &r->totals[k], 1);
			}
		}
	}
	for (int k = 0; k < n; k++) {
		int a = nearest_counted(r, cgs[k]->path);

		if (a < 0 || !r->cgroups[a].per_cpu || !cgs[k]->cpu_base ||
		    read_cpu_values(r, cgs[k], cgs[k]->cpu_base, cpu))
			continue;
		for (size_t j = 0; j < (size_t)r->nr_events * r->cpus.nr; j++)
			delta_add(&r->cgroups[a].cpu_folded[j], &cpu[j], 1);
	}
	free(cpu);
	free(cgs);
}

/* Registers the new cgroups (and those refused for space, once some left) under the lock. */
static void register_fresh(struct registry *r, struct reg_cgroup *gone, int nr_gone,
			   const bool *fresh, bool retry_dropped)
{
	struct attr_map map;
	bool locked = !attr_map_open_locked(&map, r->map_path);

	for (int i = 0; i < nr_gone; i++)
		cgroup_unregister(r, &gone[i], locked);
	for (int i = 0; i < r->nr_cgroups && locked; i++)
		if (fresh[i] || (retry_dropped && r->cgroups[i].dropped))
			cgroup_register(r, &r->cgroups[i]);
	if (locked)
		attr_map_close(&map);
}

/* A new entry of next for list's entry e. */
static void fresh_entry(struct reg_cgroup *cg, const struct cgroup_entry *e, double now)
{
	memset(cg, 0, sizeof(*cg));
	cg->path = xstrdup(e->path);
	cg->id = e->id;
	cg->created = now;
	cg->parent = -1;
}

void registry_set_cgroups(struct registry *r, const struct cgroup_entry *list, int nr)
{
	struct reg_cgroup *next = xzalloc((nr + 1) * sizeof(*next));
	struct reg_cgroup *gone = xzalloc((r->nr_cgroups + 1) * sizeof(*gone));
	bool *parent_gone = xzalloc((r->nr_cgroups + 1) * sizeof(*parent_gone));
	bool *old_gone = xzalloc((r->nr_cgroups + 1) * sizeof(*old_gone));
	bool *fresh = xzalloc((nr + 1) * sizeof(*fresh));
	int i = 0, j = 0, n = 0, nr_gone = 0, nr_fresh = 0, k;
	/* OpenMetrics' _created: the start for the cgroups there at the start */
	double now = r->walked ? registry_unix_now() : r->start;

	/* both sorted by path: a merge */
	while (i < r->nr_cgroups || j < nr) {
		int cmp = i == r->nr_cgroups ? 1 : j == nr ? -1 :
			  strcmp(r->cgroups[i].path, list[j].path);

		if (cmp == 0 && r->cgroups[i].id == list[j].id) {
			next[n] = r->cgroups[i++];
			/* one the attr map's lock kept out last time is tried again */
			if (!next[n].tried) {
				next[n].created = now;
				fresh[n] = true;
				nr_fresh++;
			}
			n++;
			j++;
			continue;
		}
		/* a cgroup removed and made again under its path is a new one */
		if (cmp <= 0) {
			old_gone[i] = true;
			gone[nr_gone++] = r->cgroups[i++];
		}
		if (cmp >= 0) {
			fresh_entry(&next[n], &list[j++], now);
			fresh[n++] = true;
			nr_fresh++;
		}
	}
	for (k = 0; k < nr_gone; k++)
		parent_gone[k] = gone[k].parent >= 0 && old_gone[gone[k].parent];
	if (nr_gone)
		registry_sync(r);
	free(r->cgroups);
	r->cgroups = next;
	r->nr_cgroups = n;
	if (nr_gone)
		fold_removed(r, gone, parent_gone, nr_gone);
	if ((nr_gone || nr_fresh) && r->nr_events)
		register_fresh(r, gone, nr_gone, fresh, nr_gone > 0);
	mark_per_cpu(r);
	link_cgroups(r);
	if (nr_fresh || nr_gone)
		take_bases(r);
	r->walked = true;
	for (k = 0; k < nr_gone; k++)
		cgroup_free(&gone[k]);
	free(gone);
	free(parent_gone);
	free(old_gone);
	free(fresh);
}

/*
 * Event ev's own counts: every counted cgroup's total less its folded descendants and its
 * counted children's totals, and "/"'s, the machine's less the top cgroups'. A count below zero
 * for a moment (a parent registered after its children: its sum starts later than theirs)
 * shows as 0.
 */
static void own_counts(struct registry *r, int ev, struct reg_cgroup **cgs, int nr,
		       struct snap_value *own)
{
	struct reg_delta *acc = xzalloc((nr + 1) * sizeof(*acc)), root = { 0 };

	for (int c = 0; c < r->cpus.nr; c++) {
		const struct snap_value *m = &r->snap_machine[(size_t)ev * r->cpus.nr + c];

		root.count += m->count;
		root.enabled += m->enabled;
		root.running += m->running;
	}
	delta_add(&root, &r->root_folded[ev], -1);
	for (int k = 0; k < nr; k++) {
		acc[k] = r->totals[k];
		delta_add(&acc[k], &cgs[k]->folded[ev], -1);
	}
	for (int k = 0; k < nr; k++) {
		int p = cgs[k]->parent;

		delta_add(p >= 0 ? &acc[r->cgroups[p].pos - 1] : &root, &r->totals[k], -1);
	}
	delta_to_snap(&own[0], &root);
	for (int k = 0; k < nr; k++)
		delta_to_snap(&own[k + 1], &acc[k]);
	free(acc);
}

/* A value less a child's, not below zero (see own_counts()). */
static void snap_less(__u64 *v, long long x)
{
	*v = (long long)*v > x ? *v - x : 0;
}

/* Takes a counted child's CPU values out of its per_cpu parent's CPU x cgroup series. */
static void less_child(struct registry *r, const struct reg_cgroup *parent,
		       const struct reg_cgroup *child)
{
	for (int ev = 0; ev < r->nr_events; ev++) {
		size_t at = ((size_t)ev * r->nr_cpu_cgroups + parent->cpu_pos) * r->cpus.nr;

		for (int c = 0; c < r->cpus.nr; c++) {
			const struct reg_delta *x = &child->cpu_now[(size_t)ev * r->cpus.nr + c];

			snap_less(&r->snap_own_cpu[at + c].count, x->count);
			snap_less(&r->snap_own_cpu[at + c].enabled, x->enabled);
			snap_less(&r->snap_own_cpu[at + c].running, x->running);
		}
	}
}

/* The CPU x cgroup series: each per_cpu cgroup's CPU values less its children's and folded. */
static int own_cpu_counts(struct registry *r)
{
	size_t n = (size_t)r->nr_events * r->cpus.nr;
	int err = 0;

	for (int i = 0; i < r->nr_cgroups && !err; i++)
		if (wants_cpu_values(r, &r->cgroups[i]) && r->cgroups[i].cpu_base)
			err = read_cpu_values(r, &r->cgroups[i], r->cgroups[i].cpu_base,
					      r->cgroups[i].cpu_now);
	for (int i = 0; i < r->nr_cgroups && !err; i++) {
		const struct reg_cgroup *cg = &r->cgroups[i];
		struct reg_delta *acc;
		int p = cg->parent;

		if (!cg->cpu_now || !cg->counted)
			continue;
		if (cg->per_cpu) {
			acc = xzalloc(n * sizeof(*acc));
			for (size_t k = 0; k < n; k++) {
				acc[k] = cg->cpu_now[k];
				delta_add(&acc[k], &cg->cpu_folded[k], -1);
			}
			for (int ev = 0; ev < r->nr_events; ev++)
				for (int c = 0; c < r->cpus.nr; c++)
					delta_to_snap(&r->snap_own_cpu[((size_t)ev *
						r->nr_cpu_cgroups + cg->cpu_pos) * r->cpus.nr + c],
						&acc[(size_t)ev * r->cpus.nr + c]);
			free(acc);
		}
		if (p >= 0 && r->cgroups[p].per_cpu)
			less_child(r, &r->cgroups[p], cg);
	}
	return err;
}

int registry_read_cgroups(struct registry *r)
{
	struct reg_cgroup **cgs;
	int nr, err = 0, nr_shown = 1 + r->nr_counted;

	cgs = counted_list(r, &nr);
	sums_storage(r, nr);
	for (int l = 0; l < r->nr_leaders && !err; l++) {
		if (nr)
			err = read_sums(r, l, cgs, nr);
		for (int ev = 0; ev < r->nr_events && !err; ev++) {
			if (r->events[ev].leader != l)
				continue;
			event_totals(r, ev, cgs, nr);
			own_counts(r, ev, cgs, nr, &r->snap_own[(size_t)ev * nr_shown]);
		}
	}
	free(cgs);
	return err ? err : own_cpu_counts(r);
}

void registry_free_cgroups(struct registry *r)
{
	struct attr_map map;
	int i;

	if (r->nr_counted) {
		bool locked = !attr_map_open_locked(&map, r->map_path);

		for (i = 0; i < r->nr_cgroups; i++)
			cgroup_unregister(r, &r->cgroups[i], locked);
		if (locked)
			attr_map_close(&map);
	}
	for (i = 0; i < r->nr_cgroups; i++)
		cgroup_free(&r->cgroups[i]);
	free(r->cgroups);
	for (i = 0; i < r->nr_cpu_paths; i++)
		free(r->cpu_paths[i]);
	free(r->cpu_paths);
	free(r->root_folded);
	free(r->sums);
	free(r->totals);
}
