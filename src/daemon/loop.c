// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's epoll loop (loop.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../util/common.h"
#include "log_limit.h"
#include "loop.h"

struct watch {
	int fd;
	loop_fn fn;
	void *arg;
	bool removed;	/* loop_del() ran: freed after the current batch of events */
	bool timer;	/* a timerfd: its expirations are read before fn runs */
	struct watch *next;	/* in watches, or in removed once loop_del() ran */
	struct watch **pprev;	/* what points at it in watches (unlinked in O(1)) */
};

/*
 * Watches are found by fd in by_fd (thousands of HTTP connections: a list walk per loop_mod or
 * loop_del made each event O(fds)); removed ones wait in removed for the end of the batch.
 */
struct loop {
	int epfd;
	bool stopped;
	int status;
	struct watch *watches;
	struct watch *removed;
	struct watch **by_fd;
	int nr_by_fd;
	struct log_limit log;
};

struct loop *loop_new(void)
{
	struct loop *l = xzalloc(sizeof(*l));

	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	log_limit_init(&l->log, NULL);
	return l;
}

struct log_limit *loop_log(struct loop *l)
{
	return &l->log;
}

static struct watch *find_watch(struct loop *l, int fd)
{
	return fd >= 0 && fd < l->nr_by_fd ? l->by_fd[fd] : NULL;
}

static void index_watch(struct loop *l, struct watch *w)
{
	if (w->fd >= l->nr_by_fd) {
		int n = w->fd < 64 ? 128 : 2 * w->fd;

		l->by_fd = xrealloc(l->by_fd, n * sizeof(*l->by_fd));
		memset(l->by_fd + l->nr_by_fd, 0, (n - l->nr_by_fd) * sizeof(*l->by_fd));
		l->nr_by_fd = n;
	}
	l->by_fd[w->fd] = w;
	w->next = l->watches;
	w->pprev = &l->watches;
	if (l->watches)
		l->watches->pprev = &w->next;
	l->watches = w;
}

int loop_add(struct loop *l, int fd, unsigned int events, loop_fn fn, void *arg)
{
	struct watch *w = xzalloc(sizeof(*w));
	struct epoll_event ev = { .events = events, .data.ptr = w };

	w->fd = fd;
	w->fn = fn;
	w->arg = arg;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		int err = -errno;

		free(w);
		return err;
	}
	index_watch(l, w);
	return 0;
}

int loop_mod(struct loop *l, int fd, unsigned int events)
{
	struct watch *w = find_watch(l, fd);
	struct epoll_event ev = { .events = events, .data.ptr = w };

	if (!w)
		return -ENOENT;
	return epoll_ctl(l->epfd, EPOLL_CTL_MOD, fd, &ev) ? -errno : 0;
}

void loop_del(struct loop *l, int fd)
{
	struct watch *w = find_watch(l, fd);

	if (!w)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
	w->removed = true;
	l->by_fd[fd] = NULL;
	*w->pprev = w->next;
	if (w->next)
		w->next->pprev = w->pprev;
	w->next = l->removed;
	l->removed = w;
}

int loop_add_timer(struct loop *l, unsigned int interval_ms, loop_fn fn, void *arg)
{
	struct itimerspec its = {
		.it_interval = { interval_ms / 1000, (interval_ms % 1000) * 1000000L },
		.it_value = { interval_ms / 1000, (interval_ms % 1000) * 1000000L },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	if (timerfd_settime(fd, 0, &its, NULL)) {
		err = -errno;
		close(fd);
		return err;
	}
	err = loop_add(l, fd, EPOLLIN, fn, arg);
	if (err) {
		close(fd);
		return err;
	}
	find_watch(l, fd)->timer = true;
	return fd;
}

/* Frees the watches loop_del() removed: none of them is referenced by pending events now. */
static void reap_removed(struct loop *l)
{
	while (l->removed) {
		struct watch *w = l->removed;

		l->removed = w->next;
		free(w);
	}
}

int loop_run_once(struct loop *l, int timeout_ms)
{
	struct epoll_event evs[128];
	int n = epoll_wait(l->epfd, evs, ARRAY_SIZE(evs), timeout_ms);

	if (n < 0)
		return -errno;
	for (int i = 0; i < n && !l->stopped; i++) {
		struct watch *w = evs[i].data.ptr;

		if (w->removed)
			continue;
		if (w->timer) {
			unsigned long long expirations;

			if (read(w->fd, &expirations, sizeof(expirations)) < 0)
				continue;
		}
		w->fn(w->arg, w->fd, evs[i].events);
	}
	reap_removed(l);
	return n;
}

int loop_run(struct loop *l)
{
	l->stopped = false;
	while (!l->stopped) {
		/* lines left out are summed up within a second of their second's end */
		int n = loop_run_once(l, l->log.left_out ? 1000 : -1);

		if (n < 0 && n != -EINTR)
			return n;
		log_limit_flush(&l->log);
	}
	return l->status;
}

void loop_stop(struct loop *l, int status)
{
	l->stopped = true;
	l->status = status;
}

void loop_free(struct loop *l)
{
	struct watch *w, *next;

	if (!l)
		return;
	reap_removed(l);
	for (w = l->watches; w; w = next) {
		next = w->next;
		close(w->fd);
		free(w);
	}
	free(l->by_fd);
	close(l->epfd);
	free(l);
}
