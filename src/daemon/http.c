// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's HTTP/1.1 server (http.h): just enough for Prometheus. One request per connection
 * (Connection: close), at most HTTP_MAX_CONNS at a time, each with a deadline, so that neither a
 * stalled nor a flooding client can hold scrapes up or grow the daemon's memory.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common.h"
#include "exposition.h"
#include "http.h"
#include "http_gzip.h"

#define HTTP_MAX_CONNS 16
#define HTTP_MAX_HEAD 8192
#define HTTP_DEADLINE_MS 5000

struct http_conn {
	struct http_server *srv;
	int fd;
	int timer_fd;		/* fires once HTTP_DEADLINE_MS after accept: the connection goes */
	size_t head_len;
	char head[HTTP_MAX_HEAD + 1];
	struct byte_buf resp;	/* status line, headers and body: all of it before the first byte */
	size_t sent;
	bool draining;		/* all sent: reading until the client closes (see conn_write) */
	struct http_conn *next;
};

struct http_server {
	struct loop *loop;
	int fd;
	bool accepting;		/* false while HTTP_MAX_CONNS connections are open */
	http_metrics_fn fn;
	void *arg;
	struct byte_buf body;	/* reused by every scrape */
	struct byte_buf gzipped;	/* body compressed, when the scraper takes gzip */
	struct http_conn *conns;
	int nr_conns;
	char address[INET6_ADDRSTRLEN + 8];
};

static void server_listen_events(struct http_server *s)
{
	bool want = s->nr_conns < HTTP_MAX_CONNS;

	/* a full server leaves new connections in the backlog instead of refusing them */
	if (want != s->accepting && !loop_mod(s->loop, s->fd, want ? EPOLLIN : 0))
		s->accepting = want;
}

static void conn_close(struct http_conn *c)
{
	struct http_server *s = c->srv;
	struct http_conn **p;

	for (p = &s->conns; *p != c; p = &(*p)->next)
		;
	*p = c->next;
	s->nr_conns--;
	loop_del(s->loop, c->fd);
	close(c->fd);
	if (c->timer_fd >= 0) {
		loop_del(s->loop, c->timer_fd);
		close(c->timer_fd);
	}
	buf_free(&c->resp);
	free(c);
	server_listen_events(s);
}

static void conn_deadline(void *arg, int fd, unsigned int revents)
{
	conn_close(arg);
}

/* Sends what the socket takes now; the rest when EPOLLOUT says it drained. */
static void conn_write(struct http_conn *c)
{
	while (c->sent < c->resp.len) {
		ssize_t n = send(c->fd, c->resp.data + c->sent, c->resp.len - c->sent,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (loop_mod(c->srv->loop, c->fd, EPOLLOUT))
				conn_close(c);
			return;
		}
		if (n <= 0) {
			conn_close(c);
			return;
		}
		c->sent += n;
	}
	/*
	 * Closing a socket with unread input resets it, and a reset can destroy the response
	 * before the client read it (a 431 to a client still sending): end our side, read what
	 * is left until the client closes (or the deadline).
	 */
	if (shutdown(c->fd, SHUT_WR) || loop_mod(c->srv->loop, c->fd, EPOLLIN)) {
		conn_close(c);
		return;
	}
	c->draining = true;
}

static void conn_drain(struct http_conn *c)
{
	char buf[4096];

	for (;;) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			conn_close(c);
			return;
		}
	}
}

