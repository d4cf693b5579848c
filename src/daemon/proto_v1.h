/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Version 1 of the daemon's requests, frozen as bperf 0.x sent them: the attr embedded at the
 * size of the client's kernel headers (128 bytes with Debian 12's, 136 with 6.3's and later),
 * so the request's length says that size. The daemon still serves it (proto_decode.c).
 */
#ifndef BPERF_DAEMON_PROTO_V1_H
#define BPERF_DAEMON_PROTO_V1_H

#include <linux/types.h>

#define BPERF_PROTO_V1 1
#define BPERF_PROTO_V1_MAX_IDS 64

/* What comes before the attr, and after it */
struct bperf_req_v1_head {
	__u32 version;
	__u32 type;
	__u32 session;
	__u32 target;
};

struct bperf_req_v1_tail {
	__u32 inherit;
	__u32 nr_ids;
	__s32 ids[BPERF_PROTO_V1_MAX_IDS];
	char cgroup[256];
};

/* As bperf built on Debian 12 sent it: a 128-byte attr */
#define BPERF_PROTO_V1_LEN(attr_size) \
	(sizeof(struct bperf_req_v1_head) + (attr_size) + sizeof(struct bperf_req_v1_tail))
_Static_assert(BPERF_PROTO_V1_LEN(128) == 664, "version 1 as built on Debian 12");

#endif
