/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding the cgroups the daemon counts: its cgroup root and every directory below it in perf's
 * cgroup hierarchy (the hierarchy's own root is the CPU-wide series, cgroup "/"): walked once at
 * the start, then kept up to date from inotify's events alone (a watch per directory: inotify is
 * not recursive; a new directory's subtree is walked, a lost event walks it all), the changes
 * registered together 100 ms after the first, at most every 250 ms. Every 10 s one number is
 * compared (cgroup2's nr_descendants); where inotify's watch limit leaves directories
 * unwatched, the tree is walked every 10 s instead.
 */
#ifndef BPERF_DAEMON_CGWATCH_H
#define BPERF_DAEMON_CGWATCH_H

#include "loop.h"
#include "registry.h"

struct cgwatch;

/*
 * Registers root and every cgroup below it (a path below perf's cgroup mount, "/" for all of it)
 * in r and follows changes from the loop. 0 or -errno after printing one line.
 */
int cgwatch_start(struct loop *l, const char *root, int verbose, struct registry *r,
		  struct cgwatch **out);
void cgwatch_stop(struct cgwatch *w);

#endif
