/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A session's slot in a shared leader, for whoever holds one: bperf stat's shared backend
 * (shared.c) and the daemon, which holds slots for its unprivileged clients (src/daemon/).
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
	__u32 nr_members;
	bool enabled;
	/* FILTER_CPU: raw readings at the last enable, and the sums of enabled periods before it */
	struct bpf_perf_event_value *base, *saved;	/* [member][possible CPUs] */
	struct bpf_perf_event_value *buf;		/* [possible CPUs] */
};

/*
 * Claims a slot for spec in the leader of key (counting attrs[0..nr), a group's members) with
 * the attr map at map_path locked: the leader is taken into *h first unless have_leader (the
 * caller holds it already). Returns 0, or leader_get()'s -errno (said, or an unsupported
 * event's), or the claim's -errno (-ENOSPC: every slot is taken): when name is given, that one
 * is said ("Failed to join the shared counter for NAME") and -ECANCELED returned. A leader
 * taken here is put again on failure.
 */
int shared_slot_join(struct shared_slot *s, struct leader_handle *h, bool have_leader,
		     const char *map_path, const struct perf_event_attr *key,
		     const struct perf_event_attr *attrs, int nr,
		     const struct leader_session_spec *spec, int verbose, const char *name);
/* Starts or ends a counted period (after a leader_sync(): slices before now are the old state). */
int shared_slot_set_enabled(struct shared_slot *s, bool enabled);
/* One member's counts over the enabled periods, one value per possible CPU (after leader_sync). */
int shared_slot_read(struct shared_slot *s, __u32 member, struct bpf_perf_event_value *out);
/*
 * Frees the slot; for the leader's last bperf session also its attr map entries. Returns true
 * when no session uses the leader any more. The caller puts the leader.
 */
bool shared_slot_leave(struct shared_slot *s, const char *map_path,
		       const struct perf_event_attr *key);

#endif
