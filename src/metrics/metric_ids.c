// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf 6.1's id sets (util/hashmap.c, util/expr.c), rebuilt from their rules: hash h = h * 31 + c
 * over the id's chars (plain char, so signed where the platform's char is), bucket = the top
 * cap_bits bits of h * 0x9E3779B97F4A7C15, at least 4 buckets, growth to twice the buckets
 * before an insert that would fill more than 3/4, new entries at their chain's head, and
 * iteration by bucket, each chain from its head.
 */
#include "metric_ids.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

static size_t id_hash(const char *id)
{
	size_t h = 0;

	for (; *id; id++)
		h = h * 31 + *id;
	return h;
}

static size_t bucket_of(size_t h, int bits)
{
	if (!bits)
		return 0;
	return (size_t)((uint64_t)h * 0x9E3779B97F4A7C15ULL) >> (64 - bits);
}

struct metric_ids *metric_ids_new(void)
{
	return xzalloc(sizeof(struct metric_ids));
}

void metric_ids_free(struct metric_ids *ids)
{
	if (!ids)
		return;
	for (size_t b = 0; b < ids->cap; b++) {
		struct metric_id_entry *e = ids->buckets[b], *next;

		for (; e; e = next) {
			next = e->next;
			free(e->id);
			free(e);
		}
	}
	free(ids->buckets);
	free(ids);
}

static struct metric_id_entry **find(const struct metric_ids *ids, const char *id)
{
	struct metric_id_entry **pp;

	if (!ids || !ids->cap)
		return NULL;
	for (pp = &ids->buckets[bucket_of(id_hash(id), ids->cap_bits)]; *pp; pp = &(*pp)->next)
		if (!strcmp((*pp)->id, id))
			return pp;
	return NULL;
}

/* Rehash into twice the buckets, walking the old ones in iteration order (as hashmap_grow). */
static void grow(struct metric_ids *ids)
{
	int bits = ids->cap_bits + 1 < 2 ? 2 : ids->cap_bits + 1;
	size_t cap = (size_t)1 << bits;
	struct metric_id_entry **buckets = xzalloc(cap * sizeof(*buckets));

	for (size_t b = 0; b < ids->cap; b++) {
		struct metric_id_entry *e = ids->buckets[b], *next;

		for (; e; e = next) {
			size_t nb = bucket_of(id_hash(e->id), bits);

			next = e->next;
			e->next = buckets[nb];
			buckets[nb] = e;
		}
	}
	free(ids->buckets);
	ids->buckets = buckets;
	ids->cap = cap;
	ids->cap_bits = bits;
}

bool metric_ids_insert(struct metric_ids *ids, const char *id)
{
	struct metric_id_entry *e;
	size_t b;

	if (find(ids, id))
		return false;
	if (!ids->cap || (ids->nr + 1) * 4 / 3 > ids->cap)
		grow(ids);
	b = bucket_of(id_hash(id), ids->cap_bits);
	e = xzalloc(sizeof(*e));
	e->id = xstrdup(id);
	e->next = ids->buckets[b];
	ids->buckets[b] = e;
	ids->nr++;
	return true;
}

bool metric_ids_has(const struct metric_ids *ids, const char *id)
{
	return find(ids, id) != NULL;
}

bool metric_ids_delete(struct metric_ids *ids, const char *id)
{
	struct metric_id_entry **pp = find(ids, id), *e;

	if (!pp)
		return false;
	e = *pp;
	*pp = e->next;
	free(e->id);
	free(e);
	ids->nr--;
	return true;
}

size_t metric_ids_size(const struct metric_ids *ids)
{
	return ids ? ids->nr : 0;
}

struct metric_ids *metric_ids_union(struct metric_ids *a, struct metric_ids *b)
{
	struct metric_ids_iter it;
	const char *id;

	if (!a)
		return b;
	if (!b)
		return a;
	if (a->nr < b->nr) {
		struct metric_ids *t = a;

		a = b;
		b = t;
	}
	metric_ids_for_each(b, it, id)
		metric_ids_insert(a, id);
	metric_ids_free(b);
	return a;
}

const char *metric_ids_next(const struct metric_ids *ids, struct metric_ids_iter *it)
{
	if (!ids)
		return NULL;
	if (it->started && it->entry)
		it->entry = it->entry->next;
	if (!it->started) {
		it->started = true;
		it->bucket = 0;
		it->entry = ids->cap ? ids->buckets[0] : NULL;
	}
	while (!it->entry && it->bucket + 1 < ids->cap)
		it->entry = ids->buckets[++it->bucket];
	return it->entry ? it->entry->id : NULL;
}

char **metric_ids_to_array(const struct metric_ids *ids)
{
	char **array = xzalloc((metric_ids_size(ids) + 1) * sizeof(*array));
	struct metric_ids_iter it;
	const char *id;
	size_t n = 0;

	metric_ids_for_each(ids, it, id)
		array[n++] = xstrdup(id);
	return array;
}
