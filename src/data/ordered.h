/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Puts records in time order with bounded memory, as perf's ordered events do: records are
 * queued by time and delivered at each FINISHED_ROUND up to the newest time seen before the
 * previous round (perf record writes a round once every CPU's buffer has been drained, so
 * nothing older can follow), and the oldest half is delivered whenever the queue outgrows its
 * byte limit. A record older than what has been delivered goes out at once, and is counted
 * (perf's "out of order events").
 */
#ifndef BPERF_DATA_ORDERED_H
#define BPERF_DATA_ORDERED_H

#include <stddef.h>

#include "reader.h"

#define ORDERED_DEFAULT_MAX_BYTES (64u << 20)

/* Called in time order; rec->data is a copy valid during the call. Non-zero stops. */
typedef int (*ordered_deliver_fn)(void *ctx, const struct data_record *rec, __u64 time);

struct ordered_entry;

struct ordered_queue {
	struct ordered_entry **heap;	/* min-heap by (time, arrival) */
	size_t nr, cap;
	size_t bytes, max_bytes, peak_bytes;
	__u64 seq;
	__u64 max_time;		/* newest time queued */
	__u64 next_flush;	/* what the next round may deliver up to */
	__u64 last_delivered;
	/* records older than the last delivered (time 0 aside, as perf) */
	__u64 nr_unordered;
	ordered_deliver_fn deliver;
	void *ctx;
};

void ordered_queue_init(struct ordered_queue *q, size_t max_bytes, ordered_deliver_fn deliver,
			void *ctx);
/* Queues a copy of rec; may deliver older records. Returns what deliver returned, or 0. */
int ordered_queue_push(struct ordered_queue *q, const struct data_record *rec, __u64 time);
/* A FINISHED_ROUND record was read. */
int ordered_queue_round(struct ordered_queue *q);
/* Delivers everything (end of the file). */
int ordered_queue_flush(struct ordered_queue *q);
void ordered_queue_free(struct ordered_queue *q);

#endif
