/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The inner maps of a leader's maps in maps (bpf/leader.h): user space makes them as slots,
 * threads and cgroups are registered, so that the leader's memory grows with those, and puts
 * them in the outer maps, which hold them from then on (they outlive the process that made
 * them). Callers hold the attr map lock, but for leader_inner_fd(), which readers call too.
 */
#ifndef BPERF_COUNTERS_LEADER_MAPS_H
#define BPERF_COUNTERS_LEADER_MAPS_H

#include <linux/types.h>

enum leader_inner {
	INNER_ACCUM,		/* a thread slot's sums: PERCPU_ARRAY[nr_members] */
	INNER_FILTER,		/* a thread slot's tids: HASH, no preallocation */
	INNER_CG_INDEX,		/* cgroup id -> index: HASH */
	INNER_CG_ACCUM,		/* LEADER_CG_CHUNK cgroups' sums: PERCPU_ARRAY */
	INNER_CG_USERS,		/* LEADER_CG_CHUNK cgroups' users: ARRAY */
	INNER_TASK_SLOTS,	/* the per-CPU cache of thread slots: PERCPU_ARRAY */
};

struct leader_handle;

/*
 * A new map of that kind (max_entries 0: its usual size; what the outer map was made with, for
 * the arrays), not in any outer map yet: an fd, or -errno. Also the template a leader's outer
 * map is made with.
 */
int leader_inner_new(enum leader_inner kind, __u32 nr_members, __u32 max_entries);
/* The same, put at key (empty) in the kind's outer map: its fd (the caller closes it) or -errno */
int leader_inner_create(const struct leader_handle *h, enum leader_inner kind, __u32 key,
			__u32 max_entries);
/* Puts fds[0..n) at keys[0..n) (empty) in the kind's outer map: 0 or -errno. */
int leader_inner_put(const struct leader_handle *h, enum leader_inner kind, __u32 *keys,
		     int *fds, __u32 n);
/*
 * Puts fd at key in place of the map there: returns once no leader run can be using the old
 * one, which the caller then closes (leader_inner_release()). 0 or -errno.
 */
int leader_inner_replace(const struct leader_handle *h, enum leader_inner kind, __u32 key, int fd);
/* An fd of the kind's inner map at key, or -errno (-ENOENT: none there). Needs no lock. */
int leader_inner_fd(const struct leader_handle *h, enum leader_inner kind, __u32 key);
/* Closes fds[0..nr) (negative ones skipped): maps replaced, no program can be using them. */
void leader_inner_release(const int *fds, int nr);

#endif
