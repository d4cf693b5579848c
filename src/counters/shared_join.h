/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Joining and leaving a shared leader with one session slot: what bperf stat's shared backend
 * does for each counter, and what the daemon does for each of its events, so that both take the
 * same leader for the same attr map key and share it.
 */
#ifndef BPERF_COUNTERS_SHARED_JOIN_H
#define BPERF_COUNTERS_SHARED_JOIN_H

#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdbool.h>

#include "leader.h"

/*
 * Takes the leader of attrs[0..nr) filed under key in the attr map at map_path (made if there
 * is none) and a slot in it for spec, and for FILTER_CGROUP registers spec->cgroup_id
 * (its index in *cg_idx). name is the event's for messages. Returns 0, -ECANCELED after
 * printing why, or the kernel's refusal of the event (<not supported>, nothing printed).
 * Without a name (the daemon serving a client) a failed claim or registration is not said: its
 * -errno is returned (-ENOSPC: every slot, or every cgroup, is taken).
 */
int shared_join(const char *map_path, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, const struct leader_session_spec *spec,
		const char *name, int verbose, struct leader_handle *h, __u32 *slot, __u32 *cg_idx);

/*
 * shared_join() for the daemon, whose loop must not wait for a leader to load: without a name,
 * and without making a leader. shared_join_existing() returns -ENOENT where a new one is needed;
 * the caller makes it beside its loop (leader_create()), and shared_join_fresh() files it and
 * takes the slot, or shares a leader filed meanwhile and puts fresh (fresh is always used up).
 */
int shared_join_existing(const char *map_path, const struct perf_event_attr *key,
			 const struct perf_event_attr *attrs, int nr,
			 const struct leader_session_spec *spec, int verbose,
			 struct leader_handle *h, __u32 *slot, __u32 *cg_idx);
int shared_join_fresh(const char *map_path, const struct perf_event_attr *key,
		      const struct perf_event_attr *attrs, int nr,
		      const struct leader_session_spec *spec, int verbose,
		      struct leader_handle *fresh, struct leader_handle *h, __u32 *slot,
		      __u32 *cg_idx);

/*
 * The same in a leader the caller holds already (the daemon's, for one more client): 0 or the
 * claim's or the registration's -errno, not said.
 */
int shared_claim(const char *map_path, const struct perf_event_attr *key,
		 struct leader_handle *h, const struct leader_session_spec *spec, __u32 *slot,
		 __u32 *cg_idx);

/*
 * Drops the slot's registration of cgroup_id (0: none) and frees the slot; bperf's last session
 * of the leader takes its attr map entries out (unless upstream perf's sessions still follow
 * it). True when no session uses the leader any more. The handle stays the caller's.
 */
bool shared_release(const char *map_path, const struct perf_event_attr *key,
		    struct leader_handle *h, __u32 slot, __u64 cgroup_id);

/*
 * Drops the slot's registration of cgroup_id (0: none), frees the slot and the handle's fds;
 * bperf's last session of the leader takes its attr map entries out (unless upstream perf's
 * sessions still follow it).
 */
void shared_leave(const char *map_path, const struct perf_event_attr *key,
		  struct leader_handle *h, __u32 slot, __u64 cgroup_id);

/*
 * A group's attr map key: its first member's attr marked with GROUP_KEY_MARK in a field the
 * kernel requires to be zero, with a hash of every member in sig_data. No perf_event_open attr
 * can equal it, so upstream perf never mistakes it for one of its single-event entries.
 */
void shared_group_key(const struct perf_event_attr *attrs, int nr, struct perf_event_attr *key);

/*
 * Files the member keys of h, the leader of the group attrs[0..nr) (leader_file_members()), with
 * the attr map locked: the daemon's, so that sessions of one of its events share its leader.
 */
int shared_file_members(const char *map_path, const struct perf_event_attr *attrs, int nr,
			const struct leader_handle *h);

#endif
