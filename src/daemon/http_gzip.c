// SPDX-License-Identifier: GPL-2.0-only
/* gzip for /metrics (http_gzip.h), with zlib. */
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "exposition.h"
#include "http_gzip.h"

/* Fast and nearly as small as the default level on this text (bench/scrape). */
#define GZIP_LEVEL 1

static const char *trim(const char *p, const char **end)
{
	while (p < *end && (*p == ' ' || *p == '\t'))
		p++;
	while (*end > p && ((*end)[-1] == ' ' || (*end)[-1] == '\t'))
		(*end)--;
	return p;
}

/* One "coding;q=V" of the list: its q (0-1000), -1 if malformed; *name, *name_end the coding */
static int coding_q(const char *p, const char *end, const char **name, const char **name_end)
{
	const char *semi = memchr(p, ';', end - p), *q_end = end;
	const char *q;

	*name_end = semi ? semi : end;
	*name = trim(p, name_end);
	if (!semi)
		return 1000;
	q = trim(semi + 1, &q_end);
	if (q_end - q < 2 || (q[0] != 'q' && q[0] != 'Q') || q[1] != '=')
		return -1;
	return accept_parse_q(q + 2, q_end);
}

static bool coding_is(const char *p, const char *end, const char *word)
{
	return (size_t)(end - p) == strlen(word) && !strncasecmp(p, word, end - p);
}

bool accept_encoding_gzip(const char *value)
{
	int gzip = -1, any = -1;

	for (const char *p = value; p && *p;) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		const char *name, *name_end;
		int q = coding_q(p, end, &name, &name_end);

		if (q >= 0 && (coding_is(name, name_end, "gzip") ||
			       coding_is(name, name_end, "x-gzip")))
			gzip = q > gzip ? q : gzip;
		else if (q >= 0 && coding_is(name, name_end, "*"))
			any = q;
		p = comma ? comma + 1 : end;
	}
	/* gzip named decides; else "*" stands for it (RFC 9110 12.5.3) */
	return gzip >= 0 ? gzip > 0 : any > 0;
}

int gzip_compress(const struct byte_buf *in, struct byte_buf *out)
{
	z_stream zs = { 0 };
	size_t bound;
	int ret;

	/* 16 + 15: a gzip header and trailer around a 32 KiB window */
	if (deflateInit2(&zs, GZIP_LEVEL, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	bound = deflateBound(&zs, in->len);
	buf_reserve(out, bound);
	zs.next_in = (Bytef *)in->data;
	zs.avail_in = in->len;
	zs.next_out = (Bytef *)out->data + out->len;
	zs.avail_out = bound;
	ret = deflate(&zs, Z_FINISH);
	if (ret == Z_STREAM_END)
		out->len += bound - zs.avail_out;
	deflateEnd(&zs);
	return ret == Z_STREAM_END ? 0 : -ENOMEM;
}
