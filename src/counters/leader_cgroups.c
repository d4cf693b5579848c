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
 * for each possible CPU in turn (cpu * nr_members + member).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "leader_cgroups.h"

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

/* The index registered for id and its users; -ENOENT, or -ESTALE for an entry not id's. */
static int find_index(const struct leader_handle *h, __u64 id, __u32 *idx,
		      struct leader_cg_users *u)
{
	struct leader_cg cg;

	if (bpf_map_lookup_elem(h->cg_index_fd, &id, &cg))
		return -ENOENT;
	if (cg.idx >= LEADER_MAX_CGROUPS || bpf_map_lookup_elem(h->cg_users_fd, &cg.idx, u) ||
	    u->id != id)
		return -ESTALE;
	*idx = cg.idx;
	return 0;
}

/*
 * Frees idx (the caller then runs the leader on every CPU, after which nothing adds to it); the
 * cursor goes back to it.
 */
static void free_index(const struct leader_handle *h, __u32 idx, __u64 id, struct leader_state *st)
{
	struct leader_cg_users none = { 0 };

	bpf_map_delete_elem(h->cg_index_fd, &id);
	bpf_map_update_elem(h->cg_users_fd, &idx, &none, BPF_ANY);
	leader_gen_bump(h, LEADER_GEN_CG);
	if (st->nr_cgroups)
		st->nr_cgroups--;
	if (idx < st->cg_cursor)
		st->cg_cursor = idx;
}

static int zero_sums(const struct leader_handle *h, __u32 idx)
{
	size_t size = (size_t)h->nr_cpus * h->nr_members * sizeof(struct bpf_perf_event_value);
	void *zeros = xzalloc(size);
	int err = bpf_map_update_elem(h->cg_accum_fd, &idx, zeros, BPF_ANY) ? -errno : 0;

	free(zeros);
	return err;
}

/* The lowest free index: every index below the cursor is in use. */
static int free_slot_index(const struct leader_handle *h, const struct leader_state *st,
			   __u32 *idx)
{
	struct leader_cg_users u;
	__u32 i;

	for (i = st->cg_cursor; i < LEADER_MAX_CGROUPS; i++) {
		if (bpf_map_lookup_elem(h->cg_users_fd, &i, &u))
			return -errno;
		if (!u.id) {
			*idx = i;
			return 0;
		}
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
		return bpf_map_update_elem(h->cg_users_fd, idx, &u, BPF_ANY) ? -errno : 0;
	}
	/* an entry whose index is not the cgroup's (half undone): replaced */
	if (err == -ESTALE)
		bpf_map_delete_elem(h->cg_index_fd, &cgroup_id);
	u = (struct leader_cg_users){ .id = cgroup_id };
	err = leader_read_state(h, &st);
	if (!err)
		err = free_slot_index(h, &st, &cg.idx);
	if (!err)
		err = zero_sums(h, cg.idx);
	if (err)
		return err;
	slot_set(&u, slot, true);
	if (bpf_map_update_elem(h->cg_users_fd, &cg.idx, &u, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(h->cg_index_fd, &cgroup_id, &cg, BPF_NOEXIST)) {
		err = errno == E2BIG ? -ENOSPC : -errno;
		memset(&u, 0, sizeof(u));
		bpf_map_update_elem(h->cg_users_fd, &cg.idx, &u, BPF_ANY);
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
		bpf_map_update_elem(h->cg_users_fd, &idx, &u, BPF_ANY);
		return;
	}
	if (leader_read_state(h, &st))
		return;
	free_index(h, idx, cgroup_id, &st);
	leader_write_state(h, &st);
	leader_sync_locked(h);
}

/* cg_users whole, in one system call where the kernel has batch lookups: n entries read */
static __u32 read_users(const struct leader_handle *h, struct leader_cg_users *users)
{
	__u32 keys[LEADER_MAX_CGROUPS], out, count = LEADER_MAX_CGROUPS, i;

	if (!bpf_map_lookup_batch(h->cg_users_fd, NULL, &out, keys, users, &count, NULL) ||
	    (errno == ENOENT && count == LEADER_MAX_CGROUPS))
		return count;
	for (i = 0; i < LEADER_MAX_CGROUPS; i++)
		if (bpf_map_lookup_elem(h->cg_users_fd, &i, &users[i]))
			break;
	return i;
}

void leader_cg_reclaim(struct leader_handle *h, const __u64 slots[LEADER_MAX_SESSIONS / 64])
{
	struct leader_cg_users *users;
	struct leader_state st;
	bool changed = false;
	__u32 n, i, w;

	if (h->cg_users_fd < 0 || leader_read_state(h, &st) || !st.nr_cgroups)
		return;
	users = xzalloc(LEADER_MAX_CGROUPS * sizeof(*users));
	n = read_users(h, users);
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
			free_index(h, i, u->id, &st);
			changed = true;
		} else {
			bpf_map_update_elem(h->cg_users_fd, &i, u, BPF_ANY);
		}
	}
	if (changed) {
		leader_write_state(h, &st);
		leader_sync_locked(h);
	}
	free(users);
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

	if (idx >= LEADER_MAX_CGROUPS || member >= h->nr_members)
		return -EINVAL;
	raw = xzalloc((size_t)h->nr_cpus * h->nr_members * sizeof(*raw));
	err = bpf_map_lookup_elem(h->cg_accum_fd, &idx, raw) ? -errno : 0;
	for (cpu = 0; cpu < h->nr_cpus && !err; cpu++)
		per_cpu[cpu] = raw[(size_t)cpu * h->nr_members + member];
	free(raw);
	return err;
}

int leader_cg_read_batch(const struct leader_handle *h, __u32 first, __u32 nr,
			 struct bpf_perf_event_value *out)
{
	size_t per_cg = (size_t)h->nr_cpus * h->nr_members;
	struct bpf_perf_event_value *raw;
	__u32 done = 0, *keys;
	int err = 0;

	if (first > LEADER_MAX_CGROUPS || nr > LEADER_MAX_CGROUPS - first)
		return -EINVAL;
	keys = xzalloc((nr ? nr : 1) * sizeof(*keys));
	raw = xzalloc((nr ? nr : 1) * per_cg * sizeof(*raw));
	while (done < nr && !err) {
		/* the batch starts after in_batch's key: the one before the first wanted */
		__u32 prev = first + done - 1, next, count = nr - done;

		if (bpf_map_lookup_batch(h->cg_accum_fd, first + done ? &prev : NULL, &next,
					 keys, &raw[done * per_cg], &count, NULL) &&
		    errno != ENOENT)
			err = -errno;
		else if (!count)
			err = -ENOENT;
		done += count;
	}
	if (!err)
		by_member(h, raw, nr, out);
	free(raw);
	free(keys);
	return err;
}
