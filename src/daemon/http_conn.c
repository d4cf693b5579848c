// SPDX-License-Identifier: GPL-2.0-only
/*
 * One connection of the daemon's HTTP server (http_internal.h): READING a request (the read
 * deadline runs from accept, or from its first byte after a keep-alive wait), WRITING its
 * response (a deadline sized by the response's length, so that a big body reaches a slow
 * reader while a stalled one is still dropped), then IDLE for the next request (keep-alive) or
 * DRAINING: the last response sent, the client's unread bytes read until it closes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../util/common.h"
#include "exposition.h"
#include "http_gzip.h"
#include "http_internal.h"
#include "http_parse.h"

static void list_del(struct http_conn_list *l, struct http_conn *c)
{
	*(c->prev ? &c->prev->next : &l->head) = c->next;
	*(c->next ? &c->next->prev : &l->tail) = c->prev;
	c->prev = c->next = NULL;
}

static void list_add_tail(struct http_conn_list *l, struct http_conn *c)
{
	c->prev = l->tail;
	c->next = NULL;
	*(l->tail ? &l->tail->next : &l->head) = c;
	l->tail = c;
}

/* c to state, its deadline ms from now. */
static void conn_set_state(struct http_conn *c, enum http_state state, unsigned long long ms)
{
	struct http_server *s = c->srv;

	list_del(&s->lists[c->state], c);
	c->state = state;
	c->deadline_ns = now_ns() + ms * 1000000ULL;
	list_add_tail(&s->lists[state], c);
}

static void conn_drop_resp(struct http_conn *c)
{
	c->srv->resp_bytes -= c->resp.len;
	buf_free(&c->resp);
	c->sent = 0;
}

void conn_close(struct http_conn *c, const char *why)
{
	struct http_server *s = c->srv;

	if (why)
		server_log(s, c->peer->addr, "HTTP: %s: connection closed", why);
	list_del(&s->lists[c->state], c);
	loop_del(s->loop, c->fd);
	close(c->fd);
	buf_free(&c->in);
	conn_drop_resp(c);
	server_conn_gone(s, c);
	free(c);
}

void conn_expire(struct http_conn *c)
{
	static const char *const why[HTTP_NR_STATES] = {
		[HTTP_READING] = "no whole request before the read deadline",
		[HTTP_WRITING] = "the response not taken before the write deadline",
	};

	c->srv->stats.expired += c->state != HTTP_IDLE;
	conn_close(c, why[c->state]);
}

/* The response is sent: the next request (keep-alive), or the end. False if c is closed. */
static bool conn_sent(struct http_conn *c)
{
	struct http_server *s = c->srv;

	conn_drop_resp(c);
	if (c->close_after) {
		/*
		 * Closing a socket with unread input resets it, and a reset can destroy the
		 * response before the client read it (a 431 to a client still sending): end our
		 * side, read what is left until the client closes (or HTTP_DRAIN_MS).
		 */
		if (shutdown(c->fd, SHUT_WR) || loop_mod(s->loop, c->fd, EPOLLIN)) {
			conn_close(c, NULL);
			return false;
		}
		conn_set_state(c, HTTP_DRAINING, HTTP_DRAIN_MS);
		return true;
	}
	if (loop_mod(s->loop, c->fd, EPOLLIN)) {
		conn_close(c, NULL);
		return false;
	}
	conn_set_state(c, HTTP_IDLE, s->lim.idle_ms);
	return true;
}

/* Sends what the socket takes now; the rest when EPOLLOUT says it drained. False: closed. */
static bool conn_write(struct http_conn *c)
{
	while (c->sent < c->resp.len) {
		ssize_t n = send(c->fd, c->resp.data + c->sent, c->resp.len - c->sent,
				 MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!loop_mod(c->srv->loop, c->fd, EPOLLOUT))
				return true;
			conn_close(c, NULL);
			return false;
		}
		if (n <= 0) {
			conn_close(c, NULL);
			return false;
		}
		c->sent += n;
	}
	return conn_sent(c);
}

