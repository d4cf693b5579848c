// SPDX-License-Identifier: GPL-2.0-only
#include "leader.h"
#include "counter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "leader.skel.h"
#include "leader_internal.h"
#include "leader_maps.h"

void leader_handle_init(struct leader_handle *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	for (i = 0; i < LEADER_NR_LINKS; i++)
		h->link_fds[i] = -1;
	h->prog_fd = h->sessions_fd = h->accum_fd = h->filter_fd = h->state_fd = h->prev_fd = -1;
	h->gen_fd = h->cg_index_fd = h->cg_accum_fd = h->cg_users_fd = h->task_slots_fd = -1;
	h->sums_fd = h->inner_ids_fd = h->lock_fd = -1;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void leader_put(struct leader_handle *h)
{
	int i;

	for (i = 0; i < LEADER_NR_LINKS; i++)
		close_fd(&h->link_fds[i]);
	close_fd(&h->prog_fd);
	close_fd(&h->sessions_fd);
	close_fd(&h->accum_fd);
	close_fd(&h->filter_fd);
	close_fd(&h->state_fd);
	close_fd(&h->prev_fd);
	close_fd(&h->gen_fd);
	close_fd(&h->cg_index_fd);
	close_fd(&h->cg_accum_fd);
	close_fd(&h->cg_users_fd);
	close_fd(&h->task_slots_fd);
	close_fd(&h->sums_fd);
	close_fd(&h->inner_ids_fd);
	close_fd(&h->lock_fd);
}

int leader_read_state(const struct leader_handle *h, struct leader_state *st)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(h->state_fd, &zero, st) ? -errno : 0;
}

int leader_write_state(const struct leader_handle *h, const struct leader_state *st)
{
	__u32 zero = 0;

	return bpf_map_update_elem(h->state_fd, &zero, st, BPF_ANY) ? -errno : 0;
}

__u32 leader_link_id_of(int fd)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

int leader_for_each_prog_map(int prog_fd,
			     bool (*fn)(int fd, const struct bpf_map_info *info, void *ctx),
			     void *ctx)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), ids[32], i;

	info.nr_map_ids = ARRAY_SIZE(ids);
	info.map_ids = (unsigned long)ids;
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (info.nr_map_ids > ARRAY_SIZE(ids))
		return -E2BIG;
	for (i = 0; i < info.nr_map_ids; i++) {
		struct bpf_map_info minfo = { 0 };
		__u32 mlen = sizeof(minfo);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &minfo, &mlen) || !fn(fd, &minfo, ctx))
			close(fd);
	}
	return 0;
}

static bool take_leader_map(int fd, const struct bpf_map_info *info, void *ctx)
{
	struct leader_handle *h = ctx;
	int *slot = NULL;

	if (!strcmp(info->name, LEADER_SESSIONS_MAP))
		slot = &h->sessions_fd;
	else if (!strcmp(info->name, LEADER_ACCUM_MAP))
		slot = &h->accum_fd;
	else if (!strcmp(info->name, LEADER_FILTER_MAP))
		slot = &h->filter_fd;
	else if (!strcmp(info->name, LEADER_STATE_MAP))
		slot = &h->state_fd;
	else if (!strcmp(info->name, LEADER_PREV_MAP))
		slot = &h->prev_fd;
	else if (!strcmp(info->name, LEADER_GEN_MAP))
		slot = &h->gen_fd;
	else if (!strcmp(info->name, LEADER_CG_INDEX_MAP))
		slot = &h->cg_index_fd;
	else if (!strcmp(info->name, LEADER_CG_ACCUM_MAP))
		slot = &h->cg_accum_fd;
	else if (!strcmp(info->name, LEADER_CG_USERS_MAP))
		slot = &h->cg_users_fd;
	else if (!strcmp(info->name, LEADER_TASK_SLOTS_MAP))
		slot = &h->task_slots_fd;
	else if (!strcmp(info->name, LEADER_INNER_IDS_MAP))
		slot = &h->inner_ids_fd;

	if (!slot || *slot >= 0)
		return false;
	*slot = fd;
	return true;
}

