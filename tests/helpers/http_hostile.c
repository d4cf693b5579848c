// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hostile HTTP clients of bperf daemon's /metrics port (tests/shell/daemon_http_*.sh), from
 * loopback addresses 127.0.0.2 and up (the scraper keeps 127.0.0.1), each reconnecting as soon
 * as the daemon closes it.
 *
 *	http_hostile load PORT IDLE TRICKLE SECONDS
 *		IDLE connections that send nothing and TRICKLE that send a request one byte a
 *		second, spread over 127.0.0.2-127.0.0.201, for SECONDS; then "connects N closed M
 *		open K min_open L" (L: the fewest open at a second's end, after the first second)
 *	http_hostile hold PORT N ADDR SECONDS
 *		N connections from ADDR, silent for SECONDS (or until killed: 0); "open K closed M"
 *		after half a second (closed: the daemon refused them), then sleeps
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NR_SOURCES 200
static const char request[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n\r\n";

struct client {
	int fd;
	size_t sent;	/* of request, for a trickling one */
	int trickle;
	int source;
};

static int port;
static long connects, closed;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A non-blocking connection from src to 127.0.0.1:port; -1 if no socket. */
static int connect_from(const char *src, int nonblock)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct sockaddr_in s = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0), 0);

	if (fd < 0)
		return -1;
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	inet_pton(AF_INET, src, &s.sin_addr);
	if (bind(fd, (struct sockaddr *)&s, sizeof(s)) ||
	    (connect(fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS)) {
		close(fd);
		return -1;
	}
	connects++;
	return fd;
}

static void client_open(int ep, struct client *c)
{
	char src[32];
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.ptr = c };

	snprintf(src, sizeof(src), "127.0.0.%d", 2 + c->source % NR_SOURCES);
	c->sent = 0;
	c->fd = connect_from(src, 1);
	if (c->fd >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev)) {
		close(c->fd);
		c->fd = -1;
	}
}

/* The daemon closed it (or answered: a hostile client reads nothing else): again. */
static void client_event(int ep, struct client *c)
{
	char buf[4096];
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);

	if (n < 0 && errno == EAGAIN)
		return;
	close(c->fd);
	closed++;
	client_open(ep, c);
}

static void trickle(struct client *cs, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct client *c = &cs[i];

		if (c->trickle && c->fd >= 0 && c->sent < sizeof(request) - 1 &&
		    send(c->fd, request + c->sent, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
			c->sent++;
	}
}

static int count_open(struct client *cs, int nr)
{
	int n = 0;

	for (int i = 0; i < nr; i++)
		n += cs[i].fd >= 0;
	return n;
}

static int load(int idle, int nr_trickle, int seconds)
{
	int nr = idle + nr_trickle, ep = epoll_create1(0), min_open = nr;
	struct client *cs = calloc(nr, sizeof(*cs));
	double start = now_s(), next = start + 1;

	for (int i = 0; i < nr; i++) {
		cs[i].trickle = i < nr_trickle;
		cs[i].source = i;
		client_open(ep, &cs[i]);
	}
	while (now_s() < start + seconds) {
		struct epoll_event evs[256];
		int n = epoll_wait(ep, evs, 256, 100);

		for (int i = 0; i < n; i++)
			client_event(ep, evs[i].data.ptr);
		if (now_s() >= next) {
			int open = count_open(cs, nr);

			trickle(cs, nr);
			if (next > start + 1.5 && open < min_open)
				min_open = open;
			for (int i = 0; i < nr; i++)	/* a refused connect: again */
				if (cs[i].fd < 0)
					client_open(ep, &cs[i]);
			next += 1;
		}
	}
	printf("connects %ld closed %ld open %d min_open %d\n", connects, closed,
	       count_open(cs, nr), min_open);
	return 0;
}

static int hold(int nr, const char *src, int seconds)
{
	int *fds = calloc(nr, sizeof(*fds)), open = 0;

	for (int i = 0; i < nr; i++)
		fds[i] = connect_from(src, 0);
	usleep(500000);
	for (int i = 0; i < nr; i++) {
		char c;

		if (fds[i] >= 0 && recv(fds[i], &c, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN)
			open++;
	}
	printf("open %d closed %d\n", open, nr - open);
	fflush(stdout);
	if (seconds)
		sleep(seconds);
	else
		pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "load")) {
		port = atoi(argv[2]);
		return load(atoi(argv[3]), atoi(argv[4]), atoi(argv[5]));
	}
	if (argc == 6 && !strcmp(argv[1], "hold")) {
		port = atoi(argv[2]);
		return hold(atoi(argv[3]), argv[4], atoi(argv[5]));
	}
	fprintf(stderr, "usage: http_hostile load PORT IDLE TRICKLE SECONDS\n"
		"       http_hostile hold PORT N ADDR SECONDS\n");
	return 2;
}
