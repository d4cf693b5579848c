// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registering cgroups in a leader's cg_index and reading their sums (bpf/leader.h). The leader
 * adds to an index only while cg_users says the index is the cgroup's: a new index is zeroed on
 * every CPU and claimed in cg_users before its id goes in cg_index; a freed one leaves cg_index
 * first, then cg_users, and then a run of the leader on every CPU waits for the readings that
 * may have found it before (they run with interrupts off, so the test run comes after them):
 * from then on nothing adds to it, and it can be zeroed for its next cgroup. Each change to
 * cg_index is followed by a fresh filter_gen[LEADER_GEN_CG] (before that wait, for a freed one):
 * the leader keeps each CPU's recent cgroups' lists of registered ancestors and trusts them, with
 * no cg_users check, while that generation holds.
 *
 * cg_accum has one element per index: every member's sums, struct bpf_perf_event_value each,
 * for each possible CPU in turn (cpu * nr_members + member). It and cg_users are maps of chunks
 * of LEADER_CG_CHUNK indices, made as the first index of a chunk is handed out; cg_index is a
 * map holding one hash, replaced by one twice its size (a copy) when it is full. A change to a
 * map of maps may make the kernel wait for an RCU grace period (leader_maps.c): the chunks are
 * made in batches that double their number (10 batches for 1,000 cgroups, not 32 changes).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "leader_cgroups.h"
#include "leader_maps.h"

#define CHUNK_OF(idx) ((idx) >> LEADER_CG_CHUNK_SHIFT)
#define IN_CHUNK(idx) ((idx) & (LEADER_CG_CHUNK - 1))

static void slot_set(struct leader_cg_users *u, __u32 slot, bool on)
{
	__u64 bit = 1ull << (slot % 64);

	if (on)
		u->slots[slot / 64] |= bit;
	else
		u->slots[slot / 64] &= ~bit;
}

static bool slots_empty(const struct leader_cg_users *u)
{
	__u32 i;

	for (i = 0; i < ARRAY_SIZE(u->slots); i++)
		if (u->slots[i])
			return false;
	return true;
}

/* cg_users[idx], read or written: 0, -errno (-ENOENT: its chunk is not made yet) */
static int users_io(const struct leader_handle *h, __u32 idx, struct leader_cg_users *u,
		    bool write)
{
	int fd = leader_inner_fd(h, INNER_CG_USERS, CHUNK_OF(idx)), err;
	__u32 key = IN_CHUNK(idx);

	if (fd < 0)
		return fd;
	err = write ? bpf_map_update_elem(fd, &key, u, BPF_ANY) : bpf_map_lookup_elem(fd, &key, u);
	err = err ? -errno : 0;
	close(fd);
	return err;
}

/* cg_index's hash (made if create and there is none yet): an fd, or -errno */
static int index_fd(const struct leader_handle *h, bool create)
{
	int fd = leader_inner_fd(h, INNER_CG_INDEX, 0);

	if (fd == -ENOENT && create)
		fd = leader_inner_create(h, INNER_CG_INDEX, 0, 0);
	return fd;
}

/* The index registered for id and its users; -ENOENT, or -ESTALE for an entry not id's. */
static int find_index(const struct leader_handle *h, __u64 id, __u32 *idx,
		      struct leader_cg_users *u)
{
	int fd = index_fd(h, false), err;
	struct leader_cg cg;

	if (fd < 0)
		return -ENOENT;
	err = bpf_map_lookup_elem(fd, &id, &cg) ? -ENOENT : 0;
	close(fd);
	if (err)
		return err;
	if (cg.idx >= LEADER_MAX_CGROUPS || users_io(h, cg.idx, u, false) || u->id != id)
		return -ESTALE;
	*idx = cg.idx;
	return 0;
}

static void index_delete(const struct leader_handle *h, __u64 id)
{
	int fd = index_fd(h, false);

	if (fd >= 0) {
		bpf_map_delete_elem(fd, &id);
		close(fd);
	}
}

