/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shared-counter leader's cgroups: the registered cgroups (cg_index, cg_accum, cg_users),
 * each CPU's cached paths, and how a slice is credited to its cgroup and registered ancestors.
 * leader.bpf.c includes it after its maps: one compilation unit, one object and skeleton.
 */
#ifndef BPERF_LEADER_CGROUPS_BPF_H
#define BPERF_LEADER_CGROUPS_BPF_H

/* The registered cgroups: kernfs id -> index in cg_accum, in the one inner map at key 0. */
struct cg_index_hash {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct leader_cg));
	__uint(max_entries, LEADER_CG_INDEX_MIN);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1);
	__array(values, struct cg_index_hash);
} cg_index SEC(".maps");

/*
 * A chunk of LEADER_CG_CHUNK cgroups' sums. value_size set by user space: nr_members struct
 * bpf_perf_event_value, so that a slice takes one lookup per cgroup. Sizes, not __type: the BTF
 * type would not match.
 */
struct cg_accum_chunk {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, LEADER_CG_CHUNK);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_CG_CHUNKS);
	__array(values, struct cg_accum_chunk);
} cg_accum SEC(".maps");

struct cg_users_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct leader_cg_users));
	__uint(max_entries, LEADER_CG_CHUNK);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_CG_CHUNKS);
	__array(values, struct cg_users_chunk);
} cg_users SEC(".maps");

/* Element idx of a chunked map (cg_accum, cg_users): chunk idx / LEADER_CG_CHUNK. */
static __always_inline void *chunk_elem(void *outer, __u32 idx)
{
	__u32 chunk = idx >> LEADER_CG_CHUNK_SHIFT, off = idx & (LEADER_CG_CHUNK - 1);
	void *inner = bpf_map_lookup_elem(outer, &chunk);

	return inner ? bpf_map_lookup_elem(inner, &off) : NULL;
}

/*
 * Per CPU, the registered cgroups (their cg_accum indices) on the paths of the last cgroups
 * slices ran in, so that a switch between cgroups it saw lately walks no path: the walk costs
 * up to three kernel reads and two lookups per level. A struct cgroup is known by its address
 * and its self.serial_nr (a cgroup made later at a freed one's address has another); a path is
 * good while filter_gen[LEADER_GEN_CG] holds the value it was walked at.
 */
struct cg_path {
	__u64 cgrp;	/* struct cgroup *; 0: never used */
	__u64 serial_nr;
	__u64 gen;
	__u32 nr;
	__u32 idx[LEADER_CG_MAX_LEVELS];
};

struct cg_paths {
	struct cg_path path[LEADER_CG_PATHS];
	__u32 next;	/* the entry the next miss replaces */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cg_paths);
	__uint(max_entries, 1);
} cg_paths SEC(".maps");

/*
 * The perf_event css of a task, as an address: that of the cgroup perf counts the task's events
 * in (perf_cgroup_from_task()), one read short of the cgroup itself, which is all a switch needs
 * to tell whether the cgroup changes.
 */
static __u64 task_perf_css(struct task_struct *task)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, perf_event_cgrp_id);

	return (__u64)BPF_CORE_READ(task, cgroups, subsys[id]);
}

/*
 * The kernfs id of cgrp's ancestor at level (cgrp's own at its level); level <= cgrp's. Not
 * inlined: in a loop the compiler would hoist the relocation of the field this kernel lacks
 * above the test for it, and the verifier refuses that instruction.
 */
static __noinline __u64 ancestor_id(struct cgroup *cgrp, __u32 level)
{
	struct cgroup *ancestor;

	if (bpf_core_field_exists(cgrp->ancestors)) {
		ancestor = BPF_CORE_READ(cgrp, ancestors[level]);
		return ancestor ? BPF_CORE_READ(ancestor, kn, id) : 0;
	}
	return BPF_CORE_READ((struct cgroup___ids *)cgrp, ancestor_ids[level]);
}

/*
 * A member's count for the cgroups of the slice. A context switch is counted for the task
 * switched out just after the tracepoint: a reading at a switch credits that increment to the
 * slice it ends at once, and the next reading takes it out of its own slice's delta.
 */
static __u64 cg_count(const struct slice *sl, __u32 m, __u32 at_switch)
{
	__u64 count = sl->delta[m & (LEADER_MAX_MEMBERS - 1)].counter;

	if (!(prev_owner_members & (1u << m)))
		return count;
	if (sl->cg_pending && count)
		count--;
	return count + at_switch;
}

/* This CPU's path p (of LEADER_CG_PATHS in cg_paths). */
static struct cg_path *cpu_path(__u32 p)
{
	struct cg_paths *paths;
	__u32 zero = 0;

