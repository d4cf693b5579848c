/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What leader.c (finding, adopting and filing leaders in the attr map) and leader_create.c
 * (making one) share; nothing outside counters/leader*.c includes it.
 */
#ifndef BPERF_COUNTERS_LEADER_INTERNAL_H
#define BPERF_COUNTERS_LEADER_INTERNAL_H

#include <bpf/bpf.h>
#include <linux/types.h>

#include "leader.h"

/* Every fd -1, every field 0: a handle that holds nothing (leader_put() of it does nothing). */
void leader_handle_init(struct leader_handle *h);
/* The id of the BPF link fd is open on, or 0. */
__u32 leader_link_id_of(int fd);
/*
 * Calls fn for each map the program uses, with an fd the callback keeps (returns true) or
 * leaves to be closed. Returns -errno if the program's info cannot be read.
 */
int leader_for_each_prog_map(int prog_fd,
			     bool (*fn)(int fd, const struct bpf_map_info *info, void *ctx),
			     void *ctx);

#endif