/*
 * A full cg_index: replaced by a copy twice its size. *fd becomes the new one's; the old one
 * goes once no leader run can be looking in it. 0, -ENOSPC at LEADER_MAX_CGROUPS, or -errno.
 */
static int grow_index(const struct leader_handle *h, int *fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	__u64 key, next, *prev = NULL;
	struct leader_cg cg;
	int bigger, err = 0;

	if (bpf_obj_get_info_by_fd(*fd, &info, &len))
		return -errno;
	if (info.max_entries >= LEADER_MAX_CGROUPS)
		return -ENOSPC;
	bigger = leader_inner_new(INNER_CG_INDEX, 0, info.max_entries * 2);
	if (bigger < 0)
		return bigger;
	for (; !err && !bpf_map_get_next_key(*fd, prev, &next); prev = &key) {
		key = next;
		if (!bpf_map_lookup_elem(*fd, &key, &cg) &&
		    bpf_map_update_elem(bigger, &key, &cg, BPF_NOEXIST))
			err = -errno;
	}
	if (!err)
		err = leader_inner_replace(h, INNER_CG_INDEX, 0, bigger);
	if (err) {
		close(bigger);
		return err;
	}
	leader_inner_release(fd, 1);
	*fd = bigger;
	return 0;
}

/* id -> cg in cg_index, grown as it fills up; 0, -ENOSPC or -errno */
static int index_insert(const struct leader_handle *h, __u64 id, const struct leader_cg *cg)
{
	int fd = index_fd(h, true), err;

	if (fd < 0)
		return fd;
	for (;;) {
		if (!bpf_map_update_elem(fd, &id, cg, BPF_NOEXIST)) {
			err = 0;
			break;
		}
		err = errno == E2BIG ? grow_index(h, &fd) : -errno;
		if (err)
			break;
	}
	close(fd);
	return err;
}

/*
 * Frees idx (the caller then runs the leader on every CPU, after which nothing adds to it); the
 * cursor goes back to it.
 */
static void free_index(const struct leader_handle *h, __u32 idx, __u64 id, struct leader_state *st)
{
	struct leader_cg_users none = { 0 };

	index_delete(h, id);
	users_io(h, idx, &none, true);
	leader_gen_bump(h, LEADER_GEN_CG);
	if (st->nr_cgroups)
		st->nr_cgroups--;
	if (idx < st->cg_cursor)
		st->cg_cursor = idx;
}

/*
 * Makes the missing chunks from chunk on, as many as there are before it (one at least), with
 * one change to its outer map: a leader of C chunks made them in log2 C changes, and they hold
 * at most twice the indices in use (and 64).
 */
static int make_chunks(const struct leader_handle *h, enum leader_inner kind,
		       __u32 chunk)
{
	__u32 want = chunk ? chunk : 1, keys[LEADER_CG_CHUNKS], n = 0, c;
	int fds[LEADER_CG_CHUNKS], fd, err = 0;

	for (c = chunk; c < chunk + want && c < LEADER_CG_CHUNKS && !err; c++) {
		fd = leader_inner_fd(h, kind, c);
		if (fd >= 0) {
			close(fd);
			continue;
		}
		fd = leader_inner_new(kind, h->nr_members, 0);
		if (fd < 0) {
			err = fd;
			break;
		}
		keys[n] = c;
		fds[n++] = fd;
	}
	if (!err && n)
		err = leader_inner_put(h, kind, keys, fds, n);
	while (n)
		close(fds[--n]);
	return err;
}

/* An fd of the chunk of idx (of cg_accum or cg_users), made if there is none yet. */
static int chunk_fd(const struct leader_handle *h, enum leader_inner kind, __u32 idx)
{
	int fd = leader_inner_fd(h, kind, CHUNK_OF(idx)), err;

	if (fd != -ENOENT)
		return fd;
	err = make_chunks(h, kind, CHUNK_OF(idx));
	return err ? err : leader_inner_fd(h, kind, CHUNK_OF(idx));
}