/* Takes the maps of a program that claims to be our leader, by their names. */
static int adopt_maps(struct leader_handle *h, int prog_fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return -errno;
	if (strcmp(info.name, LEADER_PROG_NAME) ||
	    leader_for_each_prog_map(prog_fd, take_leader_map, h))
		return -ENOENT;
	if (h->sessions_fd < 0 || h->accum_fd < 0 || h->filter_fd < 0 || h->state_fd < 0 ||
	    h->prev_fd < 0 || h->gen_fd < 0 || h->cg_index_fd < 0 || h->cg_accum_fd < 0 ||
	    h->cg_users_fd < 0 || h->task_slots_fd < 0 || h->inner_ids_fd < 0)
		return -ENOENT;
	return 0;
}

/* What a program's frozen .rodata says of the key it counts. */
enum key_kind {
	KEY_NONE,	/* no bperf leader's .rodata: upstream perf's leader, or not a leader */
	KEY_OTHER,	/* a bperf leader of another event */
	KEY_SAME,
};

struct key_match {
	const struct perf_event_attr *key;
	bool member;		/* key is a member's attr, not the leader's key */
	enum key_kind kind;
	__u32 member_idx;	/* member: which one it is */
	__u32 nr_members;	/* member: the leader's */
};

static bool match_rodata_key(int fd, const struct bpf_map_info *info, void *ctx)
{
	struct key_match *km = ctx;
	struct leader_bpf__rodata ro;
	size_t n = strlen(info->name);
	__u32 zero = 0, m;

	if (n <= 7 || strcmp(info->name + n - 7, ".rodata") || info->value_size != sizeof(ro) ||
	    bpf_map_lookup_elem(fd, &zero, &ro) || km->kind == KEY_SAME)
		return false;
	if (!km->member) {
		km->kind = memcmp(ro.attr_key, km->key, sizeof(*km->key)) ? KEY_OTHER : KEY_SAME;
		return false;
	}
	km->kind = KEY_OTHER;
	for (m = 0; m < ro.nr_members && m < LEADER_MAX_MEMBERS; m++) {
		if (!memcmp(ro.member_attrs[m], km->key, sizeof(*km->key))) {
			km->kind = KEY_SAME;
			km->member_idx = m;
			km->nr_members = ro.nr_members;
			break;
		}
	}
	return false;
}

/*
 * Which key the leader program counts (or, km->member, which member is km->key's event): its
 * frozen .rodata holds the key it was made for and its members' attrs, so an entry naming
 * another event's leader (a reused or forged id) is never adopted.
 */
static enum key_kind leader_key_kind(int prog_fd, struct key_match *km)
{
	km->kind = KEY_NONE;
	return leader_for_each_prog_map(prog_fd, match_rodata_key, km) ? KEY_NONE : km->kind;
}

static bool find_diff_map(int fd, const struct bpf_map_info *info, void *ctx)
{
	if (!strcmp(info->name, LEADER_DIFF_MAP))
		*(__u32 *)ctx = info->id;
	return false;
}

/* What an attr map entry names, seen by a session counting the entry's event. */
enum entry_kind {
	ENTRY_OURS,	/* a live bperf leader of this layout for the event: shared */
	ENTRY_TAKEN,	/* a live leader of the event that bperf cannot share: left alone */
	ENTRY_FREE,	/* nothing live, or no leader of the event: replaced */
};

/* Whether the link runs a program named on_switch at sched_switch, as every leader does. */
static bool is_leader_link(int link_fd, __u32 *prog_id)
{
	struct bpf_link_info linfo = { 0 };
	struct bpf_prog_info pinfo = { 0 };
	__u32 len = sizeof(linfo), plen = sizeof(pinfo);
	char tp_name[64] = "";
	int prog_fd;
	bool ok;

	linfo.raw_tracepoint.tp_name = (unsigned long)tp_name;
	linfo.raw_tracepoint.tp_name_len = sizeof(tp_name);
	if (bpf_obj_get_info_by_fd(link_fd, &linfo, &len) ||
	    linfo.type != BPF_LINK_TYPE_RAW_TRACEPOINT || strcmp(tp_name, "sched_switch"))
		return false;
	prog_fd = bpf_prog_get_fd_by_id(linfo.prog_id);
	if (prog_fd < 0)
		return false;
	ok = !bpf_obj_get_info_by_fd(prog_fd, &pinfo, &plen) &&
	     !strcmp(pinfo.name, LEADER_PROG_NAME);
	close(prog_fd);
	*prog_id = linfo.prog_id;
	return ok;
}

