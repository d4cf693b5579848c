/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Writes a perf.data file (PERFILE2) the way `perf stat record` does: header, event ids and
 * attrs, a data section of records, then the feature sections.
 */
#ifndef BPERF_DATA_WRITER_H
#define BPERF_DATA_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#include "../util/byte_buf.h"
#include "perf_file.h"

/* One event as the file describes it. */
struct data_event {
	struct perf_event_attr attr;
	const char *name;
	const __u64 *ids;
	int nr_ids;		/* 0: the event could not be opened */
	const char *unit;	/* "" or NULL: no UNIT update */
	double scale;
	int leader_idx;
	int nr_members;		/* on a group leader: members, itself included */
	const char *group_name;
};

/* What the feature sections describe besides the host. */
struct data_features {
	const struct data_event *events;
	int nr_events;
	const char *const *argv;	/* the command line after the program name */
	int argc;
	const char *version;
};

struct perf_data_writer {
	FILE *file;
	char *path;
	struct perf_file_header header;
	bool swap;		/* write the other byte order (tests) */
	bool pipe;		/* "-": perf's pipe format on stdout: attrs as records, no features */
	unsigned int attr_extra;	/* zero bytes after each attr: a newer perf's bigger attr */
	int error;		/* the first write error, -errno */
};

/*
 * Creates path (mode 0600), keeping an existing non-empty file as path.old as perf does; "-" is
 * stdout in perf's pipe format.
 * Returns 0 or -errno (message printed).
 */
int data_writer_open(struct perf_data_writer *w, const char *path, bool swap);
/* The header placeholder, the ids and the attrs; the data section starts after them. */
int data_writer_begin(struct perf_data_writer *w, const struct data_event *events, int nr);
/* Appends one record (host order; swapped here when the writer swaps). */
void data_writer_record(struct perf_data_writer *w, void *rec);
/* Feature sections, then the final header. Returns 0 or -errno (message printed). */
int data_writer_finish(struct perf_data_writer *w, const struct data_features *feat);
void data_writer_close(struct perf_data_writer *w);

/* Record builders: each appends one record of its kind. */
void data_write_event_update_unit(struct perf_data_writer *w, __u64 id, const char *unit);
void data_write_event_update_scale(struct perf_data_writer *w, __u64 id, double scale);
void data_write_event_update_name(struct perf_data_writer *w, __u64 id, const char *name);
void data_write_thread_map(struct perf_data_writer *w, const int *pids, char (*comms)[64],
			   int nr);
void data_write_cpu_map(struct perf_data_writer *w, const int *cpus, int nr);
void data_write_stat_config(struct perf_data_writer *w, __u64 aggr_mode, __u64 interval_ms,
			    bool scale);
void data_write_stat(struct perf_data_writer *w, __u64 id, int cpu, int thread, __u64 val,
		     __u64 ena, __u64 run);
void data_write_stat_round(struct perf_data_writer *w, __u64 type, __u64 time_ns);
/* The kernel map perf adds at the end "so that older tools don't warn". */
void data_write_kernel_mmap(struct perf_data_writer *w);

/* Feature payloads (features_write.c): fills one section's bytes, false to drop the feature. */
bool feature_write(struct byte_buf *b, int feat, const struct data_features *f);

#endif
