// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's HTTP server beyond one request (src/daemon/http*.c, issue 27), over real sockets
 * to a server in a child process with short limits: the request head's parser (keep-alive by
 * version and Connection, bodies refused, 505); keep-alive (several requests on a connection,
 * pipelined ones, Connection: close, HTTP/1.0 with and without keep-alive, the idle timeout);
 * the per-peer limit (from 127.0.0.5) and the total one (the oldest idle connection, then the
 * oldest half-read one, gives way to a new one); the write deadline apart from the read one (an
 * 8 MB body reaches a reader slower than both base deadlines, a reader that stops is cut at the
 * deadline its length gives); past the budget of responses held, the oldest unread one is dropped
 * for a new one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "daemon/http.h"
#include "daemon/http_parse.h"
#include "daemon/loop.h"

#define BIG (8 << 20)	/* past what the kernel buffers (tcp_wmem: 4 MB) */
#define GET "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
#define GET_CLOSE "GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"

/* short deadlines for keep-alive and writes; long ones for the limits (none expires then) */
static const struct http_limits short_limits = {
	.read_ms = 1000, .idle_ms = 1000, .write_ms = 1000, .min_rate = 512 << 10,
	.max_conns = 8, .max_per_peer = 4, .max_resp_bytes = 1 << 30,
};
/* the write deadline of an 8 MB body: 1 s + 8 MB / 2 MiB/s = 5 s; one such body held at a time */
static const struct http_limits write_limits = {
	.read_ms = 1000, .idle_ms = 1000, .write_ms = 1000, .min_rate = 2 << 20,
	.max_conns = 8, .max_per_peer = 4, .max_resp_bytes = 12 << 20,
};
static const struct http_limits long_limits = {
	.read_ms = 10000, .idle_ms = 10000, .write_ms = 10000, .min_rate = 512 << 10,
	.max_conns = 8, .max_per_peer = 4, .max_resp_bytes = 1 << 30,
};
static struct sockaddr_in server_addr;
static pid_t server_pid;

static double now_ms(void)
{
	return now_ns() / 1e6;
}

static int metrics_small(void *arg, struct byte_buf *out, bool om)
{
	buf_put(out, "bperf_x_total 1\n", 16);
	return 0;
}

static int metrics_big(void *arg, struct byte_buf *out, bool om)
{
	buf_reserve(out, BIG);
	memset(out->data, 'x', BIG - 1);
	out->data[BIG - 1] = '\n';
	out->len = BIG;
	return 0;
}

static void start_server(http_metrics_fn fn, const struct http_limits *limits)
{
	int pipefd[2];
	char addr[64] = "";

	if (pipe(pipefd))
		return;
	server_pid = fork();
	if (server_pid == 0) {
		struct loop *l = loop_new();
		struct http_server *srv;

		close(pipefd[0]);
		if (!l || http_server_start(l, "127.0.0.1:0", fn, NULL, &srv))
			_exit(1);
		http_server_set_limits(srv, limits);
		dprintf(pipefd[1], "%s", http_server_address(srv));
		close(pipefd[1]);
		loop_run(l);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], addr, sizeof(addr) - 1) > 0) {
		server_addr.sin_family = AF_INET;
		server_addr.sin_port = htons(atoi(strrchr(addr, ':') + 1));
		inet_pton(AF_INET, "127.0.0.1", &server_addr.sin_addr);
	}
	close(pipefd[0]);
}

static void stop_server(void)
{
	int status;

	kill(server_pid, SIGKILL);
	waitpid(server_pid, &status, 0);
}

