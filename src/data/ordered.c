// SPDX-License-Identifier: GPL-2.0-only
#include "ordered.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

struct ordered_entry {
	__u64 time;
	__u64 seq;
	struct data_record rec;
	/* the record's bytes follow */
};

void ordered_queue_init(struct ordered_queue *q, size_t max_bytes, ordered_deliver_fn deliver,
			void *ctx)
{
	memset(q, 0, sizeof(*q));
	q->max_bytes = max_bytes ? max_bytes : ORDERED_DEFAULT_MAX_BYTES;
	q->deliver = deliver;
	q->ctx = ctx;
}

static bool before(const struct ordered_entry *a, const struct ordered_entry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void sift_up(struct ordered_queue *q, size_t i)
{
	while (i) {
		size_t parent = (i - 1) / 2;
		struct ordered_entry *tmp;

		if (!before(q->heap[i], q->heap[parent]))
			break;
		tmp = q->heap[i];
		q->heap[i] = q->heap[parent];
		q->heap[parent] = tmp;
		i = parent;
	}
}

static void sift_down(struct ordered_queue *q, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, min = i;
		struct ordered_entry *tmp;

		if (l < q->nr && before(q->heap[l], q->heap[min]))
			min = l;
		if (r < q->nr && before(q->heap[r], q->heap[min]))
			min = r;
		if (min == i)
			return;
		tmp = q->heap[i];
		q->heap[i] = q->heap[min];
		q->heap[min] = tmp;
		i = min;
	}
}

static int deliver_oldest(struct ordered_queue *q)
{
	struct ordered_entry *e = q->heap[0];
	int ret;

	q->heap[0] = q->heap[--q->nr];
	sift_down(q, 0);
	q->bytes -= sizeof(*e) + e->rec.header.size;
	q->last_delivered = e->time;
	ret = q->deliver(q->ctx, &e->rec, e->time);
	free(e);
	return ret;
}

/* Delivers every record of time <= upto. */
static int deliver_upto(struct ordered_queue *q, __u64 upto)
{
	int ret = 0;

	while (!ret && q->nr && q->heap[0]->time <= upto)
		ret = deliver_oldest(q);
	return ret;
}

int ordered_queue_push(struct ordered_queue *q, const struct data_record *rec, __u64 time)
{
	struct ordered_entry *e;
	size_t half;
	int ret = 0;

	if (q->seq && time < q->last_delivered) {
		q->nr_unordered += !!time;
		return q->deliver(q->ctx, rec, time);
	}
	e = xzalloc(sizeof(*e) + rec->header.size);
	e->time = time;
	e->seq = q->seq++;
	e->rec = *rec;
	e->rec.data = e + 1;
	memcpy(e + 1, rec->data, rec->header.size);
	if (q->nr == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 1024;
		q->heap = xrealloc(q->heap, q->cap * sizeof(*q->heap));
	}
	q->heap[q->nr++] = e;
	sift_up(q, q->nr - 1);
	q->bytes += sizeof(*e) + rec->header.size;
	if (q->bytes > q->peak_bytes)
		q->peak_bytes = q->bytes;
	if (time > q->max_time)
		q->max_time = time;
	/* a file without rounds (or a huge round): keep memory bounded, oldest half out */
	if (q->bytes > q->max_bytes)
		for (half = q->nr / 2; !ret && q->nr > half;)
			ret = deliver_oldest(q);
	return ret;
}

int ordered_queue_round(struct ordered_queue *q)
{
	int ret = deliver_upto(q, q->next_flush);

	q->next_flush = q->max_time;
	return ret;
}

int ordered_queue_flush(struct ordered_queue *q)
{
	return deliver_upto(q, ~0ull);
}

void ordered_queue_free(struct ordered_queue *q)
{
	while (q->nr)
		free(q->heap[--q->nr]);
	free(q->heap);
	memset(q, 0, sizeof(*q));
}
