/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A set of metric ids (event names) that iterates in perf 6.1's order. perf keeps the ids of a
 * metric in a hash map (libbpf's hashmap with expr.c's string hash) and writes the events of a
 * metric in the map's iteration order, so the order of perf's event lines depends on the
 * table's size history: this set replays that history exactly (same hash, same growth, same
 * chain order), so that bperf opens and prints a metric's events in perf's order.
 */
#ifndef BPERF_METRIC_IDS_H
#define BPERF_METRIC_IDS_H

#include <stdbool.h>
#include <stddef.h>

struct metric_id_entry {
	struct metric_id_entry *next;
	char *id;
};

struct metric_ids {
	struct metric_id_entry **buckets;
	size_t cap;		/* 0 or 1 << cap_bits */
	int cap_bits;
	size_t nr;
};

/* A cursor over a set: zero-initialise it, then call metric_ids_next() until it gives NULL. */
struct metric_ids_iter {
	size_t bucket;
	const struct metric_id_entry *entry;
	bool started;
};

struct metric_ids *metric_ids_new(void);
void metric_ids_free(struct metric_ids *ids);

/* Adds a copy of id; an id already there keeps its place. Returns true if it was new. */
bool metric_ids_insert(struct metric_ids *ids, const char *id);
bool metric_ids_has(const struct metric_ids *ids, const char *id);
/* Removes id; returns whether it was there. */
bool metric_ids_delete(struct metric_ids *ids, const char *id);
size_t metric_ids_size(const struct metric_ids *ids);

/*
 * perf's ids__union(): the larger set (a on a tie) takes the other's ids in the other's
 * iteration order; the other is freed. Either may be NULL (the union is then the other one).
 */
struct metric_ids *metric_ids_union(struct metric_ids *a, struct metric_ids *b);

/* The next id in perf's iteration order, or NULL at the end. The set must not change meanwhile. */
const char *metric_ids_next(const struct metric_ids *ids, struct metric_ids_iter *it);

#define metric_ids_for_each(ids, it, id) \
	for ((it) = (struct metric_ids_iter){ 0 }; ((id) = metric_ids_next(ids, &(it)));)

/* The ids in iteration order as a NULL-terminated array of copies (free with free() each). */
char **metric_ids_to_array(const struct metric_ids *ids);

#endif
