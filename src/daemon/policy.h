/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What an unprivileged client may have the daemon count: only counting attrs, and only targets
 * the kernel itself would let that user count (a helper process with the user's credentials
 * tries perf_event_open), plus what the policy group (daemon.allow-system-wide-group) grants.
 */
#ifndef BPERF_DAEMON_POLICY_H
#define BPERF_DAEMON_POLICY_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

/* A client, as the kernel saw it connect (SO_PEERCRED, SO_PEERGROUPS). */
struct peer {
	pid_t pid;
	/* SO_PEERPIDFD's (Linux 6.5 and later): a pidfd of the peer, so its pid cannot be reused */
	bool has_pidfd;
	int pidfd;
	uid_t uid;
	gid_t gid;
	int nr_groups;
	gid_t *groups;
};

/* What one OPEN would count, in the daemon's pid namespace. */
struct policy_target {
	const pid_t *tids;	/* thread targets */
	int nr_tids;
	const int *cpus;	/* CPU and cgroup targets */
	int nr_cpus;
	int cgroup_fd;		/* a cgroup target's directory, else -1 */
};

/* 0, or -EINVAL (malformed) / -EOPNOTSUPP (not a counting event the daemon serves). */
int policy_check_attr(const struct perf_event_attr *attr);
/* Whether the peer's primary or supplementary groups hold gid. */
bool peer_in_group(const struct peer *p, gid_t gid);
/* A kernel check under way: its helper, and a pidfd that polls readable once it has exited. */
struct policy_job {
	pid_t pid;
	int pidfd;
};

/* policy_check_start()'s answer while the helper works */
#define POLICY_PENDING 1

/*
 * Whether the kernel lets the peer count attr on t: a child process takes the peer's groups,
 * gid and uid with no capabilities and opens the events. It runs while the daemon goes on:
 * POLICY_PENDING, then policy_check_end() once job->pidfd polls readable. Where the kernel has
 * no pidfds the wait is at once: 0 or the kernel's -errno (fork's too).
 */
int policy_check_start(const struct peer *p, const struct perf_event_attr *attr,
		       const struct policy_target *t, struct policy_job *job);
/* Reaps the helper: 0 or the kernel's -errno for the peer. */
int policy_check_end(struct policy_job *job);
/* Ends a helper that takes too long (policy_check_end() then answers -EPERM). */
void policy_check_kill(const struct policy_job *job);

#endif