/*
 * Sorts out the leader an attr map entry names for the event key (nr members), and takes it
 * into h if it is a live bperf leader of this layout for the event. A live leader of the event
 * bperf cannot share is someone's: upstream perf's (its links are held by its sessions only),
 * or bperf's own kept alive by upstream perf's followers after bperf's last session, its
 * helper links gone. Anything else (gone, another event's, no leader at all) is free.
 */
static enum entry_kind adopt_leader(struct leader_handle *h, const struct attr_map_entry *entry,
				    struct key_match *km, int nr)
{
	enum entry_kind kind = ENTRY_FREE;
	struct leader_state st;
	__u32 prog_id, diff_map_id = 0;
	int i;

	h->link_fds[0] = bpf_link_get_fd_by_id(entry->link_id);
	if (h->link_fds[0] < 0) {
		/* only a link that is gone frees its entry, not one the kernel will not show us */
		if (errno != ENOENT)
			kind = ENTRY_TAKEN;
		goto fail;
	}
	if (!is_leader_link(h->link_fds[0], &prog_id))
		goto fail;
	h->prog_fd = bpf_prog_get_fd_by_id(prog_id);
	if (h->prog_fd < 0)
		goto fail;
	/* perf's followers take their slices from the map the entry names */
	leader_for_each_prog_map(h->prog_fd, find_diff_map, &diff_map_id);
	if (diff_map_id != entry->diff_map_id)
		goto fail;
	switch (leader_key_kind(h->prog_fd, km)) {
	case KEY_OTHER:
		goto fail;
	case KEY_NONE:
		kind = ENTRY_TAKEN;
		goto fail;
	case KEY_SAME:
		break;
	}
	if (km->member)
		nr = km->nr_members;
	kind = ENTRY_TAKEN;
	if (adopt_maps(h, h->prog_fd) || leader_read_state(h, &st) ||
	    st.abi_version != LEADER_ABI_VERSION || st.nr_members != (__u32)nr ||
	    st.nr_cpus != (__u32)libbpf_num_possible_cpus())
		goto fail;
	h->link_fds[1] = bpf_link_get_fd_by_id(st.exec_link_id);
	h->link_fds[2] = bpf_link_get_fd_by_id(st.newtask_link_id);
	h->link_fds[3] = bpf_link_get_fd_by_id(st.cgroup_link_id);
	for (i = 1; i < LEADER_EXIT_LINK; i++)
		if (h->link_fds[i] < 0)
			goto fail;
	if (st.exit_link_id) {
		h->link_fds[LEADER_EXIT_LINK] = bpf_link_get_fd_by_id(st.exit_link_id);
		if (h->link_fds[LEADER_EXIT_LINK] < 0)
			goto fail;
	}
	h->nr_members = nr;
	h->member = km->member ? km->member_idx : 0;
	h->nr_cpus = st.nr_cpus;
	h->link_id = entry->link_id;
	return ENTRY_OURS;
fail:
	leader_put(h);
	leader_handle_init(h);
	return kind;
}

/* The entry filed under map_key and what it names for the event key. */
static enum entry_kind examine_entry(const struct attr_map *map,
				     const struct perf_event_attr *map_key,
				     const struct perf_event_attr *key, int nr,
				     struct leader_handle *h, struct attr_map_entry *entry)
{
	struct key_match km = { .key = key };

	if (attr_map_lookup(map, map_key, entry))
		return ENTRY_FREE;
	return adopt_leader(h, entry, &km, nr);
}