static void put_text(struct byte_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void respond(struct http_conn *c, const char *status, const char *content_type,
		    const char *extra_headers, const struct byte_buf *body, bool head_only)
{
	char len[32];

	snprintf(len, sizeof(len), "%zu", body->len);
	put_text(&c->resp, "HTTP/1.1 ");
	put_text(&c->resp, status);
	put_text(&c->resp, "\r\nContent-Type: ");
	put_text(&c->resp, content_type);
	put_text(&c->resp, "\r\nContent-Length: ");
	put_text(&c->resp, len);
	put_text(&c->resp, "\r\n");
	put_text(&c->resp, extra_headers);
	put_text(&c->resp, "Connection: close\r\n\r\n");
	if (!head_only)
		buf_put(&c->resp, body->data, body->len);
	conn_write(c);
}

static void respond_error(struct http_conn *c, const char *status, const char *extra_headers)
{
	struct byte_buf body = {};

	put_text(&body, status);
	put_text(&body, "\n");
	respond(c, status, "text/plain; charset=utf-8", extra_headers, &body, false);
	buf_free(&body);
}

/*
 * The value of every header named name, joined with ", " as RFC 9110 allows for lists (Accept
 * may come in several lines). Header lines start after the request line; NULL if none.
 */
static char *header_value(char *lines, const char *name, char *buf, size_t size)
{
	size_t name_len = strlen(name), used = 0;
	bool found = false;

	for (char *line = lines; line && *line;) {
		char *eol = strchr(line, '\n');
		char *colon;

		if (eol)
			*eol = '\0';
		colon = strchr(line, ':');
		if (colon && (size_t)(colon - line) == name_len &&
		    !strncasecmp(line, name, name_len)) {
			char *v = colon + 1, *end = v + strlen(v);

			while (*v == ' ' || *v == '\t')
				v++;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			used += snprintf(buf + used, size - used, "%s%.*s", found ? ", " : "",
					 (int)(end - v), v);
			if (used >= size)
				used = size - 1;
			found = true;
		}
		if (eol)
			*eol = '\n';
		line = eol ? eol + 1 : NULL;
	}
	return found ? buf : NULL;
}

/*
 * The request line "METHOD SP TARGET SP HTTP/d.d": method and target copied out (target without
 * its query: Prometheus may add params from its config). False when it is not that.
 */
static bool parse_request_line(const char *line, char *method, size_t method_size,
			       char *target, size_t target_size)
{
	size_t m = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"), t;
	const char *p = line + m;

	if (!m || m >= method_size || *p != ' ')
		return false;
	t = strcspn(++p, " \r\n");
	if (!t || t >= target_size || p[t] != ' ')
		return false;
	memcpy(method, line, m);
	method[m] = '\0';
	memcpy(target, p, t);
	target[t] = '\0';
	target[strcspn(target, "?")] = '\0';
	p += t + 1;
	return !strncmp(p, "HTTP/", 5) && p[5] >= '0' && p[5] <= '9' && p[6] == '.' &&
	       p[7] >= '0' && p[7] <= '9' && (p[8] == '\n' || (p[8] == '\r' && p[9] == '\n'));
}

static void handle_request(struct http_conn *c)
{
	struct http_server *s = c->srv;
	char method[16], target[HTTP_MAX_HEAD], accept_buf[1024];
	const char *accept;
	bool head_only, om, gzip;
	int err;

	if (!parse_request_line(c->head, method, sizeof(method), target, sizeof(target))) {
		respond_error(c, "400 Bad Request", "");
		return;
	}
	head_only = !strcmp(method, "HEAD");
	if (!head_only && strcmp(method, "GET")) {
		respond_error(c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n");
		return;
	}
	if (strcmp(target, "/metrics")) {
		respond_error(c, "404 Not Found", "");
		return;
	}
	accept = header_value(strchr(c->head, '\n') + 1, "Accept", accept_buf, sizeof(accept_buf));
	om = accept_wants_openmetrics(accept);
	gzip = accept_encoding_gzip(header_value(strchr(c->head, '\n') + 1, "Accept-Encoding",
						 accept_buf, sizeof(accept_buf)));
	s->body.len = 0;
	err = s->fn(s->arg, &s->body, om);
	s->gzipped.len = 0;
	if (!err && gzip)
		err = gzip_compress(&s->body, &s->gzipped);
	if (err) {
		respond_error(c, "500 Internal Server Error", "");
		return;
	}
	/* Vary: a cache between must not hand a gzipped body to a client that did not ask */
	respond(c, "200 OK", om ? CONTENT_TYPE_OPENMETRICS : CONTENT_TYPE_TEXT,
		gzip ? "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n" :
		"Vary: Accept-Encoding\r\n", gzip ? &s->gzipped : &s->body, head_only);
}

static bool head_complete(const char *head)
{
	return strstr(head, "\r\n\r\n") || strstr(head, "\n\n");
}

static void conn_event(void *arg, int fd, unsigned int revents)
{
	struct http_conn *c = arg;

	if (c->draining) {
		conn_drain(c);
		return;
	}
	if (c->resp.len) {	/* writing: the request was read */
		if (revents & (EPOLLERR | EPOLLHUP) && !(revents & EPOLLOUT))
			conn_close(c);
		else
			conn_write(c);
		return;
	}
	for (;;) {
		ssize_t n = recv(fd, c->head + c->head_len, HTTP_MAX_HEAD - c->head_len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {	/* the client went before its request was whole */
			conn_close(c);
			return;
		}
		c->head_len += n;
		c->head[c->head_len] = '\0';
		if (memchr(c->head, '\0', c->head_len)) {
			respond_error(c, "400 Bad Request", "");
			return;
		}
		if (head_complete(c->head)) {
			handle_request(c);
			return;
		}
		if (c->head_len == HTTP_MAX_HEAD) {
			respond_error(c, "431 Request Header Fields Too Large", "");
			return;
		}
	}
}

static void server_accept(void *arg, int fd, unsigned int revents)
{
	struct http_server *s = arg;

	while (s->nr_conns < HTTP_MAX_CONNS) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct http_conn *c;

		if (cfd < 0)
			break;	/* EAGAIN, or a connection reset before accept: nothing to do */
		c = xzalloc(sizeof(*c));
		c->srv = s;
		c->fd = cfd;
		c->timer_fd = -1;
		if (loop_add(s->loop, cfd, EPOLLIN, conn_event, c)) {
			close(cfd);
			free(c);
			break;
		}
		c->next = s->conns;
		s->conns = c;
		s->nr_conns++;
		c->timer_fd = loop_add_timer(s->loop, HTTP_DEADLINE_MS, conn_deadline, c);
		if (c->timer_fd < 0) {
			conn_close(c);
			break;
		}
	}
	server_listen_events(s);
}

/* "ADDR:PORT", "[ADDR6]:PORT" or ":PORT" (every IPv4 address) into a socket address. */
static int parse_listen(const char *addr, struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV | AI_NUMERICHOST };
	struct addrinfo *res;
	const char *colon = strrchr(addr, ':');
	char host[256], *endp;
	long port;
	int err;

	if (!colon || !colon[1])
		return -EINVAL;
	port = strtol(colon + 1, &endp, 10);
	if (*endp || port < 0 || port > 65535)
		return -EINVAL;
	if (addr[0] == '[') {
		if (colon == addr || colon[-1] != ']' || (size_t)(colon - addr - 2) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr - 2), addr + 1);
		hints.ai_family = AF_INET6;
	} else {
		if ((size_t)(colon - addr) >= sizeof(host) || memchr(addr, ':', colon - addr))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
		hints.ai_family = AF_INET;
	}
	err = getaddrinfo(host[0] ? host : NULL, colon + 1, &hints, &res);
	if (err)
		return -EINVAL;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

static void format_address(struct http_server *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN];

	if (getsockname(s->fd, (struct sockaddr *)&ss, &len))
		return;
	if (ss.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "[%s]:%u", host, ntohs(a->sin6_port));
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
		snprintf(s->address, sizeof(s->address), "%s:%u", host, ntohs(a->sin_port));
	}
}

