/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gzip for /metrics: Prometheus asks for it (Accept-Encoding: gzip), and a scrape of a large
 * machine's text shrinks about 20 times (bench/README.md).
 */
#ifndef BPERF_DAEMON_HTTP_GZIP_H
#define BPERF_DAEMON_HTTP_GZIP_H

#include <stdbool.h>

#include "../util/byte_buf.h"

/* Whether an Accept-Encoding value (NULL: no header) takes gzip: gzip, x-gzip or *, q > 0. */
bool accept_encoding_gzip(const char *value);
/* in compressed as one gzip member, appended to out; 0 or -ENOMEM. */
int gzip_compress(const struct byte_buf *in, struct byte_buf *out);

#endif
