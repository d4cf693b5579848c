/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The leaders an attr map names, as bperf check reports who holds the counters: read only, no
 * lock taken, nothing adopted or changed.
 */
#ifndef BPERF_COUNTERS_LEADER_LIST_H
#define BPERF_COUNTERS_LEADER_LIST_H

#include <linux/perf_event.h>
#include <stdbool.h>

enum leader_key_type {
	LEADER_KEY_EVENT,	/* the attr of one event (perf's and bperf's keys) */
	LEADER_KEY_GROUP,	/* a bperf group's key: its first member's attr */
	LEADER_KEY_MEMBER,	/* a bperf member key: one event of a group's leader */
};

struct leader_summary {
	struct perf_event_attr attr;	/* the key's attr, without bperf's marks */
	enum leader_key_type key_type;
	__u32 link_id;
	bool alive;		/* the link exists */
	bool ours;		/* a bperf leader (else upstream perf's, or not a leader) */
	__u32 nr_members;	/* bperf's: the events it counts */
	__u32 nr_sessions;	/* bperf's: its active session slots */
};

/*
 * Every entry of the attr map pinned at path, in the map's order: 0 and *out (freed by the
 * caller, *nr entries), -ENOENT where no map is pinned there, or another -errno.
 */
int leader_list(const char *path, struct leader_summary **out, int *nr);

#endif
