// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's HTTP/1.1 server (http.h): just enough for Prometheus. The listener, the peers and
 * the limits here, one connection's state machine in http_conn.c, the request head in
 * http_parse.c. Nothing a client does holds another up: every connection has a deadline, the
 * connections of one peer address are limited, a new connection takes the slot of the oldest
 * idle one when all are taken, and accept stops for a while when fds run out (EMFILE) instead of
 * spinning on a listener that stays readable.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../util/common.h"
#include "http_internal.h"
#include "log_limit.h"

#define HTTP_SWEEP_MS 100	/* deadlines are kept to this; accept retried after EMFILE */
#define HTTP_ACCEPTS_PER_EVENT 64	/* then the loop's other fds get their turn */
#define HTTP_BACKLOG 1024
#define HTTP_EXPIRES_PER_SWEEP 128

void http_limits_default(struct http_limits *lim, unsigned long nofile)
{
	unsigned long conns = nofile / 2, per_peer = conns / 16;

	*lim = (struct http_limits){
		.read_ms = 5000, .idle_ms = 65000, .write_ms = 5000, .min_rate = 32768,
		.max_conns = conns < 8 ? 8 : conns > 1000000 ? 1000000 : conns,
		.max_per_peer = per_peer < 4 ? 4 : per_peer > 256 ? 256 : per_peer,
		.max_resp_bytes = 256 << 20,
	};
}

void server_log(struct http_server *s, const char *peer, const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	log_limit_peer(loop_log(s->loop), peer, "%s", line);
}

static unsigned int peer_hash(const char *addr)
{
	unsigned int h = 2166136261u;	/* FNV-1a */

	while (*addr)
		h = (h ^ (unsigned char)*addr++) * 16777619u;
	return h % HTTP_PEER_BUCKETS;
}

static struct http_peer *peer_get(struct http_server *s, const char *addr)
{
	struct http_peer **b = &s->peers[peer_hash(addr)], *p;

	for (p = *b; p; p = p->next)
		if (!strcmp(p->addr, addr))
			return p;
	p = xzalloc(sizeof(*p));
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	p->next = *b;
	*b = p;
	return p;
}

static void peer_put(struct http_server *s, struct http_peer *peer)
{
	struct http_peer **p;

	if (--peer->conns)
		return;
	for (p = &s->peers[peer_hash(peer->addr)]; *p != peer; p = &(*p)->next)
		;
	*p = peer->next;
	free(peer);
}

/*
 * The peer of an accepted connection: its IPv4 address (an IPv4-mapped one too), or the /64 of
 * its IPv6 address, since one host may hold a whole /64.
 */
static void peer_address(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	const struct sockaddr_in6 *a6 = (const void *)ss;
	char host[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, buf, size);
	} else if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
		inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, size);
	} else if (ss->ss_family == AF_INET6) {
		struct in6_addr prefix = a6->sin6_addr;

		memset(&prefix.s6_addr[8], 0, 8);
		inet_ntop(AF_INET6, &prefix, host, sizeof(host));
		snprintf(buf, size, "%s/64", host);
	} else {
		snprintf(buf, size, "local");
	}
}

static void timer_arm(struct http_server *s, bool on)
{
	struct itimerspec its = {
		.it_interval = { 0, HTTP_SWEEP_MS * 1000000L },
		.it_value = { 0, HTTP_SWEEP_MS * 1000000L },
	};

	if (on == s->timer_armed)
		return;
	if (!on)
		its = (struct itimerspec){};
	if (!timerfd_settime(s->timer_fd, 0, &its, NULL))
		s->timer_armed = on;
}

static void listen_resume(struct http_server *s)
{
	if (!s->listening && !loop_mod(s->loop, s->fd, EPOLLIN))
		s->listening = true;
}

void server_conn_gone(struct http_server *s, struct http_conn *c)
{
	peer_put(s, c->peer);
	s->stats.open--;
	listen_resume(s);	/* an fd is free again */
	timer_arm(s, s->stats.open || !s->listening);
}

/*
 * The oldest connection that is not being answered goes: idle ones first (quietly: keep-alive
 * clients reconnect), then half-read ones (logged: why). False if there is none.
 */
static bool evict_one(struct http_server *s, const char *why)
{
	struct http_conn *c = s->lists[HTTP_IDLE].head ?: s->lists[HTTP_READING].head;

	if (!c)
		return false;
	s->stats.evicted++;
	conn_close(c, c->state == HTTP_IDLE ? NULL : why);
	return true;
}

/*
 * Closes the connections of a list past their deadline, at most HTTP_EXPIRES_PER_SWEEP: 1,000
 * connections made at once expire at once, and closing them all in one callback would hold a
 * scrape up (the rest go in the next sweeps).
 */
static void sweep_list(struct http_server *s, enum http_state state, unsigned long long now,
		       bool sorted)
{
	struct http_conn *c = s->lists[state].head, *next;
	int closed = 0;

	for (; c && closed < HTTP_EXPIRES_PER_SWEEP; c = next) {
		next = c->next;
		if (c->deadline_ns <= now) {
			conn_expire(c);
			closed++;
		} else if (sorted) {
			return;
		}
	}
}

