/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The messages between an unprivileged bperf stat session and the daemon: AF_UNIX
 * SOCK_SEQPACKET, one fixed-size struct per message, host byte order. Targets are named by
 * pidfds passed with SCM_RIGHTS, so the daemon knows which process is meant in its own pid
 * namespace.
 */
#ifndef BPERF_DAEMON_PROTO_H
#define BPERF_DAEMON_PROTO_H

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <linux/types.h>

/* Where the daemon listens for sessions (--socket), and the clients' override of it (tests) */
#define BPERF_DAEMON_SOCKET "/run/bperf/daemon.sock"
#define BPERF_DAEMON_SOCKET_ENV "BPERF_DAEMON_SOCKET"

/* The version this bperf speaks; the daemon speaks BPERF_PROTO_OLDEST_VERSION up to it too */
#define BPERF_PROTO_VERSION 2
#define BPERF_PROTO_OLDEST_VERSION 1
#define BPERF_PROTO_MAX_IDS 64
#define BPERF_PROTO_MAX_CPUS 1024
/* What one message can carry (the kernel's SCM_MAX_FD): tests send more than the daemon takes */
#define BPERF_PROTO_SEND_MAX_FDS 253

enum bperf_msg {
	MSG_HELLO = 1,
	MSG_OPEN,
	MSG_ENABLE,
	MSG_DISABLE,
	MSG_READ,
	MSG_CLOSE,
	MSG_REPLY,
};

enum bperf_target {
	TGT_WORKLOAD = 1,	/* a forked workload: counting starts at its exec (ids[0]'s pidfd) */
	TGT_PID,		/* -p: processes, with their threads (pidfds) */
	TGT_TID,		/* -t: threads */
	TGT_CPUS,		/* -a, -C: ids[] are CPU numbers */
	TGT_CGROUP,		/* -G: cgroup on ids[] CPUs */
};

/* Bytes an attr may take in a request: more than any kernel's struct perf_event_attr yet */
#define BPERF_PROTO_ATTR_BYTES 256

/*
 * Version 2: every field of fixed width, the attr with its size as perf_event_attr.size gives
 * it (bperf of other kernel headers sends other sizes; the daemon takes them as the kernel
 * does). The daemon serves version 1 (proto_v1.h) too.
 */
struct bperf_req {
	__u32 version;		/* BPERF_PROTO_VERSION */
	__u32 type;		/* enum bperf_msg */
	__u32 session;		/* from OPEN's reply (ENABLE ... CLOSE) */
	__u32 target;		/* OPEN: enum bperf_target */
	__u32 attr_size;	/* OPEN: the attr's bytes in attr_bytes[], the rest zero */
	__u32 inherit;		/* OPEN: follow children (not -i) */
	__u32 nr_ids;
	__u32 reserved;		/* zero */
	union {
		/* OPEN: as the client parsed it; checked, never trusted */
		struct perf_event_attr attr;
		__u8 attr_bytes[BPERF_PROTO_ATTR_BYTES];
	};
	__s32 ids[BPERF_PROTO_MAX_IDS];	/* TGT_TID tids, TGT_CPUS / TGT_CGROUP cpus */
	char cgroup[256];	/* TGT_CGROUP: below perf's cgroup mount, as -G takes it */
};

/*
 * The same in every version: a client of any version reads its first four fields. A HELLO of a
 * version the daemon does not speak gets err -EPROTONOSUPPORT, version the daemon's newest and
 * session its oldest.
 */
struct bperf_reply {
	__u32 version;		/* the request's */
	__u32 type;		/* MSG_REPLY */
	__u32 session;
	__s32 err;		/* 0 or -errno: -EACCES refused by perf's rules, -EUSERS over limits */
	__u32 exclude_kernel;	/* OPEN: counted as :u (perf_event_paranoid), print :u */
	__u32 nr_values;	/* READ: values[] entries: one per CPU asked, or 1 for threads */
	struct bpf_perf_event_value values[];	/* READ */
};

_Static_assert(sizeof(struct perf_event_attr) <= BPERF_PROTO_ATTR_BYTES, "attr_bytes too small");
_Static_assert(sizeof(struct bperf_req) == 32 + BPERF_PROTO_ATTR_BYTES + 4 * BPERF_PROTO_MAX_IDS +
	       256, "struct bperf_req has padding");
_Static_assert(__builtin_offsetof(struct bperf_req, attr_bytes) == 32, "attr_bytes moved");
_Static_assert(sizeof(struct bperf_reply) == 24, "struct bperf_reply has padding");
_Static_assert(sizeof(struct bpf_perf_event_value) == 24, "values[] changed");

/* A request of this version, with this build's attr size. */
static inline void proto_req_init(struct bperf_req *req, __u32 type)
{
	memset(req, 0, sizeof(*req));
	req->version = BPERF_PROTO_VERSION;
	req->type = type;
	req->attr_size = sizeof(struct perf_event_attr);
}

/*
 * proto_send: one message of len bytes on sock, with nr_fds (at most BPERF_PROTO_SEND_MAX_FDS)
 * fds passed as SCM_RIGHTS; sendmsg()'s result. Inline: the test helpers that speak the protocol
 * link no bperf objects.
 */
static inline ssize_t proto_send(int sock, const void *buf, size_t len, const int *fds,
				 int nr_fds)
{
	char cbuf[CMSG_SPACE(BPERF_PROTO_SEND_MAX_FDS * sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	if (nr_fds > BPERF_PROTO_SEND_MAX_FDS)
		return -1;
	if (nr_fds > 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = CMSG_SPACE(nr_fds * sizeof(int));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nr_fds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nr_fds * sizeof(int));
	}
	do {
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n;
}

#endif