/* A connection from src (127.0.0.x) to the server, with a receive timeout of 10 s. */
static int connect_from(const char *src)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in s = { .sin_family = AF_INET };
	struct timeval tv = { 10, 0 };

	inet_pton(AF_INET, src, &s.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr))) {
		printf("connect from %s: %s\n", src, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static void send_text(int fd, const char *s)
{
	send(fd, s, strlen(s), MSG_NOSIGNAL);
}

/*
 * One response read by its Content-Length: its status (0: none), whether it said Connection:
 * close, and keep-alive (Connection: keep-alive); the body's length in *body_len.
 */
static int read_response(int fd, bool *close_hdr, bool *ka_hdr, size_t *body_len)
{
	char head[4096];
	size_t len = 0, body, got = 0;
	char *end = NULL, *cl, buf[65536];

	while (!end && len < sizeof(head) - 1) {
		ssize_t n = recv(fd, head + len, 1, 0);

		if (n <= 0)
			return 0;
		head[++len] = '\0';
		head[len - 1] = head[len - 1];
		end = len >= 4 && !memcmp(head + len - 4, "\r\n\r\n", 4) ? head + len : NULL;
	}
	cl = strstr(head, "\r\nContent-Length: ");
	if (!end || !cl)
		return 0;
	body = strtoul(cl + 18, NULL, 10);
	while (got < body) {
		ssize_t n = recv(fd, buf, body - got < sizeof(buf) ? body - got : sizeof(buf), 0);

		if (n <= 0)
			break;
		got += n;
	}
	if (close_hdr)
		*close_hdr = strstr(head, "\r\nConnection: close\r\n");
	if (ka_hdr)
		*ka_hdr = strstr(head, "\r\nConnection: keep-alive\r\n");
	if (body_len)
		*body_len = got;
	return got == body ? atoi(head + 9) : 0;
}

/* Whether the server closed fd (EOF or reset) within ms. */
static bool closed_within(int fd, int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	char c;
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	n = recv(fd, &c, 1, 0);
	return n == 0 || (n < 0 && errno != EAGAIN);
}

static void test_parse(void)
{
	static const struct {
		const char *req;
		int status;
		bool keep_alive;
	} cases[] = {
		{ GET, 200, true },
		{ GET_CLOSE, 200, false },
		{ "GET /metrics HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n", 200, false },
		{ "GET /metrics HTTP/1.0\r\n\r\n", 200, false },
		{ "GET /metrics HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", 200, true },
		{ "HEAD /metrics HTTP/1.1\n\n", 200, true },
		{ "GET /metrics HTTP/2.0\r\n\r\n", 505, false },
		{ "GET /metrics HTTP/1.1\r\nContent-Length: 5\r\n\r\n", 400, false },
		{ "GET /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", 200, true },
		{ "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", 400, false },
		{ "PUT /metrics HTTP/1.1\r\n\r\n", 405, false },
		{ "GET /x HTTP/1.1\r\n\r\n", 404, false },
	};
	struct http_request req;
	size_t checked = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		bool whole = http_parse(cases[i].req, strlen(cases[i].req), &req);

		CHECK_MSG(cases[i].req, whole && req.status == cases[i].status &&
			  req.keep_alive == cases[i].keep_alive && req.len == strlen(cases[i].req),
			  "expected %d%s, got %d%s (whole %d, len %zu)", cases[i].status,
			  cases[i].keep_alive ? " keep-alive" : "", req.status,
			  req.keep_alive ? " keep-alive" : "", whole, req.len);
	}
	CHECK("half a head: not whole", !http_parse(GET, 20, &req));
	CHECK("half a head: pending", http_head_pending(GET, 20, &checked) && checked == 20);
	CHECK("the rest: whole", !http_head_pending(GET, strlen(GET), &checked));
}

static void test_keep_alive(void)
{
	int fd = connect_from("127.0.0.1");
	bool close_hdr = true, ka = false;
	double t0;

	if (!CHECK("keep-alive: connected", fd >= 0))
		return;
	send_text(fd, GET);
	CHECK_EQ("first request", 200, read_response(fd, &close_hdr, NULL, NULL));
	CHECK("first: no Connection: close", !close_hdr);
	send_text(fd, GET);
	CHECK_EQ("second request on the connection", 200, read_response(fd, NULL, NULL, NULL));
	send_text(fd, GET GET);
	CHECK_EQ("pipelined, first", 200, read_response(fd, NULL, NULL, NULL));
	CHECK_EQ("pipelined, second", 200, read_response(fd, NULL, NULL, NULL));
	send_text(fd, GET_CLOSE);
	CHECK_EQ("Connection: close", 200, read_response(fd, &close_hdr, NULL, NULL));
	CHECK("answered with Connection: close", close_hdr);
	CHECK("then closed", closed_within(fd, 2000));
	close(fd);

	fd = connect_from("127.0.0.1");
	send_text(fd, "GET /metrics HTTP/1.0\r\n\r\n");
	CHECK_EQ("HTTP/1.0", 200, read_response(fd, &close_hdr, NULL, NULL));
	CHECK("HTTP/1.0: closed", close_hdr && closed_within(fd, 2000));
	close(fd);

	fd = connect_from("127.0.0.1");
	send_text(fd, "GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	CHECK_EQ("HTTP/1.0 keep-alive", 200, read_response(fd, &close_hdr, &ka, NULL));
	CHECK("HTTP/1.0 keep-alive: said so", ka && !close_hdr);
	send_text(fd, "GET /metrics HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
	CHECK_EQ("HTTP/1.0 keep-alive, second", 200, read_response(fd, NULL, NULL, NULL));
	/* idle: closed at the idle timeout (1 s here) */
	t0 = now_ms();
	CHECK("idle keep-alive connection closed", closed_within(fd, 5000));
	CHECK_MSG("at the idle timeout", now_ms() - t0 > 800 && now_ms() - t0 < 3000,
		  "expected 800-3000 ms, got %.0f", now_ms() - t0);
	close(fd);
}

static void test_limits(void)
{
	int peer[6], other[4], idle, fd;
	int open = 0;

	/* per peer: 4 of 6 from 127.0.0.5 stay, 2 are closed at once */
	for (int i = 0; i < 6; i++)
		peer[i] = connect_from("127.0.0.5");
	usleep(200000);
	for (int i = 0; i < 6; i++)
		open += peer[i] >= 0 && !closed_within(peer[i], 100);
	CHECK_EQ("connections from one address past its limit of 4", 4, open);
	fd = connect_from("127.0.0.1");
	send_text(fd, GET_CLOSE);
	CHECK_EQ("another address served beside it", 200, read_response(fd, NULL, NULL, NULL));
	close(fd);

	/* in all: 8. An idle keep-alive one, then 4 + 3 silent ones fill it */
	idle = connect_from("127.0.0.1");
	send_text(idle, GET);
	CHECK_EQ("idle one's request", 200, read_response(idle, NULL, NULL, NULL));
	for (int i = 0; i < 3; i++)
		other[i] = connect_from("127.0.0.6");
	usleep(100000);
	fd = connect_from("127.0.0.1");	/* the 9th: the idle one gives way */
	send_text(fd, GET_CLOSE);
	CHECK_EQ("a 9th connection served", 200, read_response(fd, NULL, NULL, NULL));
	close(fd);
	CHECK("the oldest idle connection gave way", closed_within(idle, 1000));
	other[3] = connect_from("127.0.0.6");	/* 8 again (the 9th has gone), none idle */
	usleep(100000);
	fd = connect_from("127.0.0.1");	/* the oldest half-read one goes */
	send_text(fd, GET_CLOSE);
	CHECK_EQ("another one served", 200, read_response(fd, NULL, NULL, NULL));
	close(fd);
	open = 0;
	for (int i = 0; i < 6; i++)
		open += peer[i] >= 0 && !closed_within(peer[i], 10);
	CHECK_EQ("the oldest silent one gave way", 3, open);
	for (int i = 0; i < 6; i++)
		close(peer[i]);
	for (int i = 0; i < 4; i++)
		close(other[i]);
	close(idle);
}

/* A slow reader gets all of an 8 MB body; one that stops is cut at its write deadline (5 s). */
static void test_write_deadline(void)
{
	int fd = connect_from("127.0.0.1"), status;
	size_t len = 0;
	double t0 = now_ms(), t;
	char buf[65536];
	ssize_t n, got = 0;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ 16384 }, sizeof(int));
	send_text(fd, GET_CLOSE);
	usleep(100000);
	{
		/* ~3 MB/s: 8 MB in ~2.8 s, past both base deadlines, within the one by length */
		struct byte_buf b = {};

		while ((n = recv(fd, buf, sizeof(buf), 0)) > 0) {
			buf_put(&b, buf, n);
			usleep(n / 3);
		}
		t = now_ms() - t0;
		status = b.len > 12 ? atoi(b.data + 9) : 0;
		len = b.len;
		buf_free(&b);
	}
	close(fd);
	printf("slow reader: %zu bytes in %.0f ms\n", len, t);
	CHECK_EQ("slow reader: 200", 200, status);
	CHECK_MSG("slow reader: the whole body", len > BIG && len < BIG + 300,
		  "expected %d bytes and a head, got %zu", BIG, len);
	CHECK_MSG("slower than the read and write base deadlines", t > 1500,
		  "expected > 1500 ms, got %.0f", t);

	fd = connect_from("127.0.0.1");
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){ 16384 }, sizeof(int));
	send_text(fd, GET_CLOSE);
	usleep(500000);
	got = recv(fd, buf, sizeof(buf), 0);
	CHECK("stalled reader: a first part", got > 0);
	sleep(7);	/* past the deadline of 5 s */
	while ((n = recv(fd, buf, sizeof(buf), 0)) > 0)
		got += n;
	printf("stalled reader: %zd bytes, then %s\n", got, n ? strerror(errno) : "EOF");
	CHECK("stalled reader: cut (EOF or reset, not our timeout)", n == 0 || errno != EAGAIN);
	CHECK_MSG("stalled reader: not all of it", got < BIG, "got %zd", got);
	close(fd);
}