	paths = bpf_map_lookup_elem(&cg_paths, &zero);
	return paths ? &paths->path[p & (LEADER_CG_PATHS - 1)] : NULL;
}

/* Adds cgrp's ancestor at level to path p if it is registered; 1 ends the walk. */
__noinline int collect_level(__u32 p, __u64 cgrp, __u32 level)
{
	struct cg_path *path = cpu_path(p);
	struct leader_cg_users *users;
	struct leader_cg *cg;
	__u32 idx, n, zero = 0;
	void *index;
	__u64 id;

	if (!path)
		return 1;
	n = path->nr;
	if (n >= LEADER_CG_MAX_LEVELS)
		return 1;
	index = bpf_map_lookup_elem(&cg_index, &zero);
	if (!index)
		return 1;
	id = ancestor_id((struct cgroup *)cgrp, level);
	cg = bpf_map_lookup_elem(index, &id);
	if (!cg)
		return 0;
	idx = cg->idx;
	/* an index being freed or reused meanwhile is not this cgroup's any more */
	users = chunk_elem(&cg_users, idx);
	if (!users || users->id != id)
		return 0;
	/*
	 * Checked again here, hidden from the compiler: 6.1's verifier loses the bound of the
	 * first check once n is spilled across the lookups.
	 */
	barrier_var(n);
	if (n >= LEADER_CG_MAX_LEVELS)
		return 1;
	path->idx[n] = idx;
	path->nr = n + 1;
	return 0;
}

/* The walk up from cgrp (at level) through its ancestors, into path p. */
__noinline int collect_levels(__u32 p, __u64 cgrp, __u32 level)
{
	__u32 i, nr = level + 1;

	BOUNDED_FOR(i, nr, LEADER_CG_MAX_LEVELS)
		if (collect_level(p, cgrp, level - i))
			break;
	return 0;
}

/* This CPU's path of cgrp: the one kept, or a fresh walk in place of the oldest; -1: none. */
static int find_path(struct cgroup *cgrp)
{
	__u32 zero = 0, key = LEADER_GEN_CG, i, p;
	struct cg_paths *paths;
	struct cg_path *path;
	__u64 serial, *gen;

	paths = bpf_map_lookup_elem(&cg_paths, &zero);
	gen = bpf_map_lookup_elem(&filter_gen, &key);
	if (!paths || !gen)
		return -1;
	serial = BPF_CORE_READ(cgrp, self.serial_nr);
	for (i = 0; i < LEADER_CG_PATHS; i++) {
		path = &paths->path[i];
		if (path->cgrp == (__u64)cgrp && path->serial_nr == serial && path->gen == *gen)
			return i;
	}
	p = paths->next & (LEADER_CG_PATHS - 1);
	path = &paths->path[p];
	paths->next++;
	/* the generation as read before cg_index: a change meanwhile leaves this path stale */
	path->cgrp = (__u64)cgrp;
	path->serial_nr = serial;
	path->gen = *gen;
	path->nr = 0;
	collect_levels(p, (__u64)cgrp, BPF_CORE_READ(cgrp, level));
	return p;
}

/* Every member's count of this CPU's slice, to path p's i-th registered cgroup: one lookup. */
__noinline int credit_index(__u32 p, __u32 i, __u32 at_switch)
{
	struct cg_path *path = cpu_path(p);
	struct bpf_perf_event_value *acc;
	__u32 m, idx, zero = 0;
	struct slice *sl;

	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	if (!path || !sl)
		return 0;
	/*
	 * Masked, not compared: after a comparison the compiler scales a copy of i, whose bound
	 * 5.10's verifier does not know (credit_path() keeps i below the path's length).
	 */
	idx = path->idx[i & (LEADER_CG_MAX_LEVELS - 1)];
	acc = chunk_elem(&cg_accum, idx);
	if (!acc)
		return 0;
	for (m = 0; m < LEADER_MAX_MEMBERS && m < nr_members; m++)
		add_slice(&acc[m], sl, m, cg_count(sl, m, at_switch), true);
	return 0;
}

__noinline int credit_path(__u32 p, __u32 nr, __u32 at_switch)
{
	__u32 i;

	BOUNDED_FOR(i, nr, LEADER_CG_MAX_LEVELS)
		credit_index(p, i, at_switch);
	return 0;
}

/*
 * The slice goes to the cgroup it ran in and to every registered ancestor, as perf's cgroup
 * events count their descendants, once however many sessions count them.
 */
static void credit_cgroups(struct slice *sl, bool at_switch)
{
	struct cgroup *cgrp = (struct cgroup *)sl->start_cgroup;
	struct cg_path *path;
	int p;

	if (!cgrp)
		return;
	p = find_path(cgrp);
	path = p < 0 ? NULL : cpu_path(p);
	if (path)
		credit_path(p, path->nr, at_switch);
}

#endif
