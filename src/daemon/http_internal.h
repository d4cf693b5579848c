/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the HTTP server (http.c: the listener, peers, limits, deadlines) and its connections
 * (http_conn.c: one connection's state machine) share.
 */
#ifndef BPERF_DAEMON_HTTP_INTERNAL_H
#define BPERF_DAEMON_HTTP_INTERNAL_H

#include <netinet/in.h>

#include "http.h"

#define HTTP_PEER_BUCKETS 1024
#define HTTP_PEER_LEN (INET6_ADDRSTRLEN + 4)	/* "ADDR" or "PREFIX::/64" */
#define HTTP_DRAIN_MS 1000	/* after a last response: the client's unread bytes read */

/* One peer address (IPv4) or IPv6 /64, while it has connections. */
struct http_peer {
	char addr[HTTP_PEER_LEN];
	unsigned int conns;
	struct http_peer *next;
};

/*
 * A connection is in the list of its state, each ordered by deadline for READING and IDLE
 * (every deadline of a list is now + the same limit), so that the sweep looks at heads only.
 */
enum http_state { HTTP_READING, HTTP_IDLE, HTTP_WRITING, HTTP_DRAINING, HTTP_NR_STATES };

struct http_conn {
	struct http_server *srv;
	struct http_peer *peer;
	int fd;
	enum http_state state;
	unsigned long long deadline_ns;
	struct byte_buf in;	/* read, not yet answered: at most HTTP_MAX_HEAD bytes */
	size_t checked;		/* of in: known to hold no whole head (http_head_pending) */
	struct byte_buf resp;	/* status line, headers and body: all of it before the first byte */
	size_t sent;
	bool close_after;	/* the response in resp is the connection's last */
	struct http_conn *prev, *next;
};

struct http_conn_list {
	struct http_conn *head, *tail;
};

struct http_server {
	struct loop *loop;
	int fd;
	int timer_fd;		/* the sweep of deadlines, armed while there are connections */
	bool listening;		/* false while accept is paused for want of fds */
	bool timer_armed;
	http_metrics_fn fn;
	void *arg;
	struct http_limits lim;
	struct byte_buf body;	/* reused by every scrape */
	struct byte_buf gzipped;	/* body compressed, when the scraper takes gzip */
	struct http_conn_list lists[HTTP_NR_STATES];
	struct http_peer *peers[HTTP_PEER_BUCKETS];
	struct http_stats stats;
	size_t resp_bytes;	/* of the responses held by connections */
	char address[INET6_ADDRSTRLEN + 8];
};

/* http_conn.c */
/* A connection on fd (non-blocking) from peer, reading its first request; 0 or -errno. */
int conn_open(struct http_server *s, int fd, struct http_peer *peer);
/* Closes c, logging why against its peer if why. */
void conn_close(struct http_conn *c, const char *why);
/* c's deadline passed: closed, logged unless it was idle between requests. */
void conn_expire(struct http_conn *c);

/* http.c */
/* c leaves its peer (freed with its last connection) and the server its slot. */
void server_conn_gone(struct http_server *s, struct http_conn *c);
void server_log(struct http_server *s, const char *peer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
