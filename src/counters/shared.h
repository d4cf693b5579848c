/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's slot in a shared leader, for whoever holds one: bperf stat's shared backend
 * (shared.c) and the daemon, which holds slots for its unprivileged clients (src/daemon/):
 * enabling, disabling and reading it, with the differences -a, -C and -G sessions take.
 */
#ifndef BPERF_COUNTERS_SHARED_H
#define BPERF_COUNTERS_SHARED_H

#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>

#include "leader.h"

struct shared_slot {
	struct leader_handle *leader;	/* the caller's: it outlives the slot */
	__u32 slot;
	enum leader_filter_type filter;	/* but for FILTER_TID (-a, -C, -G), counts stay per CPU */
	__u64 cgroup_id;		/* -G: the cgroup registered with the leader */
	__u32 cg_idx;			/* and its index in the leader's per-cgroup sums */
	__u32 nr_members;		/* the session's: 1 for a member of a group's leader */
	__u32 member;			/* the leader's member the session's first one is */
	bool enabled;
	/*
	 * -a, -C, -G: the leader's sums (raw readings, or the cgroup's) at the last enable, and
	 * the sums of enabled periods before it
	 */
	struct bpf_perf_event_value *base, *saved;	/* [member][possible CPUs] */
	struct bpf_perf_event_value *buf;		/* [possible CPUs] */
};

/*
 * After a join or claim (shared_join.h): slot of h for spec, counting nr_members from h->member
 * on (the one member a session of one event reads in a group's leader).
 */
void shared_slot_init(struct shared_slot *s, struct leader_handle *h, __u32 slot, __u32 cg_idx,
		      const struct leader_session_spec *spec, int nr_members);
/* Starts or ends a counted period (after a leader_sync(): slices before now are the old state). */
int shared_slot_set_enabled(struct shared_slot *s, bool enabled);
/*
 * The same with the sync the caller made since it was asked (the daemon: one sync of a leader
 * for every request of its clients that waited for it): the period starts or ends there.
 */
int shared_slot_set_enabled_synced(struct shared_slot *s, bool enabled);
/* One member's counts over the enabled periods, one value per possible CPU (after leader_sync). */
int shared_slot_read(struct shared_slot *s, __u32 member, struct bpf_perf_event_value *out);
/* Frees what shared_slot_init() took (the slot itself is shared_release()'s). */
void shared_slot_free(struct shared_slot *s);

#endif
