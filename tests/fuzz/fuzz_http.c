// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the daemon's HTTP request path (src/daemon/http*.c), issue 27: whatever a
 * scraper sends, the daemon answers each whole request once, in order, well-formed, and then
 * closes or waits for the next one; it never crashes, leaks (ASan) or keeps the connection.
 *
 * An input is a byte of split (0: the stream sent whole; else sent that many bytes at a time,
 * the loop run between), a byte of flags (bit 0: a /metrics body of 40,000 bytes, past what the
 * server's socket buffers (SO_SNDBUF 4 KiB), else 61 bytes; bit 1: the client reads only after
 * it has sent everything), then the byte stream of one connection, adopted by the real server
 * (http_server_adopt) over a socketpair. After the stream the client ends its side and reads
 * until the daemon closes.
 *
 * Checked against a model of its own (not http_parse.c): request k ends at the first empty line
 * within 8 KiB of the end of request k-1; each response is "HTTP/1.1 NNN ...", a Content-Length
 * and that many bytes (none for HEAD), a 200's body exactly the fake's (unless gzipped); a
 * response to a head with a NUL or none within 8 KiB is 400 or 431; after an error or
 * "Connection: close" nothing more comes; without one, every whole request was answered. Then
 * the server holds no connection and has closed its end.
 *
 *	FUZZ_HTTP_SEEDS=DIR fuzz_http	writes seed inputs into DIR, exits
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/common.h"
#include "daemon/http.h"
#include "daemon/loop.h"
#include "fuzz_assert.h"

#define MAX_HEAD 8192		/* the limit the model knows: HTTP_MAX_HEAD */
#define BIG_BODY 40000
#define F_BIG 1
#define F_READ_LAST 2

static struct loop *L;
static struct http_server *S;
static struct byte_buf Body;
static bool Big;

static int fake_metrics(void *arg, struct byte_buf *out, bool openmetrics)
{
	buf_put(out, Body.data, Big ? BIG_BODY : 61);
	return 0;
}

