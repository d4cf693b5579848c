/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a holder of a leader outside counters/ (the daemon) may know of it, so that it never
 * reads a leader_handle's fields itself.
 */
#ifndef BPERF_COUNTERS_LEADER_INFO_H
#define BPERF_COUNTERS_LEADER_INFO_H

#include "leader.h"

/* The leader's members, and its per-CPU maps' width (possible CPUs): what a reader sizes by. */
__u32 leader_nr_members(const struct leader_handle *h);
__u32 leader_nr_cpus(const struct leader_handle *h);
/* The member of the leader that a session of one event counts (leader_handle.member). */
__u32 leader_member(const struct leader_handle *h);
/* The id of its on_switch link: the attr map entry names it. */
__u32 leader_link_id(const struct leader_handle *h);

#endif
