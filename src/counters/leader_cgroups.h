/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-cgroup sums in a leader: a registered cgroup gets an index whose per-CPU sums the leader
 * adds every slice to that ran in the cgroup or below it, once per distinct cgroup however many
 * sessions count it. Sessions (-G) and the daemon take differences of those sums, as -a
 * sessions do of prev_readings. Registering and dropping run with the attr map locked; reading
 * needs no lock. A reader holding the attr map lock brings the sums up to date with
 * leader_sync_locked() (leader_sync() takes that lock itself).
 *
 * Indices are handed out lowest first (the daemon's thousand cgroups take 0 to 999, which
 * leader_cg_read_batch() reads at once), and a freed one is taken again zeroed.
 */
#ifndef BPERF_COUNTERS_LEADER_CGROUPS_H
#define BPERF_COUNTERS_LEADER_CGROUPS_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "leader.h"

/*
 * Registers cgroup_id (its kernfs id) for slot: the index already used for it, else a new one
 * whose sums start from zero on every CPU. 0 or -ENOSPC (LEADER_MAX_CGROUPS in use).
 */
int leader_cg_get(struct leader_handle *h, __u32 slot, __u64 cgroup_id, __u32 *idx);
/* Drops slot's registration of cgroup_id; the index is freed when no slot uses it. */
void leader_cg_put(struct leader_handle *h, __u32 slot, __u64 cgroup_id);
/* One member's sums of index idx, one value per possible CPU (after leader_sync()). */
int leader_cg_read(const struct leader_handle *h, __u32 idx, __u32 member,
		   struct bpf_perf_event_value *per_cpu);
/*
 * Every member's sums of the nr indices from first on, in one system call: out[((idx - first) *
 * nr_members + member) * nr_cpus + cpu] (h->nr_members, h->nr_cpus). For a reader of many
 * cgroups (the daemon): one leader_cg_read() per index and member costs a system call each.
 * Needs no lock, like leader_cg_read().
 */
int leader_cg_read_batch(const struct leader_handle *h, __u32 first, __u32 nr,
			 struct bpf_perf_event_value *out);
/*
 * Every member's sums of the cgroups at indices idx[0..nr) (any order, each once), added up over
 * the CPUs: out[i * nr_members + member]. Its memory is bounded whatever nr (leader_cg_sum.c).
 * Needs no lock, like leader_cg_read().
 */
int leader_cg_sum(const struct leader_handle *h, const __u32 *idx, __u32 nr,
		  struct bpf_perf_event_value *out);
/*
 * Drops every registration of the slots set in slots[] (sessions that died, or one released
 * without putting its cgroups): called by the slot table's reclaim.
 */
void leader_cg_reclaim(struct leader_handle *h, const __u64 slots[LEADER_MAX_SESSIONS / 64]);

#endif
