/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's counters: its events packed into as few shared leaders as open (a perf group of up
 * to 8 events the PMU takes together, software and hardware ones apart, filed under the group's
 * key and each event's member key, so that `bperf stat --bpf-counters -e EVENT` sessions share
 * it; an event left alone is joined exactly as such a session joins it); one FILTER_CPU slot over
 * every online CPU in each, the cgroups registered in every leader, and the bases (readings at
 * the start, or at a cgroup's registration) the exported values are differences of.
 */
#ifndef BPERF_DAEMON_REGISTRY_H
#define BPERF_DAEMON_REGISTRY_H

#include <linux/types.h>
#include <stdbool.h>

#include "../util/byte_buf.h"
#include "daemon.h"
#include "snapshot.h"

struct registry;

/*
 * Parses cfg->events, joins leaders for them (as few as open), takes the CPU-wide bases. default_list: the
 * events are bperf's default list, of which those this machine cannot count are left out
 * silently (-v says which). Returns 0 or -errno after printing one line.
 */
int registry_open(const struct daemon_config *cfg, bool default_list, struct registry **out);

/* One cgroup found below the daemon's cgroup root. */
struct cgroup_entry {
	char *path;	/* below perf's cgroup mount, with a leading '/', as -G takes it */
	__u64 id;	/* its kernfs id (the directory's inode) */
};

/*
 * Makes the registered cgroups those of list[0..nr) (sorted by path): registers the new ones
 * (their counts start now), drops those gone. Takes nothing from list.
 */
void registry_set_cgroups(struct registry *r, const struct cgroup_entry *list, int nr);

/* How many cgroups are counted now. */
int registry_nr_cgroups(const struct registry *r);

/*
 * Non-zero (-E2BIG) when the cgroups found at the start ask for more CPU x cgroup series than
 * bperf exports (daemon.cgroup-cpu-series = all): the daemon stops. The line was printed.
 */
int registry_start_error(const struct registry *r);

/* The values now, differences from the bases; s stays valid until the next call. */
int registry_snapshot(struct registry *r, struct snapshot *s);


/* Drops every cgroup registration and slot, and frees r. */
void registry_close(struct registry *r);

#endif
