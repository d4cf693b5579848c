/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a `perf record` file: every record counted by type in file order (perf report -D's
 * totals), then, in time order through the ordered queue, applied to the processes and maps
 * and each sample resolved to a binary and function. Callers hook in where they need to.
 */
#ifndef BPERF_DATA_SESSION_H
#define BPERF_DATA_SESSION_H

#include "env.h"
#include "machine.h"
#include "ordered.h"
#include "reader.h"
#include "sample.h"

struct data_session;

struct data_session_ops {
	/* each record as read (file order), before anything else sees it */
	int (*record)(void *ctx, struct data_session *s, const struct data_record *rec);
	/* each record in time order, after the processes have taken it in */
	int (*ordered)(void *ctx, struct data_session *s, const struct data_record *rec,
		       const struct data_sample *smp, const struct data_location *loc);
};

struct data_session {
	struct perf_data_reader r;
	struct data_id_index idx;
	struct data_env env;
	struct data_machine machine;
	struct ordered_queue queue;
	__u64 counts[REC_TYPE_MAX];	/* records by type; unknown types under 0 */
	__u64 total;
	__u64 *attr_samples;		/* samples per attr */
	char **attr_names;		/* names made from the attrs when the file has none */
	int bad_records;		/* skipped after a message */
	bool damaged;			/* a feature section was, after a message */
	__u64 lost_chunks;		/* LOST records: the kernel's buffer overflowed */
	__u64 lost_samples;		/* what LOST_SAMPLES records say */
	bool resolve;			/* attribute samples to binaries and functions */
	size_t queue_max_bytes;		/* the ordered queue's bound, 0 for the default */
	const struct data_session_ops *ops;
	void *ctx;
};

/* One entry of the BUILD_ID feature section. */
struct data_build_id {
	__u16 size;		/* of the entry, as its header says */
	__s32 pid;
	const unsigned char *id;
	size_t id_size;
	const char *filename;	/* NULL when the entry has no terminated, non-empty name */
};

/*
 * The entry of BUILD_ID section c at *pos (moved past it): 1, 0 at the section's end, or -EINVAL
 * (nothing printed) for an entry whose size does not fit.
 */
int data_build_id_next(const struct perf_data_reader *r, const struct feat_cursor *c,
		       size_t *pos, struct data_build_id *e);

/* 0 or -errno (message printed). */
int data_session_open(struct data_session *s, const char *path);
/*
 * Reads the whole file. 0, or -EINVAL when the file is damaged or odd: what came before the
 * damage has been delivered, so the caller may still show partial results. Each skipped
 * record or oddity has had its line on stderr (the first MAX_RECORD_MESSAGES records, then a
 * count); samples the recording lost are reported as perf reports them, and are no damage.
 */
int data_session_run(struct data_session *s);
void data_session_close(struct data_session *s);
/*
 * The event name of an attr ("cpu-clock"), from the file's event descriptions, else (a file
 * cut short) the name perf gives the attr itself.
 */
const char *data_session_event_name(const struct data_session *s, int attr_idx);

#endif
