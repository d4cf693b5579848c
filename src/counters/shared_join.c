// SPDX-License-Identifier: GPL-2.0-only
/* Joining and leaving a shared leader (shared_join.h), with the attr map locked throughout. */
#include <errno.h>
#include <string.h>

#include "../common.h"
#include "shared_join.h"

int shared_join(const char *map_path, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, const struct leader_session_spec *spec,
		const char *name, int verbose, struct leader_handle *h, __u32 *slot)
{
	struct attr_map map;
	int err;

	if (attr_map_open_locked(&map, map_path))
		return -ECANCELED;	/* reported */
	err = leader_get(&map, key, attrs, nr, verbose, h);
	if (!err) {
		err = leader_slot_claim(h, spec, slot);
		if (err && name) {
			pr_err("Failed to join the shared counter for %s: %s", name,
			       err == -ENOSPC ? "every session slot of its leader is taken" :
			       strerror(-err));
			err = -ECANCELED;
		}
		if (err)
			leader_put(h);
	}
	attr_map_close(&map);
	return err;
}

int shared_claim(const char *map_path, struct leader_handle *h,
		 const struct leader_session_spec *spec, __u32 *slot)
{
	struct attr_map map;
	int err;

	if (attr_map_open_locked(&map, map_path))
		return -ECANCELED;	/* reported */
	err = leader_slot_claim(h, spec, slot);
	attr_map_close(&map);
	return err;
}

bool shared_release(const char *map_path, const struct perf_event_attr *key,
		    struct leader_handle *h, __u32 slot)
{
	struct attr_map map;
	bool last = false;

	if (!attr_map_open_locked(&map, map_path)) {
		/* bperf's last session takes the entry out, unless upstream perf's still count */
		last = leader_slot_release(h, slot);
		if (last)
			leader_drop_entries(&map, key, h);
		attr_map_sweep(&map);
		attr_map_close(&map);
	}
	return last;
}

void shared_leave(const char *map_path, const struct perf_event_attr *key,
		  struct leader_handle *h, __u32 slot)
{
	shared_release(map_path, key, h, slot);
	leader_put(h);
}
