// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the leader's per-cgroup sums land (issue 18, piece 1). */
#include <errno.h>

#include "leader_cgroups.h"

int leader_cg_get(struct leader_handle *h, __u32 slot, __u64 cgroup_id, __u32 *idx)
{
	(void)h;
	(void)slot;
	(void)cgroup_id;
	(void)idx;
	return -ENOSYS;
}

void leader_cg_put(struct leader_handle *h, __u32 slot, __u64 cgroup_id)
{
	(void)h;
	(void)slot;
	(void)cgroup_id;
}

int leader_cg_read(const struct leader_handle *h, __u32 idx, __u32 member,
		   struct bpf_perf_event_value *per_cpu)
{
	(void)h;
	(void)idx;
	(void)member;
	(void)per_cpu;
	return -ENOSYS;
}