/* idx's chunks made, and its sums zero on every CPU (a freed index keeps its last ones). */
static int zero_sums(const struct leader_handle *h, __u32 idx)
{
	size_t size = (size_t)h->nr_cpus * h->nr_members * sizeof(struct bpf_perf_event_value);
	int fd = chunk_fd(h, INNER_CG_USERS, idx), err;
	__u32 key = IN_CHUNK(idx);
	void *zeros;

	if (fd < 0)
		return fd;
	close(fd);
	fd = chunk_fd(h, INNER_CG_ACCUM, idx);
	if (fd < 0)
		return fd;
	zeros = xzalloc(size);
	err = bpf_map_update_elem(fd, &key, zeros, BPF_ANY) ? -errno : 0;
	free(zeros);
	close(fd);
	return err;
}

/* The first free index in the chunk of i from i on (LEADER_MAX_CGROUPS if none); -errno. */
static int free_in_chunk(const struct leader_handle *h, __u32 i, __u32 *idx)
{
	int fd = leader_inner_fd(h, INNER_CG_USERS, CHUNK_OF(i));
	struct leader_cg_users u;
	__u32 key;

	*idx = i;
	if (fd == -ENOENT)
		return 0;	/* a chunk not made yet: all free */
	if (fd < 0)
		return fd;
	for (key = IN_CHUNK(i); key < LEADER_CG_CHUNK; key++, (*idx)++) {
		if (bpf_map_lookup_elem(fd, &key, &u)) {
			close(fd);
			return -errno;
		}
		if (!u.id)
			break;
	}
	close(fd);
	if (key == LEADER_CG_CHUNK)
		*idx = LEADER_MAX_CGROUPS;
	return 0;
}

/* The lowest free index: every index below the cursor is in use. */
static int free_slot_index(const struct leader_handle *h, const struct leader_state *st,
			   __u32 *idx)
{
	__u32 i;
	int err;

	for (i = st->cg_cursor; i < LEADER_MAX_CGROUPS; i = (CHUNK_OF(i) + 1) * LEADER_CG_CHUNK) {
		err = free_in_chunk(h, i, idx);
		if (err || *idx < LEADER_MAX_CGROUPS)
			return err;
	}
	return -ENOSPC;
}

int leader_cg_get(struct leader_handle *h, __u32 slot, __u64 cgroup_id, __u32 *idx)
{
	struct leader_cg_users u = { .id = cgroup_id };
	struct leader_cg cg = { 0 };
	struct leader_state st;
	int err;

	if (!cgroup_id || slot >= LEADER_MAX_SESSIONS)
		return -EINVAL;
	err = find_index(h, cgroup_id, idx, &u);
	if (!err) {
		slot_set(&u, slot, true);
		return users_io(h, *idx, &u, true);
	}
	/* an entry whose index is not the cgroup's (half undone): replaced */
	if (err == -ESTALE)
		index_delete(h, cgroup_id);
	u = (struct leader_cg_users){ .id = cgroup_id };
	err = leader_read_state(h, &st);
	if (!err)
		err = free_slot_index(h, &st, &cg.idx);
	if (!err)
		err = zero_sums(h, cg.idx);
	if (err)
		return err;
	slot_set(&u, slot, true);
	err = users_io(h, cg.idx, &u, true);
	if (err)
		return err;
	err = index_insert(h, cgroup_id, &cg);
	if (err) {
		memset(&u, 0, sizeof(u));
		users_io(h, cg.idx, &u, true);
		return err;
	}
	leader_gen_bump(h, LEADER_GEN_CG);
	st.nr_cgroups++;
	st.cg_cursor = cg.idx + 1;
	err = leader_write_state(h, &st);
	/*
	 * While nothing was registered (and no thread session read at switches) no CPU kept the
	 * cgroup its open slice runs in: a reading on each sets it.
	 */
	if (!err && st.nr_cgroups == 1)
		err = leader_sync_locked(h);
	if (err)
		return err;
	*idx = cg.idx;
	return 0;
}

