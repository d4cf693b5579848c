/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding the cgroups the daemon counts: its cgroup root and every directory below it in perf's
 * cgroup hierarchy (the hierarchy's own root is the CPU-wide series, cgroup "/"), kept up to
 * date with inotify (a watch per directory: inotify is not recursive) and a periodic full
 * rescan that repairs whatever a missed event left behind.
 */
#ifndef BPERF_DAEMON_CGWATCH_H
#define BPERF_DAEMON_CGWATCH_H

#include "loop.h"
#include "registry.h"

struct cgwatch;

/*
 * Registers root and every cgroup below it (a path below perf's cgroup mount, "/" for all of it)
 * in r
 * and follows changes from the loop. 0 or -errno after printing one line.
 */
int cgwatch_start(struct loop *l, const char *root, int verbose, struct registry *r,
		  struct cgwatch **out);
void cgwatch_stop(struct cgwatch *w);

#endif
