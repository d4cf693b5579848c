// SPDX-License-Identifier: GPL-2.0-only
/* The inner maps of a leader (leader_maps.h): their shapes, and putting them in and out. */
#include <bpf/bpf.h>
#include <errno.h>
#include <unistd.h>

#include "../../bpf/leader.h"
#include "kernel_features.h"
#include "leader.h"
#include "leader_maps.h"

struct inner_shape {
	enum bpf_map_type type;
	__u32 key_size;
	__u32 value_size;
	__u32 max_entries;
	__u32 flags;
	const char *name;
};

/* As leader.bpf.c's definitions of the inner maps, sized for the leader's members. */
static struct inner_shape inner_shape(enum leader_inner kind, __u32 nr_members)
{
	__u32 sums = sizeof(struct bpf_perf_event_value);

	switch (kind) {
	case INNER_ACCUM:
		return (struct inner_shape){ BPF_MAP_TYPE_PERCPU_ARRAY, 4, sums, nr_members, 0,
					     "accum_slot" };
	case INNER_FILTER:
		/* preallocated where the kernel warns at allocation in tracing programs */
		return (struct inner_shape){ BPF_MAP_TYPE_HASH, 4, 1, LEADER_FILTER_MIN,
					     kernel_features()->alloc_in_tracing ?
					     BPF_F_NO_PREALLOC : 0, "filter_slot" };
	case INNER_CG_INDEX:
		return (struct inner_shape){ BPF_MAP_TYPE_HASH, 8, sizeof(struct leader_cg),
					     LEADER_CG_INDEX_MIN, 0, "cg_index_hash" };
	case INNER_CG_ACCUM:
		return (struct inner_shape){ BPF_MAP_TYPE_PERCPU_ARRAY, 4, sums * nr_members,
					     LEADER_CG_CHUNK, 0, "cg_accum_chunk" };
	case INNER_CG_USERS:
		return (struct inner_shape){ BPF_MAP_TYPE_ARRAY, 4, sizeof(struct leader_cg_users),
					     LEADER_CG_CHUNK, 0, "cg_users_chunk" };
	case INNER_TASK_SLOTS:
		break;
	}
	return (struct inner_shape){ BPF_MAP_TYPE_PERCPU_ARRAY, 4, LEADER_TASK_SLOTS_VALUE,
				     LEADER_TASK_SLOTS_ENTRIES, 0, "task_slots_cpu" };
}

int leader_inner_new(enum leader_inner kind, __u32 nr_members, __u32 max_entries)
{
	struct inner_shape s = inner_shape(kind, nr_members);
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = s.flags);
	int fd;

	fd = bpf_map_create(s.type, s.name, s.key_size, s.value_size,
			    max_entries ? max_entries : s.max_entries, &opts);
	return fd < 0 ? -errno : fd;
}

/* The kind's outer map, and where its keys start in inner_ids. */
static int outer_of(const struct leader_handle *h, enum leader_inner kind, __u32 *base)
{
	switch (kind) {
	case INNER_ACCUM:
		*base = LEADER_IDS_ACCUM;
		return h->accum_fd;
	case INNER_FILTER:
		*base = LEADER_IDS_FILTER;
		return h->filter_fd;
	case INNER_CG_INDEX:
		*base = LEADER_IDS_CG_INDEX;
		return h->cg_index_fd;
	case INNER_CG_ACCUM:
		*base = LEADER_IDS_CG_ACCUM;
		return h->cg_accum_fd;
	case INNER_CG_USERS:
		*base = LEADER_IDS_CG_USERS;
		return h->cg_users_fd;
	case INNER_TASK_SLOTS:
		break;
	}
	*base = LEADER_IDS_TASK_SLOTS;
	return h->task_slots_fd;
}

/* Files the id of the map fd under key in inner_ids (after it went in its outer map). */
static int file_id(const struct leader_handle *h, __u32 base, __u32 key, int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info), at = base + key;

	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    bpf_map_update_elem(h->inner_ids_fd, &at, &info.id, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * A batch: where a single update of a map of maps waits for a grace period (10 ms or more, and
 * seconds in an emulated guest), a batch waits once (Linux 6.8 on) or not at all (before). The
 * keys are empty: nothing a program may be using is replaced.
 */
int leader_inner_put(const struct leader_handle *h, enum leader_inner kind, __u32 *keys,
		     int *fds, __u32 n)
{
	__u32 base, done = n, i;
	int outer_fd = outer_of(h, kind, &base), err = 0;

	if (bpf_map_update_batch(outer_fd, keys, fds, &done, NULL) || done > n)
		done = 0;
	for (i = done; i < n; i++)
		if (bpf_map_update_elem(outer_fd, &keys[i], &fds[i], BPF_ANY))
			return -errno;
	for (i = 0; i < n && !err; i++)
		err = file_id(h, base, keys[i], fds[i]);
	return err;
}

int leader_inner_create(const struct leader_handle *h, enum leader_inner kind, __u32 key,
			__u32 max_entries)
{
	int fd = leader_inner_new(kind, h->nr_members, max_entries), err;

	if (fd < 0)
		return fd;
	err = leader_inner_put(h, kind, &key, &fd, 1);
	if (!err)
		return fd;
	close(fd);
	return err;
}

int leader_inner_replace(const struct leader_handle *h, enum leader_inner kind, __u32 key, int fd)
{
	__u32 base;
	int outer_fd = outer_of(h, kind, &base);

	/* a single update: it waits for a grace period (maybe_wait_bpf_programs()) */
	if (bpf_map_update_elem(outer_fd, &key, &fd, BPF_ANY))
		return -errno;
	return file_id(h, base, key, fd);
}

/*
 * By the id filed in inner_ids, not by a lookup in the outer map: before Linux 6.8 a lookup in
 * a map of maps from user space waits for a grace period too (15 ms each in the x86 guest).
 */
int leader_inner_fd(const struct leader_handle *h, enum leader_inner kind, __u32 key)
{
	__u32 base, at, id = 0;
	int fd;

	outer_of(h, kind, &base);
	at = base + key;
	if (bpf_map_lookup_elem(h->inner_ids_fd, &at, &id))
		return -errno;
	if (!id)
		return -ENOENT;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

void leader_inner_release(const int *fds, int nr)
{
	int i;

	/*
	 * The kernel waited for an RCU grace period in the single update that replaced them
	 * (maybe_wait_bpf_programs(), since Linux 4.20): every leader run that found one of them
	 * before has ended.
	 */
	for (i = 0; i < nr; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}
