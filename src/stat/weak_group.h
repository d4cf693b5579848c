/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf stat's weak groups ({...}:W, every metric's group): when the kernel refuses a member
 * with EINVAL or EBADF, the group is dissolved and its events are opened again on their own
 * (perf 6.1's evlist__reset_weak_group()).
 */
#ifndef BPERF_WEAK_GROUP_H
#define BPERF_WEAK_GROUP_H

#include <stdbool.h>

#include "../events/evlist.h"

/*
 * Dissolves the group led by evlist's entry leader_idx: each member becomes a lone event with
 * its attr configured for that (x86's topdown events stay: they are read through slots), and
 * reset[] is set for the leader and every former member. -v says so as perf does. The change
 * stays for later -r runs, as perf's does.
 */
void weak_group_reset(struct evlist *evlist, int leader_idx, bool *reset, int verbose);

#endif
