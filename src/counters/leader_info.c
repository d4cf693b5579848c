// SPDX-License-Identifier: GPL-2.0-only
/* A leader's sizes and identity for holders outside counters/ (leader_info.h). */
#include "leader_info.h"

__u32 leader_nr_members(const struct leader_handle *h)
{
	return h->nr_members;
}

__u32 leader_nr_cpus(const struct leader_handle *h)
{
	return h->nr_cpus;
}

__u32 leader_member(const struct leader_handle *h)
{
	return h->member;
}

__u32 leader_link_id(const struct leader_handle *h)
{
	return h->link_id;
}
