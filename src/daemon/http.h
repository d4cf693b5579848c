/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's HTTP server: GET (and HEAD) /metrics over HTTP/1.1 with keep-alive, bodies built
 * whole before they are sent, a deadline for reading each request and one for writing each
 * response, and limits on connections (in all and per peer address) sized from the fd limit.
 */
#ifndef BPERF_DAEMON_HTTP_H
#define BPERF_DAEMON_HTTP_H

#include <stdbool.h>

#include "../util/byte_buf.h"
#include "loop.h"

struct http_server;

/* Builds the /metrics body into out (empty on entry); 0 or -errno (then: 500). */
typedef int (*http_metrics_fn)(void *arg, struct byte_buf *out, bool openmetrics);

struct http_limits {
	unsigned int read_ms;	/* a request whole within this of accept, or of its first byte */
	unsigned int idle_ms;	/* a keep-alive connection waits this long for its next request */
	unsigned int write_ms;	/* a response is written within this, */
	unsigned int min_rate;	/* plus its length at this many bytes a second */
	unsigned int max_conns;	/* connections at a time (then the oldest idle one goes) */
	unsigned int max_per_peer;	/* of one IPv4 address or IPv6 /64 */
	size_t max_resp_bytes;	/* responses held at a time (then the oldest unread one goes) */
};

/* What a server did since it started (tests, the fuzz target). */
struct http_stats {
	unsigned long long accepted;	/* connections taken (accepted or adopted) */
	unsigned long long responses;	/* responses begun, errors included */
	unsigned long long refused;	/* closed at accept: peer limit, or full with none idle */
	unsigned long long evicted;	/* idle or half-read ones closed for a new one */
	unsigned long long expired;	/* closed at a read or write deadline */
	unsigned long long paused;	/* times accept failed for want of fds (EMFILE, ENFILE) */
	unsigned int open;		/* connections open now */
};

/*
 * The limits for a daemon whose fd limit is nofile: deadlines of 5 s (read), 65 s (idle),
 * 5 s + 32 KiB/s (write); half the fds for connections, and per peer 1/16 of those, 4 to 256;
 * 256 MiB of responses being written.
 */
void http_limits_default(struct http_limits *lim, unsigned long nofile);
/*
 * Listens on listen ("ADDR:PORT", "[ADDR6]:PORT"; port 0 lets the kernel choose) with
 * SO_REUSEADDR, so that a restarted daemon gets its port back at once, under the default limits
 * for the process's RLIMIT_NOFILE. 0 or -errno after printing why.
 */
int http_server_start(struct loop *l, const char *listen, http_metrics_fn fn, void *arg,
		      struct http_server **out);
/* Other limits (tests: short deadlines, few connections), for connections from now on. */
void http_server_set_limits(struct http_server *s, const struct http_limits *lim);
/* Serves fd (a connected stream socket: tests, the fuzz target) as if accepted from peer. */
int http_server_adopt(struct http_server *s, int fd, const char *peer);
/* The bound address as "ADDR:PORT" (the kernel's choice for port 0). */
const char *http_server_address(const struct http_server *s);
struct http_stats http_server_stats(const struct http_server *s);
void http_server_stop(struct http_server *s);

#endif
