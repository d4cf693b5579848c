/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The request head of the daemon's HTTP server (http.c), parsed from the bytes a connection has
 * read so far: no I/O and no state, so that the fuzz target and the unit tests drive it as the
 * server does.
 */
#ifndef BPERF_DAEMON_HTTP_PARSE_H
#define BPERF_DAEMON_HTTP_PARSE_H

#include <stdbool.h>
#include <stddef.h>

/* A request head (request line and headers, up to its blank line) is at most this long. */
#define HTTP_MAX_HEAD 8192

struct http_request {
	size_t len;		/* bytes of the head, its blank line included */
	int status;		/* 200: a GET or HEAD of /metrics; else the error to answer */
	const char *error;	/* why, for the log (status != 200) */
	bool head_only;		/* HEAD: the headers of the response only */
	bool keep_alive;	/* HTTP/1.1 without "Connection: close", or 1.0 asking for it */
	bool http10;		/* the response says "Connection: keep-alive" to a 1.0 client */
	bool openmetrics;	/* Accept prefers OpenMetrics 1.0 */
	bool gzip;		/* Accept-Encoding takes gzip */
};

/*
 * The end of the head in buf (the byte after its empty line) if it ends within HTTP_MAX_HEAD
 * bytes, else 0. An empty line is "\n" or "\r\n" after a "\n".
 */
size_t http_head_end(const char *buf, size_t len);
/*
 * Whether the head at buf is still known incomplete: shorter than HTTP_MAX_HEAD, no NUL and no
 * empty line. *checked: the bytes looked at before (0 for a new head), updated, so that a head
 * read a byte at a time is scanned once, not once per byte.
 */
bool http_head_pending(const char *buf, size_t len, size_t *checked);
/*
 * Parses the first request in buf[0, len): false while it may still become whole (more bytes
 * to read); true with *req filled when it is whole or already known bad: a NUL in the head
 * (400), no empty line within HTTP_MAX_HEAD bytes (431), a bad request line (400), a body
 * (Content-Length or Transfer-Encoding: 400, nothing reads it), another HTTP than 1.x (505),
 * a method but GET or HEAD (405), a target but /metrics (404). Errors close the connection.
 */
bool http_parse(const char *buf, size_t len, struct http_request *req);

#endif