/* Every HTTP_SWEEP_MS while there are connections (or accept is paused). */
static void server_sweep(void *arg, int fd, unsigned int revents)
{
	struct http_server *s = arg;
	unsigned long long now = now_ns();

	sweep_list(s, HTTP_READING, now, true);
	sweep_list(s, HTTP_IDLE, now, true);
	sweep_list(s, HTTP_DRAINING, now, true);
	sweep_list(s, HTTP_WRITING, now, false);	/* deadlines by length: not sorted */
	listen_resume(s);
	timer_arm(s, s->stats.open || !s->listening);
}

/* Takes fd from peer, within the limits; 0, or -errno with fd closed. */
static int server_take(struct http_server *s, int fd, const char *addr)
{
	struct http_peer *peer = peer_get(s, addr);
	int err;

	peer->conns++;	/* held while evicting: the connection that goes may be its last */
	if (peer->conns > s->lim.max_per_peer) {
		server_log(s, addr, "HTTP: %u connections from this peer, the limit: new one "
			   "refused", peer->conns - 1);
		err = -EMFILE;
	} else if (s->stats.open >= s->lim.max_conns &&
		   !evict_one(s, "connections at their limit: the oldest goes for a new one")) {
		server_log(s, addr, "HTTP: %u connections open, the limit, none idle: new one "
			   "refused", s->stats.open);
		err = -ENFILE;
	} else {
		err = conn_open(s, fd, peer);
	}
	if (err) {
		s->stats.refused++;
		peer_put(s, peer);	/* frees a peer with no connection */
		close(fd);
		return err;
	}
	s->stats.open++;
	s->stats.accepted++;
	timer_arm(s, true);
	return 0;
}

/* Out of fds: the oldest idle connection goes, or accept waits for a free fd or the sweep. */
static bool accept_failed(struct http_server *s, int err)
{
	if (err != EMFILE && err != ENFILE && err != ENOBUFS && err != ENOMEM)
		return false;	/* EAGAIN, or a connection reset before accept: nothing to do */
	s->stats.paused++;
	if (evict_one(s, "out of fds: the oldest connection goes for a new one"))
		return true;
	server_log(s, s->address, "HTTP: cannot accept: %s: paused for %d ms", strerror(err),
		   HTTP_SWEEP_MS);
	if (!loop_mod(s->loop, s->fd, 0))
		s->listening = false;
	timer_arm(s, true);
	return false;
}

static void server_accept(void *arg, int fd, unsigned int revents)
{
	struct http_server *s = arg;

	for (int i = 0; i < HTTP_ACCEPTS_PER_EVENT && s->listening; i++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		char addr[HTTP_PEER_LEN];
		int cfd = accept4(fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd < 0) {
			if (accept_failed(s, errno))
				continue;
			return;
		}
		peer_address(&ss, addr, sizeof(addr));
		server_take(s, cfd, addr);
	}
}

int http_server_adopt(struct http_server *s, int fd, const char *peer)
{
	return server_take(s, fd, peer);
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

static unsigned long fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	return rl.rlim_cur;
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
	s->timer_fd = -1;
	http_limits_default(&s->lim, fd_limit());
	s->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto fail;
	if (ss.ss_family == AF_INET6)	/* [::]:P means IPv6 only; 0.0.0.0:P is the other one */
		setsockopt(s->fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(s->fd, (struct sockaddr *)&ss, len) || listen(s->fd, HTTP_BACKLOG))
		goto fail;
	format_address(s);
	/* disarmed until a connection has a deadline (timer_arm()) */
	err = loop_add_timer(l, 0, server_sweep, s);
	s->timer_fd = err < 0 ? -1 : err;
	if (err >= 0)
		err = loop_add(l, s->fd, EPOLLIN, server_accept, s);
	if (err) {
		if (s->timer_fd >= 0)
			loop_del(l, s->timer_fd);
		errno = -err;
		goto fail;
	}
	s->listening = true;
	*out = s;
	return 0;
fail:
	err = -errno;
	pr_err("bperf daemon: cannot listen on %s: %s", addr, strerror(errno));
	if (s->timer_fd >= 0)
		close(s->timer_fd);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	return err;
}

void http_server_set_limits(struct http_server *s, const struct http_limits *lim)
{
	s->lim = *lim;
}

const char *http_server_address(const struct http_server *s)
{
	return s ? s->address : "";
}

struct http_stats http_server_stats(const struct http_server *s)
{
	return s->stats;
}

/* Closes every connection and the listener; call it before loop_free(). */
void http_server_stop(struct http_server *s)
{
	if (!s)
		return;
	for (int i = 0; i < HTTP_NR_STATES; i++)
		while (s->lists[i].head)
			conn_close(s->lists[i].head, NULL);
	loop_del(s->loop, s->fd);
	close(s->fd);
	loop_del(s->loop, s->timer_fd);
	close(s->timer_fd);
	buf_free(&s->body);
	buf_free(&s->gzipped);
	free(s);
}
