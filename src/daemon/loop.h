/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's event loop: one thread, epoll over every fd it serves (HTTP, the Unix socket and
 * its clients, signals, timers). Callbacks run one at a time and must not block. The loop holds
 * the daemon's one log of what peers cause (log_limit.h), and says the lines it left out.
 */
#ifndef BPERF_DAEMON_LOOP_H
#define BPERF_DAEMON_LOOP_H

#include <stdbool.h>

struct loop;

/* revents: EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR bits as epoll reports them */
typedef void (*loop_fn)(void *arg, int fd, unsigned int revents);

struct loop *loop_new(void);
/* The log for what clients and scrapers cause: log_limit_peer(loop_log(l), peer, ...). */
struct log_limit *loop_log(struct loop *l);
/* Watches fd for events (EPOLLIN, EPOLLOUT, ...); 0 or -errno. */
int loop_add(struct loop *l, int fd, unsigned int events, loop_fn fn, void *arg);
int loop_mod(struct loop *l, int fd, unsigned int events);
/* Stops watching fd (the caller closes it); safe from inside fd's own callback. */
void loop_del(struct loop *l, int fd);
/*
 * A timerfd calling fn every interval_ms (0: disarmed, for the caller to arm with
 * timerfd_settime()); returns its fd (for loop_del) or -errno.
 */
int loop_add_timer(struct loop *l, unsigned int interval_ms, loop_fn fn, void *arg);
/* Runs until loop_stop(); returns the status given to it. */
int loop_run(struct loop *l);
/*
 * One wait of up to timeout_ms (-1: until something happens) and the callbacks it brings (what
 * loop_run() repeats); the number of events, or -errno.
 */
int loop_run_once(struct loop *l, int timeout_ms);
void loop_stop(struct loop *l, int status);
/* Frees the loop; every fd still watched is closed. */
void loop_free(struct loop *l);

#endif
