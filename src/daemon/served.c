// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's slots for its clients (served.h). */
#include "served.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../counters/leader_info.h"
#include "../counters/shared_join.h"
#include "served_load.h"

struct served_leader {
	struct perf_event_attr key;
	struct leader_handle h;
	int nr_slots;		/* the daemon's slots for clients in it */
	int nr_unpriv_slots;
	unsigned long long synced_ns;	/* when its last sync began (0: none yet) */
	struct served_leader *next;
};

static struct served_leader *find_leader(struct served *sv, const struct perf_event_attr *attr)
{
	struct served_leader *l;

	for (l = sv->leaders; l; l = l->next)
		if (!memcmp(&l->key, attr, sizeof(*attr)))
			return l;
	return NULL;
}

static void drop_leader(struct served *sv, struct served_leader *l)
{
	struct served_leader **p;

	for (p = &sv->leaders; *p; p = &(*p)->next) {
		if (*p == l) {
			*p = l->next;
			break;
		}
	}
	leader_put(&l->h);
	free(l);
}

/*
 * Non-root clients' slots in the leader of link link_id: the events of a group's leader (the
 * daemon's own, shared by member keys) each have a handle here, and share the half.
 */
static int unpriv_slots(const struct served *sv, __u32 link_id)
{
	const struct served_leader *l;
	int n = 0;

	for (l = sv->leaders; l; l = l->next)
		if (leader_link_id(&l->h) == link_id)
			n += l->nr_unpriv_slots;
	return n;
}

/*
 * A slot in the leader of attr: the daemon's, one filed in the attr map, or fresh (loaded beside
 * the loop: put if either was there first). Without fresh, -ENOENT where a new leader is needed.
 */
static int open_in(struct served *sv, const struct perf_event_attr *attr,
		   const struct leader_session_spec *spec, bool unpriv,
		   struct leader_handle *fresh, struct served_session *out)
{
	struct served_leader *l = find_leader(sv, attr);
	bool have = l != NULL;
	__u32 slot, cg_idx = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (have && fresh)
		leader_put(fresh);	/* another OPEN's load ended first */
	if (l && unpriv && unpriv_slots(sv, leader_link_id(&l->h)) >= SERVED_MAX_UNPRIV_SLOTS)
		return -EUSERS;
	if (!l) {
		l = xzalloc(sizeof(*l));
		l->key = *attr;
	}
	if (have)
		err = shared_claim(sv->map_path, attr, &l->h, spec, &slot, &cg_idx);
	else if (fresh)
		err = shared_join_fresh(sv->map_path, attr, attr, 1, spec, sv->verbose, fresh,
					&l->h, &slot, &cg_idx);
	else
		err = shared_join_existing(sv->map_path, attr, attr, 1, spec, sv->verbose, &l->h,
					   &slot, &cg_idx);
	if (err) {
		if (!have)
			free(l);
		return err;
	}
	/* a new handle may be to a leader whose half the other events' clients hold already */
	if (!have && unpriv && unpriv_slots(sv, leader_link_id(&l->h)) >= SERVED_MAX_UNPRIV_SLOTS) {
		shared_leave(sv->map_path, attr, &l->h, slot, spec->filter == FILTER_CGROUP ?
			     spec->cgroup_id : 0);
		free(l);
		return -EUSERS;
	}
	shared_slot_init(&out->slot, &l->h, slot, cg_idx, spec, 1);
	if (!have) {
		l->next = sv->leaders;
		sv->leaders = l;
	}
	l->nr_slots++;
	if (unpriv)
		l->nr_unpriv_slots++;
	out->leader = l;
	out->unpriv = unpriv;
	return 0;
}

static int served_open(struct served *sv, const struct perf_event_attr *attr,
		       const struct leader_session_spec *spec, bool unpriv,
		       struct served_session *out, struct served_load **load)
{
	int err = open_in(sv, attr, spec, unpriv, NULL, out);

	if (err != -ENOENT)
		return err;
	err = served_load_start(attr, unpriv, load);
	return err ? err : SERVED_LOADING;
}

static int served_open_end(struct served *sv, struct served_load *load,
			   const struct leader_session_spec *spec, struct served_session *out)
{
	struct leader_handle fresh;
	struct perf_event_attr attr;
	bool unpriv;
	int err;

	memset(out, 0, sizeof(*out));
	err = served_load_end(load, &attr, &unpriv, &fresh);
	return err ? err : open_in(sv, &attr, spec, unpriv, &fresh, out);
}

/* A sync of s's leader that began after asked_ns: the one a request that waited shares, or now. */
static int sync_since(struct served_session *s, unsigned long long asked_ns)
{
	struct served_leader *l = s->leader;
	unsigned long long began;
	int err;

	if (l->synced_ns > asked_ns)
		return 0;
	began = now_ns();
	err = leader_sync(&l->h);
	if (!err)
		l->synced_ns = began;
	return err;
}

static int served_set_enabled(struct served_session *s, bool enabled,
			      unsigned long long asked_ns)
{
	int err = sync_since(s, asked_ns);

	return err ? err : shared_slot_set_enabled_synced(&s->slot, enabled);
}

static unsigned long long served_sync_due_ns(const struct served_session *s,
					     unsigned long long now_ns)
{
	unsigned long long due = s->leader->synced_ns + SERVED_SYNC_GAP_MS * 1000000ull;

	return s->leader->synced_ns && due > now_ns ? due : now_ns;
}

static int served_read(struct served_session *s, unsigned long long asked_ns,
		       struct bpf_perf_event_value *per_cpu)
{
	int err = sync_since(s, asked_ns);

	return err ? err : shared_slot_read(&s->slot, 0, per_cpu);
}

static unsigned int served_nr_cpus(const struct served_session *s)
{
	return leader_nr_cpus(&s->leader->h);
}

static void served_close(struct served *sv, struct served_session *s)
{
	struct served_leader *l = s->leader;

	if (!l)
		return;
	shared_release(sv->map_path, &l->key, &l->h, s->slot.slot, s->slot.cgroup_id);
	shared_slot_free(&s->slot);
	l->nr_slots--;
	if (s->unpriv)
		l->nr_unpriv_slots--;
	if (!l->nr_slots)
		drop_leader(sv, l);
	memset(s, 0, sizeof(*s));
}

const struct served_ops served_bpf_ops = {
	.check_start = policy_check_start,
	.check_end = policy_check_end,
	.check_kill = policy_check_kill,
	.open = served_open,
	.load_fd = served_load_fd,
	.open_end = served_open_end,
	.load_abandon = served_load_abandon,
	.set_enabled = served_set_enabled,
	.sync_due_ns = served_sync_due_ns,
	.read = served_read,
	.nr_cpus = served_nr_cpus,
	.close = served_close,
};