/* Past the budget of responses held (12 MB: one body), a new one drops the oldest unread one. */
static void test_resp_budget(void)
{
	int stalled = connect_from("127.0.0.1"), fd = connect_from("127.0.0.1"), status;
	char buf[65536];
	size_t len;
	ssize_t n, got = 0;
	double t0 = now_ms();

	setsockopt(stalled, SOL_SOCKET, SO_RCVBUF, &(int){ 16384 }, sizeof(int));
	send_text(stalled, GET_CLOSE);
	usleep(300000);
	send_text(fd, GET_CLOSE);
	status = read_response(fd, NULL, NULL, &len);
	CHECK_EQ("a second reader beside an unread body: 200", 200, status);
	CHECK_EQ("a second reader: the whole body", BIG, len);
	close(fd);
	while ((n = recv(stalled, buf, sizeof(buf), 0)) > 0)
		got += n;
	printf("unread body dropped: %zd bytes, then %s after %.0f ms\n", got,
	       n ? strerror(errno) : "EOF", now_ms() - t0);
	CHECK_MSG("dropped before its 5 s write deadline", now_ms() - t0 < 3000,
		  "expected < 3000 ms, got %.0f", now_ms() - t0);
	CHECK("the unread one dropped (EOF or reset, not our timeout)", n == 0 || errno != EAGAIN);
	CHECK_MSG("the unread one: not all of it", got < BIG, "got %zd", got);
	close(stalled);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_parse();
	start_server(metrics_small, &short_limits);
	test_keep_alive();
	stop_server();
	start_server(metrics_small, &long_limits);
	test_limits();
	stop_server();
	start_server(metrics_big, &write_limits);
	test_write_deadline();
	test_resp_budget();
	stop_server();
	return check_exit("test_http");
}