void leader_cg_put(struct leader_handle *h, __u32 slot, __u64 cgroup_id)
{
	struct leader_cg_users u;
	struct leader_state st;
	__u32 idx;

	if (slot >= LEADER_MAX_SESSIONS || find_index(h, cgroup_id, &idx, &u))
		return;
	slot_set(&u, slot, false);
	if (!slots_empty(&u)) {
		users_io(h, idx, &u, true);
		return;
	}
	if (leader_read_state(h, &st))
		return;
	free_index(h, idx, cgroup_id, &st);
	leader_write_state(h, &st);
	leader_sync_locked(h);
}

/*
 * One chunk of cg_users (the chunk of first): n entries read, 0 once there is no such chunk.
 * Indices are handed out lowest first, so the chunks are made in order: the first missing one
 * is the end.
 */
static __u32 read_users(const struct leader_handle *h, __u32 first, struct leader_cg_users *users)
{
	__u32 keys[LEADER_CG_CHUNK], out, count = LEADER_CG_CHUNK, i;
	int fd = leader_inner_fd(h, INNER_CG_USERS, CHUNK_OF(first));

	if (fd < 0)
		return 0;
	if (bpf_map_lookup_batch(fd, NULL, &out, keys, users, &count, NULL) &&
	    !(errno == ENOENT && count == LEADER_CG_CHUNK)) {
		for (i = 0; i < LEADER_CG_CHUNK; i++)
			if (bpf_map_lookup_elem(fd, &i, &users[i]))
				break;
		count = i;
	}
	close(fd);
	return count;
}

/* Drops the registrations of slots[] in one chunk's users; whether an index was freed */
static bool reclaim_chunk(struct leader_handle *h, __u32 first, struct leader_cg_users *users,
			  __u32 n, const __u64 *slots, struct leader_state *st)
{
	bool changed = false;
	__u32 i, w;

	for (i = 0; i < n; i++) {
		struct leader_cg_users *u = &users[i];
		bool hit = false;

		for (w = 0; w < ARRAY_SIZE(u->slots); w++) {
			hit |= (u->slots[w] & slots[w]) != 0;
			u->slots[w] &= ~slots[w];
		}
		if (!u->id || !hit)
			continue;
		if (slots_empty(u)) {
			free_index(h, first + i, u->id, st);
			changed = true;
		} else {
			users_io(h, first + i, u, true);
		}
	}
	return changed;
}

void leader_cg_reclaim(struct leader_handle *h, const __u64 slots[LEADER_MAX_SESSIONS / 64])
{
	struct leader_cg_users users[LEADER_CG_CHUNK];
	struct leader_state st;
	bool changed = false;
	__u32 first, n;

	if (h->cg_users_fd < 0 || leader_read_state(h, &st) || !st.nr_cgroups)
		return;
	for (first = 0; first < LEADER_MAX_CGROUPS; first += LEADER_CG_CHUNK) {
		n = read_users(h, first, users);
		if (!n)
			break;
		changed |= reclaim_chunk(h, first, users, n, slots, &st);
	}
	if (changed) {
		leader_write_state(h, &st);
		leader_sync_locked(h);
	}
}

/*
 * nr elements of cg_accum as the map holds them ([cgroup][cpu][member]) into the callers'
 * order ([cgroup][member][cpu]).
 */
static void by_member(const struct leader_handle *h, const struct bpf_perf_event_value *raw,
		      __u32 nr, struct bpf_perf_event_value *out)
{
	size_t per_cg = (size_t)h->nr_cpus * h->nr_members;
	__u32 i, cpu, m;

	for (i = 0; i < nr; i++)
		for (cpu = 0; cpu < h->nr_cpus; cpu++)
			for (m = 0; m < h->nr_members; m++)
				out[i * per_cg + (size_t)m * h->nr_cpus + cpu] =
					raw[i * per_cg + (size_t)cpu * h->nr_members + m];
}