int http_server_start(struct loop *l, const char *addr, http_metrics_fn fn, void *arg,
		      struct http_server **out)
{
	struct sockaddr_storage ss;
	socklen_t len;
	struct http_server *s;
	int one = 1, err;

	*out = NULL;
	err = parse_listen(addr, &ss, &len);
	if (err) {
		pr_err("bperf daemon: bad --listen address '%s' (ADDR:PORT or [ADDR6]:PORT)",
		       addr);
		return err;
	}
	s = xzalloc(sizeof(*s));
	s->loop = l;
	s->fn = fn;
	s->arg = arg;
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	if (ss.ss_family == AF_INET6)	/* [::]:P means IPv6 only; 0.0.0.0:P is the other one */
		setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, 64))
		goto fail;
	format_address(s);
	err = loop_add(l, s->fd, EPOLLIN, server_accept, s);
	if (err) {
		errno = -err;
		goto fail;
	}
	s->accepting = true;
	*out = s;
	return 0;
fail:
	err = -errno;
	pr_err("bperf daemon: cannot listen on %s: %s", addr, strerror(errno));
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return err;
}

const char *http_server_address(const struct http_server *s)
{
	return s ? s->address : "";
}

/* Closes every connection and the listener; call it before loop_free(). */
void http_server_stop(struct http_server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_close(s->conns);
	loop_del(s->loop, s->fd);
	close(s->fd);
	buf_free(&s->body);
	buf_free(&s->gzipped);
	free(s);
}