static void put_text(struct byte_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

/* The whole response into c->resp, then the write deadline for its length, then sent. */
static bool respond(struct http_conn *c, const char *status, const char *content_type,
		    const char *extra_headers, const struct byte_buf *body, bool head_only)
{
	struct http_server *s = c->srv;
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
	put_text(&c->resp, "\r\n");
	if (!head_only)
		buf_put(&c->resp, body->data, body->len);
	s->stats.responses++;
	s->resp_bytes += c->resp.len;
	/*
	 * Readers that do not read would each hold a body: past the budget the oldest unread
	 * responses go (a scraper that reads is done long before it is the oldest).
	 */
	while (s->resp_bytes > s->lim.max_resp_bytes && s->lists[HTTP_WRITING].head)
		conn_close(s->lists[HTTP_WRITING].head,
			   "responses held past their budget: the oldest unread one dropped");
	conn_set_state(c, HTTP_WRITING, s->lim.write_ms +
		       (unsigned long long)c->resp.len * 1000 / (s->lim.min_rate ?: 1));
	return conn_write(c);
}

static bool respond_error(struct http_conn *c, const struct http_request *req)
{
	static const char *const names[] = {
		[400] = "400 Bad Request", [404] = "404 Not Found",
		[405] = "405 Method Not Allowed", [431] = "431 Request Header Fields Too Large",
		[500] = "500 Internal Server Error", [505] = "505 HTTP Version Not Supported",
	};
	const char *status = names[req->status];
	struct byte_buf body = {};
	bool alive;

	server_log(c->srv, c->peer->addr, "HTTP: %s: %s", req->error, status);
	c->close_after = true;
	put_text(&body, status);
	put_text(&body, "\n");
	alive = respond(c, status, "text/plain; charset=utf-8", req->status == 405 ?
			"Allow: GET, HEAD\r\nConnection: close\r\n" : "Connection: close\r\n",
			&body, false);
	buf_free(&body);
	return alive;
}

static bool respond_metrics(struct http_conn *c, struct http_request *req)
{
	struct http_server *s = c->srv;
	const char *conn = !req->keep_alive ? "Connection: close\r\n" :
			   req->http10 ? "Connection: keep-alive\r\n" : "";
	char headers[128];
	int err;

	s->body.len = 0;
	err = s->fn(s->arg, &s->body, req->openmetrics);
	s->gzipped.len = 0;
	if (!err && req->gzip)
		err = gzip_compress(&s->body, &s->gzipped);
	if (err) {
		req->status = 500;
		req->error = "no metrics to serve";
		return respond_error(c, req);
	}
	c->close_after = !req->keep_alive;
	/* Vary: a cache between must not hand a gzipped body to a client that did not ask */
	snprintf(headers, sizeof(headers), "%sVary: Accept-Encoding\r\n%s",
		 req->gzip ? "Content-Encoding: gzip\r\n" : "", conn);
	return respond(c, "200 OK", req->openmetrics ? CONTENT_TYPE_OPENMETRICS : CONTENT_TYPE_TEXT,
		headers, req->gzip ? &s->gzipped : &s->body, req->head_only);
}

/*
 * Answers the requests at the start of c->in, one after the other, while they are whole (or
 * known bad) and their responses are sent at once. False if c is closed.
 */
static bool conn_process(struct http_conn *c)
{
	struct http_request req;

	while (c->in.len && (c->state == HTTP_IDLE || c->state == HTTP_READING)) {
		bool alive;

		if (c->state == HTTP_IDLE)	/* a next request begins: read deadline from now */
			conn_set_state(c, HTTP_READING, c->srv->lim.read_ms);
		if (http_head_pending(c->in.data, c->in.len, &c->checked) ||
		    !http_parse(c->in.data, c->in.len, &req))
			return true;
		memmove(c->in.data, c->in.data + req.len, c->in.len - req.len);
		c->in.len -= req.len;
		c->checked = 0;
		alive = req.status != 200 ? respond_error(c, &req) : respond_metrics(c, &req);
		if (!alive)
			return false;
	}
	if (!c->in.len)
		buf_free(&c->in);
	return true;
}

/* The client's unread bytes after the last response: dropped until it closes. */
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
			conn_close(c, NULL);
			return;
		}
	}
}

/* Reads no more than a head can be: the rest stays in the socket until it is answered. */
static void conn_read(struct http_conn *c)
{
	for (;;) {
		size_t room = HTTP_MAX_HEAD - c->in.len;
		ssize_t n;

		if (!room)
			return;
		buf_reserve(&c->in, room);
		n = recv(c->fd, c->in.data + c->in.len, room, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {	/* the client went, or reset: nothing to answer */
			conn_close(c, NULL);
			return;
		}
		c->in.len += n;
		if (!conn_process(c) || (c->state != HTTP_READING && c->state != HTTP_IDLE))
			return;	/* closed, or writing: the rest waits in the socket */
	}
}

static void conn_event(void *arg, int fd, unsigned int revents)
{
	struct http_conn *c = arg;

	switch (c->state) {
	case HTTP_DRAINING:
		conn_drain(c);
		break;
	case HTTP_WRITING:
		if (revents & (EPOLLERR | EPOLLHUP) && !(revents & EPOLLOUT))
			conn_close(c, NULL);
		else if (conn_write(c))
			conn_process(c);	/* a pipelined request read already */
		break;
	default:
		conn_read(c);
		break;
	}
}

int conn_open(struct http_server *s, int fd, struct http_peer *peer)
{
	struct http_conn *c = xzalloc(sizeof(*c));
	int err;

	c->srv = s;
	c->fd = fd;
	c->peer = peer;
	err = loop_add(s->loop, fd, EPOLLIN, conn_event, c);
	if (err) {
		free(c);
		return err;
	}
	c->state = HTTP_READING;
	c->deadline_ns = now_ns() + s->lim.read_ms * 1000000ULL;
	list_add_tail(&s->lists[HTTP_READING], c);
	return 0;
}
