/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a client's OPEN names, resolved in the daemon's own namespaces: processes and threads by
 * the pidfds the client passed, CPUs, and a cgroup by the directory fd it opened.
 */
#ifndef BPERF_DAEMON_SOCKET_TARGET_H
#define BPERF_DAEMON_SOCKET_TARGET_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

#include "policy.h"
#include "../counters/daemon_proto.h"

#define MAX_THREADS_PER_OPEN 1024

struct open_target {
	pid_t tids[MAX_THREADS_PER_OPEN];
	int nr_tids;
	int cpus[BPERF_PROTO_MAX_CPUS];
	int nr_cpus;
	pid_t exec_tgid;
	int cgroup_fd;		/* the client's, or -1 */
	__u64 cgroup_id;
	bool free_refusal;	/* refused as the kernel would, without asking it: uncharged */
};

/* What the OPEN names, in the daemon's namespace; 0 or -errno. */
int resolve_target(const struct bperf_req *req, const struct peer *peer, const int *fds,
		   int nr_fds, struct open_target *t);
/* A pidfd polls readable once its process has exited. */
bool pidfd_alive(int fd);
/* The pid a pidfd names in the daemon's pid namespace: > 0, or -ESRCH / -EBADF. */
pid_t pidfd_pid(int fd);

#endif
