// SPDX-License-Identifier: GPL-2.0-only
#include "byte_buf.h"

#include <byteswap.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

void buf_reserve(struct byte_buf *b, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 64;
		b->data = xrealloc(b->data, b->cap);
	}
}

void buf_put(struct byte_buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void buf_put_zeros(struct byte_buf *b, size_t n)
{
	static const char zeros[64];

	while (n) {
		size_t k = n < sizeof(zeros) ? n : sizeof(zeros);

		buf_put(b, zeros, k);
		n -= k;
	}
}

void buf_put_u16(struct byte_buf *b, __u16 v)
{
	if (b->swap)
		v = bswap_16(v);
	buf_put(b, &v, sizeof(v));
}

void buf_put_u32(struct byte_buf *b, __u32 v)
{
	if (b->swap)
		v = bswap_32(v);
	buf_put(b, &v, sizeof(v));
}

void buf_put_u64(struct byte_buf *b, __u64 v)
{
	if (b->swap)
		v = bswap_64(v);
	buf_put(b, &v, sizeof(v));
}

void buf_put_string(struct byte_buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 63) & ~(size_t)63;

	buf_put_u32(b, (__u32)padded);
	buf_put(b, s, n);
	buf_put_zeros(b, padded - n);
}

void buf_free(struct byte_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
