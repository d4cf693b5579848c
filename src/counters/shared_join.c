// SPDX-License-Identifier: GPL-2.0-only
/*
 * Joining and leaving a shared leader (shared_join.h), with the attr map locked throughout but
 * while a new leader loads.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "leader_cgroups.h"
#include "shared_join.h"
#include "sync_lock.h"

/* A slot for spec in h, and spec's cgroup registered for it; the attr map is locked. */
static int claim(const struct attr_map *map, const struct perf_event_attr *key,
		 struct leader_handle *h, const struct leader_session_spec *spec, __u32 *slot,
		 __u32 *cg_idx, const char *name)
{
	int err;

	err = leader_slot_claim(h, spec, slot);
	if (err) {
		if (name)
			pr_err("Failed to join the shared counter for %s: %s", name,
			       err == -ENOSPC ? "every session slot of its leader is taken" :
			       strerror(-err));
		return err;
	}
	if (spec->filter != FILTER_CGROUP)
		return 0;
	err = leader_cg_get(h, *slot, spec->cgroup_id, cg_idx);
	if (err) {
		if (name)
			pr_err("Failed to join the shared counter for %s: %s", name,
			       err == -ENOSPC ? "every cgroup of its leader is taken" :
			       strerror(-err));
		if (leader_slot_release(h, *slot))
			leader_drop_entries(map, key, h);
	}
	return err;
}

/*
 * The leader of key in the locked map, made unlocked where there is none and fresh is NULL (its
 * load takes 100 ms or more, which no one waiting on the lock should wait for), or fresh filed.
 * The map is locked again on return, but where a leader could not be made or locked again:
 * then it is closed.
 */
static int take_leader(struct attr_map *map, const char *map_path,
		       const struct perf_event_attr *key, const struct perf_event_attr *attrs,
		       int nr, int verbose, struct leader_handle *fresh, bool may_make,
		       struct leader_handle *h)
{
	struct leader_handle made;
	int err;

	if (fresh)
		return leader_file(map, key, attrs, nr, verbose, fresh, h);
	err = leader_find(map, key, attrs, nr, verbose, h);
	if (err != -ENOENT || !may_make)
		return err;
	attr_map_close(map);
	err = leader_create(&made, key, attrs, nr, verbose);
	if (err)
		return err;	/* the map stays closed */
	if (attr_map_open_locked(map, map_path)) {
		leader_put(&made);
		return -ECANCELED;
	}
	return leader_file(map, key, attrs, nr, verbose, &made, h);
}

static int join(const char *map_path, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, const struct leader_session_spec *spec,
		const char *name, int verbose, struct leader_handle *fresh, bool may_make,
		struct leader_handle *h, __u32 *slot, __u32 *cg_idx)
{
	struct attr_map map;
	int lock_fd, err;

	if (attr_map_open_locked(&map, map_path)) {
		if (fresh)
			leader_put(fresh);
		return -ECANCELED;	/* reported */
	}
	/* the handle's own open of the lock, which leader_sync() takes */
	lock_fd = sync_lock_reopen(map.lock_fd);
	err = lock_fd;
	if (lock_fd >= 0)
		err = take_leader(&map, map_path, key, attrs, nr, verbose, fresh, may_make, h);
	else if (fresh)
		leader_put(fresh);
	if (!err) {
		h->lock_fd = lock_fd;
		err = claim(&map, key, h, spec, slot, cg_idx, name);
		if (err) {
			leader_put(h);
			if (name)
				err = -ECANCELED;
		}
	} else if (lock_fd >= 0) {
		close(lock_fd);
	}
	attr_map_close(&map);
	return err;
}

int shared_join(const char *map_path, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, const struct leader_session_spec *spec,
		const char *name, int verbose, struct leader_handle *h, __u32 *slot, __u32 *cg_idx)
{
	return join(map_path, key, attrs, nr, spec, name, verbose, NULL, true, h, slot, cg_idx);
}

int shared_join_existing(const char *map_path, const struct perf_event_attr *key,
			 const struct perf_event_attr *attrs, int nr,
			 const struct leader_session_spec *spec, int verbose,
			 struct leader_handle *h, __u32 *slot, __u32 *cg_idx)
{
	return join(map_path, key, attrs, nr, spec, NULL, verbose, NULL, false, h, slot, cg_idx);
}

int shared_join_fresh(const char *map_path, const struct perf_event_attr *key,
		      const struct perf_event_attr *attrs, int nr,
		      const struct leader_session_spec *spec, int verbose,
		      struct leader_handle *fresh, struct leader_handle *h, __u32 *slot,
		      __u32 *cg_idx)
{
	return join(map_path, key, attrs, nr, spec, NULL, verbose, fresh, false, h, slot, cg_idx);
}

int shared_claim(const char *map_path, const struct perf_event_attr *key,
		 struct leader_handle *h, const struct leader_session_spec *spec, __u32 *slot,
		 __u32 *cg_idx)
{
	struct attr_map map;
	int err;

	if (attr_map_open_locked(&map, map_path))
		return -ECANCELED;	/* reported */
	err = claim(&map, key, h, spec, slot, cg_idx, NULL);
	attr_map_close(&map);
	return err;
}

bool shared_release(const char *map_path, const struct perf_event_attr *key,
		    struct leader_handle *h, __u32 slot, __u64 cgroup_id)
{
	struct attr_map map;
	bool last = false;

	if (!attr_map_open_locked(&map, map_path)) {
		if (cgroup_id)
			leader_cg_put(h, slot, cgroup_id);
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
		  struct leader_handle *h, __u32 slot, __u64 cgroup_id)
{
	shared_release(map_path, key, h, slot, cgroup_id);
	leader_put(h);
}

void shared_group_key(const struct perf_event_attr *attrs, int nr, struct perf_event_attr *key)
{
	const unsigned char *bytes = (const unsigned char *)attrs;
	__u64 hash = 0xcbf29ce484222325ull;	/* FNV-1a */
	size_t i;

	for (i = 0; i < nr * sizeof(*attrs); i++)
		hash = (hash ^ bytes[i]) * 0x100000001b3ull;
	*key = attrs[0];
	key->__reserved_2 = GROUP_KEY_MARK;
	key->sig_data = hash;
}

int shared_file_members(const char *map_path, const struct perf_event_attr *attrs, int nr,
			const struct leader_handle *h)
{
	struct attr_map map;

	if (attr_map_open_locked(&map, map_path))
		return -ECANCELED;	/* reported */
	leader_file_members(&map, attrs, nr, h);
	attr_map_close(&map);
	return 0;
}