void leader_member_key(const struct perf_event_attr *attr, struct perf_event_attr *key)
{
	*key = *attr;
	key->__reserved_2 = MEMBER_KEY_MARK;
}

/*
 * The group leader filed under attr's member key, if it is a live bperf leader one of whose
 * members is attr itself: then h takes it, with h->member that member.
 */
static bool adopt_member(const struct attr_map *map, const struct perf_event_attr *attr,
			 struct leader_handle *h, struct attr_map_entry *entry)
{
	struct key_match km = { .key = attr, .member = true };
	struct perf_event_attr key;

	leader_member_key(attr, &key);
	if (attr_map_lookup(map, &key, entry))
		return false;
	return adopt_leader(h, entry, &km, 0) == ENTRY_OURS;
}

/*
 * The key bperf files its own leader of an event under while the event's key names a leader
 * someone else counts with: the key with the top bit set in the word after aux_sample_size
 * (__reserved_3, whose low bits newer kernels give to aux_action), which the kernel requires to
 * be zero, so no perf_event_open attr, upstream perf's keys included, ever equals it. Groups'
 * keys (shared.c) are bperf's alone and get it too.
 */
#define OWN_KEY_MARK 0x80000000u

static void own_key(const struct perf_event_attr *key, struct perf_event_attr *own)
{
	size_t at = offsetof(struct perf_event_attr, aux_sample_size) + sizeof(__u32);
	__u32 word;

	_Static_assert(offsetof(struct perf_event_attr, aux_sample_size) + 2 * sizeof(__u32) <=
		       sizeof(struct perf_event_attr), "no word after aux_sample_size");
	*own = *key;
	memcpy(&word, (char *)own + at, sizeof(word));
	word |= OWN_KEY_MARK;
	memcpy((char *)own + at, &word, sizeof(word));
}

/*
 * fresh (leader_create()'s) filed under file_key unless that is NULL (then bperf's sessions find
 * it not), and moved to h; 0 or -ECANCELED (said), fresh put.
 */
static int file_fresh(const struct attr_map *map, const struct perf_event_attr *file_key,
		      struct leader_handle *fresh, int verbose, struct leader_handle *h)
{
	struct attr_map_entry entry = { .link_id = fresh->link_id };
	int err;

	/* upstream perf's followers find the leader's diff_readings by this id */
	leader_for_each_prog_map(fresh->prog_fd, find_diff_map, &entry.diff_map_id);
	err = file_key ? attr_map_update(map, file_key, &entry) : 0;
	if (err) {
		pr_err("Failed to add the shared counter to the BPF attr map %s: %s%s", map->path,
		       strerror(-err), err == -E2BIG ? " (the map is full)" : "");
		leader_put(fresh);
		leader_handle_init(fresh);
		return -ECANCELED;
	}
	*h = *fresh;
	leader_handle_init(fresh);
	pr_debug(verbose, 1, "bperf: new leader link %u", entry.link_id);
	return 0;
}

/* A leader to share was found: fresh, made while the map was not locked, is not needed. */
static int found(struct leader_handle *fresh)
{
	if (fresh) {
		leader_put(fresh);
		leader_handle_init(fresh);
	}
	return 0;
}

/*
 * The event's key first: upstream perf looks there only. A live leader there that bperf cannot
 * share stays as it is, and bperf's sessions share one of their own under own_key(); that one
 * moves to the event's key once it is free, for upstream perf to find. With none to share, fresh
 * is filed, or without fresh -ENOENT.
 */
static int find_or_file(const struct attr_map *map, const struct perf_event_attr *key,
			const struct perf_event_attr *attrs, int nr, int verbose,
			struct leader_handle *fresh, struct leader_handle *h)
{
	struct attr_map_entry entry, own_entry;
	struct perf_event_attr own;
	enum entry_kind kind, own_kind;
	const struct perf_event_attr *file_key = key;

