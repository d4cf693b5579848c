// SPDX-License-Identifier: GPL-2.0-only
/* Requests of versions 1 and 2 (proto_decode.h). */
#include "proto_decode.h"

#include <errno.h>
#include <string.h>

#include "proto_v1.h"

_Static_assert(BPERF_PROTO_OLDEST_VERSION == BPERF_PROTO_V1, "the oldest version is 1");
_Static_assert(BPERF_PROTO_V1_MAX_IDS == BPERF_PROTO_MAX_IDS, "version 1 ids");
_Static_assert(sizeof(struct bperf_req_v1_tail) == 8 + 4 * BPERF_PROTO_V1_MAX_IDS + 256,
	       "version 1 tail");

/* Version 1: the attr's size is what the length leaves for it (8-byte aligned, as attrs are). */
static int decode_v1(const unsigned char *msg, size_t len, struct bperf_req *req)
{
	size_t attr_size = len - BPERF_PROTO_V1_LEN(0);
	struct bperf_req_v1_head head;
	struct bperf_req_v1_tail tail;

	if (len < BPERF_PROTO_V1_LEN(PERF_ATTR_SIZE_VER0) ||
	    len > BPERF_PROTO_V1_LEN(BPERF_PROTO_ATTR_BYTES) || attr_size % 8)
		return -EPROTO;
	memcpy(&head, msg, sizeof(head));
	memcpy(&tail, msg + sizeof(head) + attr_size, sizeof(tail));
	req->version = head.version;
	req->type = head.type;
	req->session = head.session;
	req->target = head.target;
	req->attr_size = attr_size;
	memcpy(req->attr_bytes, msg + sizeof(head), attr_size);
	req->inherit = tail.inherit;
	req->nr_ids = tail.nr_ids;
	memcpy(req->ids, tail.ids, sizeof(req->ids));
	memcpy(req->cgroup, tail.cgroup, sizeof(req->cgroup));
	return 0;
}

/* As perf_copy_attr(): fields past the client's size are 0, past ours must be. */
static int take_attr(struct bperf_req *req)
{
	size_t size = req->attr_size, mine = sizeof(struct perf_event_attr);

	if (size < PERF_ATTR_SIZE_VER0)
		return -EINVAL;
	if (size > BPERF_PROTO_ATTR_BYTES)
		return -E2BIG;
	memset(req->attr_bytes + size, 0, BPERF_PROTO_ATTR_BYTES - size);
	for (size_t i = mine; i < size; i++)
		if (req->attr_bytes[i])
			return -E2BIG;
	req->attr.size = size < mine ? size : mine;
	return 0;
}

int proto_decode(const void *msg, size_t len, struct bperf_req *req)
{
	__u32 version;
	int err;

	memset(req, 0, sizeof(*req));
	memcpy(&version, msg, sizeof(version));
	req->version = version;
	if (version == BPERF_PROTO_V1) {
		err = decode_v1(msg, len, req);
	} else if (version == BPERF_PROTO_VERSION) {
		err = len == sizeof(*req) ? 0 : -EPROTO;
		if (!err)
			memcpy(req, msg, sizeof(*req));
	} else {
		return -EPROTONOSUPPORT;
	}
	if (err || req->type != MSG_OPEN)
		return err;
	return take_attr(req);
}
