/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growable byte buffer for building perf.data feature payloads and records, in host or
 * (for tests of foreign files) swapped byte order.
 */
#ifndef BPERF_DATA_BYTE_BUF_H
#define BPERF_DATA_BYTE_BUF_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct byte_buf {
	char *data;
	size_t len;
	size_t cap;
	bool swap;	/* store integers byte-swapped */
};

void buf_put(struct byte_buf *b, const void *p, size_t n);
/* Room for n more bytes after len (for writers that fill data + len themselves). */
void buf_reserve(struct byte_buf *b, size_t n);
void buf_put_zeros(struct byte_buf *b, size_t n);
void buf_put_u16(struct byte_buf *b, __u16 v);
void buf_put_u32(struct byte_buf *b, __u32 v);
void buf_put_u64(struct byte_buf *b, __u64 v);
/* perf's string: u32 length (NUL included, rounded up to 64), then the bytes, NUL padded. */
void buf_put_string(struct byte_buf *b, const char *s);
void buf_free(struct byte_buf *b);

#endif
