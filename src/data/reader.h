/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A streaming perf.data reader: the header, attrs and ids are read and checked at open, the
 * data section's records come one at a time through a bounded buffer, feature sections are
 * read on demand. Both byte orders, file and pipe layouts. Every problem is reported once,
 * naming the file offset, and returned as -EINVAL.
 */
#ifndef BPERF_DATA_READER_H
#define BPERF_DATA_READER_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_file.h"

/* Limits that keep a hostile file from asking for unbounded memory. */
#define DATA_MAX_ATTRS 65536
#define DATA_MAX_FEATURE_SIZE (64u << 20)
#define DATA_MAX_ATTR_SIZE 4096
#define DATA_MAX_IDS (1u << 22)		/* event ids over all attrs */

struct data_attr {
	struct perf_event_attr attr;	/* the known part; a newer perf's extra bytes are dropped */
	__u64 *ids;
	__u32 nr_ids;
};

struct data_record {
	__u64 offset;		/* in the file */
	struct rec_header header;
	void *data;		/* the whole record in host order, valid until the next call */
};

struct perf_data_reader {
	int fd;
	char *path;
	__u64 file_size;
	bool swap;		/* written on a host of the other byte order */
	bool pipe;		/* a `-o -` stream: records only, attrs in HEADER_ATTR records */
	bool stream;		/* "-": read from stdin, forward only (pipe format) */
	bool quiet;		/* data_error() prints nothing (a caller's message limit) */
	/*
	 * Set by data_reader_open_partial(): a file cut short (or never finished by a killed
	 * perf record: data size 0) is read up to its end, without its feature sections.
	 */
	bool partial;
	bool cut_short;		/* ... and this one was: the records end at the file's end */
	struct perf_file_header header;
	struct data_attr *attrs;
	int nr_attrs;
	__u64 nr_ids;		/* over all attrs */

	/* the record stream */
	__u64 pos;		/* file offset of the next record */
	__u64 end;		/* end of the data section */
	char *buf;		/* window [buf_offset, buf_offset + buf_len) of the file */
	size_t buf_len;
	__u64 buf_offset;
};

/* Opens and checks path ("-": stdin, pipe format). Returns 0 or -errno (message printed). */
int data_reader_open(struct perf_data_reader *r, const char *path);
/*
 * data_reader_open() for readers of sample files: a file whose data section runs past its end
 * keeps the records before the cut (a message says so, and cut_short is set).
 */
int data_reader_open_partial(struct perf_data_reader *r, const char *path);
/* The next record: 1, 0 at the end of the data, or -EINVAL (message printed). */
int data_reader_next(struct perf_data_reader *r, struct data_record *rec);
/* Where feature feat is: 1 (sec filled), 0 if the file does not have it, or -EINVAL. */
int data_reader_feature(struct perf_data_reader *r, int feat, struct perf_file_section *sec);
/* Reads size bytes at offset; -EINVAL (message printed) if they are not all in the file. */
int data_reader_pread(struct perf_data_reader *r, __u64 offset, void *buf, size_t size);
/* Prints "bperf: PATH: offset 0x...: MESSAGE" and returns -EINVAL. */
int data_error(const struct perf_data_reader *r, __u64 offset, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void data_reader_close(struct perf_data_reader *r);

/* Converts an attr of attr_size bytes read from the file into r's host-order attr. */
int data_attr_from_file(struct perf_data_reader *r, __u64 offset, const void *raw,
			size_t attr_size, struct perf_event_attr *attr);

/* Bounds-checked reading of a feature section (features_read.c has the parsers). */
struct feat_cursor {
	struct perf_data_reader *r;
	const unsigned char *data;
	size_t size;
	size_t pos;
	__u64 offset;		/* file offset of data[0] */
};

int feat_cursor_u32(struct feat_cursor *c, __u32 *v);
int feat_cursor_u64(struct feat_cursor *c, __u64 *v);
/* A perf string; *s points into the section and is NUL-terminated. */
int feat_cursor_string(struct feat_cursor *c, const char **s);
/* Loads a feature section (at most DATA_MAX_FEATURE_SIZE): 1, 0 if absent, or -EINVAL. */
int feat_cursor_load(struct perf_data_reader *r, int feat, struct feat_cursor *c);
void feat_cursor_free(struct feat_cursor *c);

#endif