/* The end of the head at data (after its empty line) within MAX_HEAD bytes, or 0. */
static size_t model_head_end(const uint8_t *data, size_t n)
{
	if (n > MAX_HEAD)
		n = MAX_HEAD;
	for (size_t i = 0; i + 1 < n; i++) {
		if (data[i] != '\n')
			continue;
		if (data[i + 1] == '\n')
			return i + 2;
		if (i + 2 < n && data[i + 1] == '\r' && data[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Runs the loop until nothing is pending, reading what the server sent into got. */
static void pump(int client, struct byte_buf *got, bool read_now)
{
	char buf[65536];

	for (int i = 0; i < 100000; i++) {
		ssize_t n = 0;
		int events = loop_run_once(L, 0);

		if (read_now)
			n = recv(client, buf, sizeof(buf), MSG_DONTWAIT);
		if (n > 0)
			buf_put(got, buf, n);
		if (events <= 0 && n <= 0)
			return;
	}
	ASSERT(!"the loop never went quiet");
}

static void send_all(int client, const uint8_t *data, size_t size, size_t split,
		     struct byte_buf *got, bool read_now)
{
	for (size_t off = 0; off < size;) {
		size_t len = split && size - off > split ? split : size - off;
		ssize_t n = send(client, data + off, len, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN)
			return;	/* the server closed: what is left is never read */
		if (n > 0)
			off += n;
		pump(client, got, read_now || n <= 0);
	}
}

/* Until the server closes its end: everything it sent. */
static void read_to_end(int client, struct byte_buf *got)
{
	char buf[65536];

	for (int i = 0; i < 100000; i++) {
		ssize_t n;

		loop_run_once(L, 0);
		n = recv(client, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			return;
		if (n > 0)
			buf_put(got, buf, n);
	}
	ASSERT(!"the server never closed the connection");
}

/* One response at *pos of got: its status, and whether it ends the connection. */
static int check_response(const struct byte_buf *got, size_t *pos, bool head_only, bool *last)
{
	const char *r = got->data + *pos, *end, *cl;
	size_t left = got->len - *pos, body_len;
	char *head;
	bool gzip;
	int status;

	ASSERT(left > 13 && !memcmp(r, "HTTP/1.1 ", 9));
	end = memmem(r, left, "\r\n\r\n", 4);
	ASSERT(end);
	head = strndup(r, end - r + 2);
	status = atoi(head + 9);
	cl = strstr(head, "\r\nContent-Length: ");
	ASSERT(cl);
	body_len = strtoul(cl + 18, NULL, 10);
	*last = strstr(head, "\r\nConnection: close\r\n") != NULL;
	gzip = strstr(head, "\r\nContent-Encoding: gzip\r\n") != NULL;
	free(head);
	*pos += end + 4 - r;
	if (head_only && status == 200)
		return status;
	ASSERT(got->len - *pos >= body_len);
	if (status == 200 && !gzip)
		ASSERT(body_len == (Big ? BIG_BODY : 61) &&
		       !memcmp(got->data + *pos, Body.data, body_len));
	*pos += body_len;
	return status;
}

/* The responses against the requests of the stream, one by one. */
static void check_exchange(const uint8_t *data, size_t size, const struct byte_buf *got)
{
	size_t in = 0, out = 0;

	for (;;) {
		size_t left = size - in, end = model_head_end(data + in, left);
		size_t region = end ? end : left < MAX_HEAD ? left : MAX_HEAD;
		bool nul = memchr(data + in, '\0', region), last;
		int status;

		if (!nul && !end && left < MAX_HEAD) {
			ASSERT(out == got->len);	/* incomplete: no response to it */
			return;
		}
		ASSERT(out < got->len);	/* a whole (or known bad) request: its response */
		status = check_response(got, &out, left >= 5 && !memcmp(data + in, "HEAD ", 5),
					&last);
		if (nul)
			ASSERT(status == 400);
		else if (!end)
			ASSERT(status == 431);
		if (status != 200)
			ASSERT(last);
		if (last) {
			ASSERT(out == got->len);	/* nothing after the last response */
			return;
		}
		in += end;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct byte_buf got = {};
	int sv[2];

	if (size < 2)
		return 0;
	Big = data[1] & F_BIG;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv))
		return 0;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &(int){ 4096 }, sizeof(int));
	ASSERT(!http_server_adopt(S, sv[0], "fuzz"));
	send_all(sv[1], data + 2, size - 2, data[0], &got, !(data[1] & F_READ_LAST));
	shutdown(sv[1], SHUT_WR);
	read_to_end(sv[1], &got);
	pump(sv[1], &got, true);
	check_exchange(data + 2, size - 2, &got);
	ASSERT(http_server_stats(S).open == 0);
	ASSERT(fcntl(sv[0], F_GETFD) < 0);	/* the server closed its end */
	close(sv[1]);
	buf_free(&got);
	return 0;
}

/* ---- seeds -------------------------------------------------------------------------------- */

static void seed(const char *dir, const char *name, int split, int flags, const char *stream)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f) {
		fprintf(f, "%c%c%s", split, flags, stream);
		fclose(f);
	}
	free(path);
}

#define PROM "GET /metrics HTTP/1.1\r\nHost: x\r\nUser-Agent: Prometheus/2.42.0\r\n" \
	"Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5\r\n" \
	"Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 1\r\n\r\n"

static void write_seeds(const char *dir)
{
	seed(dir, "prometheus", 0, 0, PROM);
	seed(dir, "keepalive", 7, 0,
	     PROM PROM "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
	seed(dir, "big_pipelined", 0, F_BIG | F_READ_LAST, PROM PROM PROM);
	seed(dir, "http10", 1, 0, "GET /metrics HTTP/1.0\r\n\r\nGET /metrics HTTP/1.0\r\n\r\n");
	seed(dir, "http10_ka", 3, F_BIG, "GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
	     "HEAD /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n");
	seed(dir, "errors", 5, 0, "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc");
	seed(dir, "lf_only", 2, 0, "GET /metrics?a=b HTTP/1.1\nAccept: */*\n\nGET / HTTP/1.1\n\n");
	seed(dir, "half", 0, 0, "GET /metrics HTTP/1.1\r\nHost");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("FUZZ_HTTP_SEEDS");

	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	for (int i = 0; i < BIG_BODY; i++)
		buf_put(&Body, &"# bperf fuzz body\n"[i % 18], 1);
	L = loop_new();
	if (!L || http_server_start(L, "127.0.0.1:0", fake_metrics, NULL, &S))
		exit(1);
	return 0;
}
