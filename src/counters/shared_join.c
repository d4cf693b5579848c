// SPDX-License-Identifier: GPL-2.0-only
/* Joining and leaving a shared leader (shared_join.h), with the attr map locked throughout. */
#include <errno.h>
#include <string.h>

#include "../common.h"
#include "leader_cgroups.h"
#include "shared_join.h"

int shared_join(const char *map_path, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, const struct leader_session_spec *spec,
		const char *name, int verbose, struct leader_handle *h, __u32 *slot, __u32 *cg_idx)
{
	struct attr_map map;
	int err;

	if (attr_map_open_locked(&map, map_path))
		return -ECANCELED;	/* reported */
	err = leader_get(&map, key, attrs, nr, verbose, h);
	if (!err) {
		err = leader_slot_claim(h, spec, slot);
		if (err) {
			pr_err("Failed to join the shared counter for %s: %s", name,
			       err == -ENOSPC ? "every session slot of its leader is taken" :
			       strerror(-err));
			leader_put(h);
			err = -ECANCELED;
		}
	}
	if (!err && spec->filter == FILTER_CGROUP) {
		err = leader_cg_get(h, *slot, spec->cgroup_id, cg_idx);
		if (err) {
			pr_err("Failed to join the shared counter for %s: %s", name,
			       err == -ENOSPC ? "every cgroup of its leader is taken" :
			       strerror(-err));
			if (leader_slot_release(h, *slot))
				leader_drop_entries(&map, key, h);
			leader_put(h);
			err = -ECANCELED;
		}
	}
	attr_map_close(&map);
	return err;
}

void shared_leave(const char *map_path, const struct perf_event_attr *key,
		  struct leader_handle *h, __u32 slot, __u64 cgroup_id)
{
	struct attr_map map;

	if (!attr_map_open_locked(&map, map_path)) {
		if (cgroup_id)
			leader_cg_put(h, slot, cgroup_id);
		/* bperf's last session takes the entry out, unless upstream perf's still count */
		if (leader_slot_release(h, slot))
			leader_drop_entries(&map, key, h);
		attr_map_sweep(&map);
		attr_map_close(&map);
	}
	leader_put(h);
}
