// SPDX-License-Identifier: GPL-2.0-only
/* The leaders an attr map names, read only (leader_list.h). */
#include "leader_list.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "attr_map.h"
#include "leader_internal.h"

/* The maps of a bperf leader that say how many members and sessions it has. */
struct leader_maps_seen {
	int state_fd;
	int sessions_fd;
};

static bool take_summary_map(int fd, const struct bpf_map_info *info, void *ctx)
{
	struct leader_maps_seen *seen = ctx;
	int *slot = NULL;

	if (!strcmp(info->name, LEADER_STATE_MAP))
		slot = &seen->state_fd;
	else if (!strcmp(info->name, LEADER_SESSIONS_MAP))
		slot = &seen->sessions_fd;
	if (!slot || *slot >= 0)
		return false;
	*slot = fd;
	return true;
}

static __u32 active_sessions(int sessions_fd, __u32 nr_slots)
{
	struct leader_session session;
	__u32 slot, nr = 0;

	for (slot = 0; slot < nr_slots && slot < LEADER_MAX_SESSIONS; slot++)
		if (!bpf_map_lookup_elem(sessions_fd, &slot, &session) &&
		    session.state == SLOT_ACTIVE)
			nr++;
	return nr;
}

/* Fills in what the leader behind s->link_id is: alive, bperf's, members, sessions. */
static void describe_leader(struct leader_summary *s)
{
	struct leader_maps_seen seen = { -1, -1 };
	struct bpf_link_info linfo = { 0 };
	struct bpf_prog_info pinfo = { 0 };
	__u32 len = sizeof(linfo), plen = sizeof(pinfo), zero = 0;
	struct leader_state st;
	int link_fd = bpf_link_get_fd_by_id(s->link_id), prog_fd = -1;

	s->alive = link_fd >= 0;
	if (link_fd < 0 || bpf_obj_get_info_by_fd(link_fd, &linfo, &len))
		goto out;
	prog_fd = bpf_prog_get_fd_by_id(linfo.prog_id);
	if (prog_fd < 0 || bpf_obj_get_info_by_fd(prog_fd, &pinfo, &plen) ||
	    strcmp(pinfo.name, LEADER_PROG_NAME))
		goto out;
	leader_for_each_prog_map(prog_fd, take_summary_map, &seen);
	/* upstream perf's leader has no state map */
	if (seen.state_fd < 0 || bpf_map_lookup_elem(seen.state_fd, &zero, &st))
		goto out;
	s->ours = true;
	s->nr_members = st.nr_members;
	if (seen.sessions_fd >= 0)
		s->nr_sessions = active_sessions(seen.sessions_fd, st.nr_slots);
out:
	if (seen.state_fd >= 0)
		close(seen.state_fd);
	if (seen.sessions_fd >= 0)
		close(seen.sessions_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (link_fd >= 0)
		close(link_fd);
}

static void summarize_key(struct leader_summary *s, const void *key, __u32 key_size,
			  const struct attr_map_entry *entry)
{
	memset(s, 0, sizeof(*s));
	memcpy(&s->attr, key, key_size < sizeof(s->attr) ? key_size : sizeof(s->attr));
	if (s->attr.__reserved_2 == GROUP_KEY_MARK)
		s->key_type = LEADER_KEY_GROUP;
	else if (s->attr.__reserved_2 == MEMBER_KEY_MARK)
		s->key_type = LEADER_KEY_MEMBER;
	if (s->key_type != LEADER_KEY_EVENT) {
		/* the marks and a group's hash are bperf's, not the event's */
		s->attr.__reserved_2 = 0;
		if (s->key_type == LEADER_KEY_GROUP)
			s->attr.sig_data = 0;
	}
	s->link_id = entry->link_id;
	describe_leader(s);
}

int leader_list(const char *path, struct leader_summary **out, int *nr)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	struct attr_map_entry entry;
	char *key, *next;
	int fd = bpf_obj_get(path), err = 0, n = 0;

	*out = NULL;
	*nr = 0;
	if (fd < 0)
		return -errno;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_HASH ||
	    info.value_size != sizeof(entry) || !info.key_size) {
		close(fd);
		return -EINVAL;
	}
	key = xzalloc(info.key_size);
	next = xzalloc(info.key_size);
	for (void *prev = NULL; !bpf_map_get_next_key(fd, prev, next); prev = key) {
		memcpy(key, next, info.key_size);
		if (bpf_map_lookup_elem(fd, key, &entry))
			continue;
		*out = xgrow(*out, n, sizeof(**out));
		summarize_key(&(*out)[n++], key, info.key_size, &entry);
	}
	if (errno != ENOENT)
		err = -errno;
	*nr = n;
	free(key);
	free(next);
	close(fd);
	return err;
}