	leader_handle_init(h);
	kind = examine_entry(map, key, key, nr, h, &entry);
	if (kind == ENTRY_OURS) {
		pr_debug(verbose, 1, "bperf: sharing leader link %u", entry.link_id);
		return found(fresh);
	}
	own_key(key, &own);
	own_kind = examine_entry(map, &own, key, nr, h, &own_entry);
	if (own_kind == ENTRY_OURS) {
		if (kind == ENTRY_FREE && !attr_map_update(map, key, &own_entry))
			attr_map_delete(map, &own);
		pr_debug(verbose, 1, "bperf: sharing leader link %u", own_entry.link_id);
		return found(fresh);
	}
	/* one event: the daemon's group may count it as one of its members */
	if (nr == 1 && !key->__reserved_2 && adopt_member(map, &attrs[0], h, &own_entry)) {
		pr_debug(verbose, 1, "bperf: sharing leader link %u (member %u of its group)",
			 own_entry.link_id, h->member);
		return found(fresh);
	}
	if (!fresh)
		return -ENOENT;
	if (kind == ENTRY_TAKEN) {
		pr_debug(verbose, 1, "bperf: leader link %u is in use but not bperf's to share: "
			 "its entry stays", entry.link_id);
		file_key = own_kind == ENTRY_TAKEN ? NULL : &own;
	}
	return file_fresh(map, file_key, fresh, verbose, h);
}

int leader_find(const struct attr_map *map, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, int verbose, struct leader_handle *h)
{
	return find_or_file(map, key, attrs, nr, verbose, NULL, h);
}

int leader_file(const struct attr_map *map, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, int verbose,
		struct leader_handle *fresh, struct leader_handle *h)
{
	return find_or_file(map, key, attrs, nr, verbose, fresh, h);
}

int leader_get(const struct attr_map *map, const struct perf_event_attr *key,
	       const struct perf_event_attr *attrs, int nr, int verbose, struct leader_handle *h)
{
	struct leader_handle fresh;
	int err;

	err = leader_find(map, key, attrs, nr, verbose, h);
	if (err != -ENOENT)
		return err;
	err = leader_create(&fresh, key, attrs, nr, verbose);
	return err ? err : leader_file(map, key, attrs, nr, verbose, &fresh, h);
}

/* An entry of bperf's alone (a group's or a member's key) that names the leader ctx. */
static bool names_group_of(const struct perf_event_attr *attr, const struct attr_map_entry *entry,
			   void *ctx)
{
	const struct leader_handle *h = ctx;

	return entry->link_id == h->link_id &&
	       (attr->__reserved_2 == GROUP_KEY_MARK || attr->__reserved_2 == MEMBER_KEY_MARK);
}

void leader_file_members(const struct attr_map *map, const struct perf_event_attr *attrs, int nr,
			 const struct leader_handle *h)
{
	struct attr_map_entry entry = { .link_id = h->link_id }, old;
	struct perf_event_attr key;
	int m;

	leader_for_each_prog_map(h->prog_fd, find_diff_map, &entry.diff_map_id);
	for (m = 0; m < nr; m++) {
		leader_member_key(&attrs[m], &key);
		/* another live group's (another daemon's) stays */
		if (!attr_map_lookup(map, &key, &old) && old.link_id != h->link_id &&
		    attr_map_link_exists(old.link_id))
			continue;
		attr_map_update(map, &key, &entry);
	}
}

void leader_drop_entries(const struct attr_map *map, const struct perf_event_attr *key,
			 const struct leader_handle *h)
{
	struct attr_map_entry entry;
	struct perf_event_attr own;

	/* upstream perf never looks these up: no follower can have found the leader by them */
	if (h->nr_members > 1)
		attr_map_delete_if(map, names_group_of, (void *)h);
	own_key(key, &own);
	if (!attr_map_lookup(map, &own, &entry) && entry.link_id == h->link_id)
		attr_map_delete(map, &own);
	/* upstream perf's followers (fexit on on_switch) found the leader by this entry */
	if (!attr_map_lookup(map, key, &entry) && entry.link_id == h->link_id &&
	    !leader_has_followers(h))
		attr_map_delete(map, key);
}
