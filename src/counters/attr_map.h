/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pinned attr map that upstream perf and bperf share: a BPF hash map from struct
 * perf_event_attr to the ids of the leader that counts that attr. Every change bperf makes happens
 * under its own lock (sync_lock.h) and, where it comes free at once, the map fd's flock(), which
 * is upstream perf's lock.
 */
#ifndef BPERF_ATTR_MAP_H
#define BPERF_ATTR_MAP_H

#include <linux/perf_event.h>
#include <linux/types.h>
#include <stdbool.h>

#define DEFAULT_ATTR_MAP_PATH "/sys/fs/bpf/perf_attr_map"
#define ATTR_MAP_ENTRIES 1024

/* perf's struct perf_event_attr_map_entry */
struct attr_map_entry {
	__u32 link_id;
	__u32 diff_map_id;
};

struct attr_map {
	int fd;
	__u32 key_size;	 /* the map's key size: perf's sizeof(attr), ours or a newer perf's */
	const char *path;
	int lock_fd;		/* sync_lock.h's */
	bool perf_locked;	/* the map fd flock()ed too */
};

/*
 * Opens the map at path, creating and pinning it (mode 0600) if absent, checks its type and
 * sizes, and takes the locks. Prints the reason and returns -errno on failure.
 */
int attr_map_open_locked(struct attr_map *map, const char *path);
/* Drops the locks and closes the map. */
void attr_map_close(struct attr_map *map);

/* The key for an attr: the attr padded with zeros to the map's key size. */
int attr_map_lookup(const struct attr_map *map, const struct perf_event_attr *attr,
		    struct attr_map_entry *entry);
int attr_map_update(const struct attr_map *map, const struct perf_event_attr *attr,
		    const struct attr_map_entry *entry);
int attr_map_delete(const struct attr_map *map, const struct perf_event_attr *attr);

/* Whether link id exists (or may: only ENOENT says it is gone). */
bool attr_map_link_exists(__u32 id);
/* Deletes every entry whose leader link no longer exists; returns how many. */
int attr_map_sweep(const struct attr_map *map);
/* Deletes every entry fn says true of (given the key's attr and the entry); returns how many. */
int attr_map_delete_if(const struct attr_map *map,
		       bool (*fn)(const struct perf_event_attr *attr,
				  const struct attr_map_entry *entry, void *ctx),
		       void *ctx);

#endif
