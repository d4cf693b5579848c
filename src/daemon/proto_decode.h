/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A client's request of any version the daemon speaks, as version 2's struct bperf_req with
 * this build's struct perf_event_attr in it.
 */
#ifndef BPERF_DAEMON_PROTO_DECODE_H
#define BPERF_DAEMON_PROTO_DECODE_H

#include <stddef.h>

#include "../counters/daemon_proto.h"

/*
 * Decodes one message of len bytes (msg holds at least 4) into req. 0; -EPROTONOSUPPORT, a
 * version the daemon does not speak (req->version says which); -EPROTO, not a message of its
 * version. An OPEN's attr is taken as the kernel takes one (the bytes past attr_size are 0, the
 * attr's size is at most this build's): its errors, -E2BIG (a field this daemon does not know
 * is set) or -EINVAL (shorter than the first attr), are the OPEN's, replied to on a connection
 * that goes on.
 */
int proto_decode(const void *msg, size_t len, struct bperf_req *req);

#endif