int leader_cg_read(const struct leader_handle *h, __u32 idx, __u32 member,
		   struct bpf_perf_event_value *per_cpu)
{
	struct bpf_perf_event_value *raw;
	__u32 cpu;
	int err;

	__u32 key = IN_CHUNK(idx);
	int fd;

	if (idx >= LEADER_MAX_CGROUPS || member >= h->nr_members)
		return -EINVAL;
	fd = leader_inner_fd(h, INNER_CG_ACCUM, CHUNK_OF(idx));
	if (fd < 0)
		return fd;
	raw = xzalloc((size_t)h->nr_cpus * h->nr_members * sizeof(*raw));
	err = bpf_map_lookup_elem(fd, &key, raw) ? -errno : 0;
	for (cpu = 0; cpu < h->nr_cpus && !err; cpu++)
		per_cpu[cpu] = raw[(size_t)cpu * h->nr_members + member];
	free(raw);
	close(fd);
	return err;
}

/*
 * The kernel's ENOTSUPP (not in user-space headers): no batch lookups for this map type (per-CPU
 * arrays before Linux 5.11).
 */
#define KERNEL_ENOTSUPP 524

/* read_chunk_run() one lookup an element, where batches are refused. */
static int read_chunk_one_by_one(int fd, __u32 from, __u32 nr, size_t per_cg,
				 struct bpf_perf_event_value *raw)
{
	__u32 i, key;

	for (i = 0; i < nr; i++) {
		key = from + i;
		if (bpf_map_lookup_elem(fd, &key, &raw[i * per_cg]))
			return -errno;
	}
	return 0;
}

/* nr elements of one chunk from index first on, as the map holds them, into raw. */
static int read_chunk_run(const struct leader_handle *h, __u32 first, __u32 nr,
			  struct bpf_perf_event_value *raw)
{
	size_t per_cg = (size_t)h->nr_cpus * h->nr_members;
	int fd = leader_inner_fd(h, INNER_CG_ACCUM, CHUNK_OF(first)), err = 0;
	__u32 done = 0, keys[LEADER_CG_CHUNK];

	if (fd < 0)
		return fd;
	while (done < nr && !err) {
		/* the batch starts after in_batch's key: the one before the first wanted */
		__u32 prev = IN_CHUNK(first) + done - 1, next, count = nr - done;
		int ret = bpf_map_lookup_batch(fd, IN_CHUNK(first) + done ? &prev : NULL, &next,
					       keys, &raw[done * per_cg], &count, NULL);

		if (ret && errno == KERNEL_ENOTSUPP) {
			err = read_chunk_one_by_one(fd, IN_CHUNK(first) + done, nr - done, per_cg,
						    &raw[done * per_cg]);
			break;
		}
		if (ret && errno != ENOENT)
			err = -errno;
		else if (!count)
			err = -ENOENT;
		done += count;
	}
	close(fd);
	return err;
}

int leader_cg_read_batch(const struct leader_handle *h, __u32 first, __u32 nr,
			 struct bpf_perf_event_value *out)
{
	size_t per_cg = (size_t)h->nr_cpus * h->nr_members;
	struct bpf_perf_event_value *raw;
	__u32 done = 0, n;
	int err = 0;

	if (first > LEADER_MAX_CGROUPS || nr > LEADER_MAX_CGROUPS - first)
		return -EINVAL;
	raw = xzalloc((nr ? nr : 1) * per_cg * sizeof(*raw));
	for (; done < nr && !err; done += n) {
		n = LEADER_CG_CHUNK - IN_CHUNK(first + done);
		if (n > nr - done)
			n = nr - done;
		err = read_chunk_run(h, first + done, n, &raw[done * per_cg]);
	}
	if (!err)
		by_member(h, raw, nr, out);
	free(raw);
	return err;
}
