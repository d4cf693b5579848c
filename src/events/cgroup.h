/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Counting per cgroup, as perf stat's -G and --for-each-cgroup: cgroups are looked up in the
 * hierarchy perf events use (a v1 mount with the perf_event controller, else cgroup v2), their
 * directories opened, and evsels tied to them.
 */
#ifndef BPERF_CGROUP_H
#define BPERF_CGROUP_H

#include <stddef.h>

#include "evlist.h"

/*
 * The mount point of the perf_event hierarchy into buf: the first v1 mount with the
 * perf_event controller, else the last cgroup2 mount (perf's choice). -ENOENT if none.
 */
int cgroup_mountpoint(char *buf, size_t size);

/*
 * -G LIST: the Nth entry (counted over every -G so far, empty entries included) applies to the
 * Nth event; a single entry in the first -G applies to every event. Prints perf's message and
 * returns -EINVAL when there are no events yet, a cgroup cannot be opened, or an entry has no
 * event left.
 */
int evlist_add_cgroups(struct evlist *evlist, const char *list);

/*
 * --for-each-cgroup LIST: the whole event list again for each cgroup. Entries are names, an
 * empty one the root ("/"); with any of {}[]()|*+?^$ in LIST they are regular expressions,
 * matched against every cgroup's path (the root is ""), and an empty entry picks the root.
 * Prints perf's message and returns -EINVAL when nothing matches or a cgroup cannot be opened.
 */
int evlist_expand_cgroups(struct evlist *evlist, const char *list);

void evlist_free_cgroups(struct evlist *evlist);

#endif
