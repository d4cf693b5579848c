/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's HTTP server: GET (and HEAD) /metrics, one response per connection, bodies built
 * whole before they are sent, slow or oversized requests dropped.
 */
#ifndef BPERF_DAEMON_HTTP_H
#define BPERF_DAEMON_HTTP_H

#include <stdbool.h>

#include "../data/byte_buf.h"
#include "loop.h"

struct http_server;

/* Builds the /metrics body into out (empty on entry); 0 or -errno (then: 500). */
typedef int (*http_metrics_fn)(void *arg, struct byte_buf *out, bool openmetrics);

/*
 * Listens on listen ("ADDR:PORT", "[ADDR6]:PORT"; port 0 lets the kernel choose) with
 * SO_REUSEADDR, so that a restarted daemon gets its port back at once. 0 or -errno after
 * printing why.
 */
int http_server_start(struct loop *l, const char *listen, http_metrics_fn fn, void *arg,
		      struct http_server **out);
/* The bound address as "ADDR:PORT" (the kernel's choice for port 0). */
const char *http_server_address(const struct http_server *s);
void http_server_stop(struct http_server *s);

#endif
