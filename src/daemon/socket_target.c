// SPDX-License-Identifier: GPL-2.0-only
/* The targets of a client's OPEN (socket_target.h). */
#include "socket_target.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/proc.h"
#include "../util/target.h"
#include "../events/cgroup.h"

pid_t pidfd_pid(int fd)
{
	char path[64], link[64], buf[512], *p;
	ssize_t n;
	long pid;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return -EBADF;
	link[n] = '\0';
	if (strcmp(link, "anon_inode:[pidfd]") && strncmp(link, "pidfd:", 6))
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	if (read_text_file(path, buf, sizeof(buf)))
		return -EBADF;
	p = strstr(buf, "\nPid:");
	if (!p)
		return -EBADF;
	pid = strtol(p + 5, NULL, 10);
	/* -1: gone; 0: not in the daemon's namespace */
	return pid > 0 && pid <= INT_MAX ? (pid_t)pid : -ESRCH;
}

bool pidfd_alive(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 0;
}

struct thread_list {
	pid_t *tids;
	int *nr;
};

static int append_thread(pid_t tid, void *ctx)
{
	struct thread_list *l = ctx;

	if (*l->nr >= MAX_THREADS_PER_OPEN)
		return -E2BIG;
	l->tids[(*l->nr)++] = tid;
	return 0;
}

/* Appends every thread of process pid; -ESRCH when it has none, -E2BIG past the limit. */
static int add_threads(pid_t pid, pid_t *tids, int *nr)
{
	struct thread_list l = { tids, nr };

	return proc_for_each_thread(pid, append_thread, &l);
}

static int online_cpus(int *cpus, int max)
{
	return cpu_list_read_ids("/sys/devices/system/cpu/online", cpus, max);
}


/*
 * A cgroup named by the directory fd the client opened (so that its cgroup namespace does not
 * matter): its id, once it is known to be a cgroup of perf's hierarchy.
 */
static int resolve_cgroup(int fd, struct open_target *t)
{
	char mnt[PATH_MAX], path[64], dir[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	size_t len;
	ssize_t n;

	if (fstatfs(fd, &sfs) || fstat(fd, &st) || !S_ISDIR(st.st_mode) ||
	    (sfs.f_type != CGROUP2_SUPER_MAGIC && sfs.f_type != CGROUP_SUPER_MAGIC))
		return -EINVAL;
	if (cgroup_mountpoint(mnt, sizeof(mnt)))
		return -ENODEV;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, dir, sizeof(dir) - 1);
	if (n < 0)
		return -EINVAL;
	dir[n] = '\0';
	len = strlen(mnt);
	/* another hierarchy than perf's: perf_event_open would refuse it */
	if (strncmp(dir, mnt, len) || (dir[len] && dir[len] != '/'))
		return -EINVAL;
	t->cgroup_fd = fd;
	t->cgroup_id = st.st_ino;
	return 0;
}

/*
 * Whether the peer lives in the daemon's pid namespace. Its pid, taken at connect, could name
 * another process by now; with its pidfd (SO_PEERPIDFD), a peer still alive after the look at
 * /proc/PID is the process looked at (a pid is reused only once its process is gone). Without
 * one (before 6.5) the pid is trusted as it is.
 */
static bool same_pid_ns(const struct peer *peer)
{
	struct stat mine, theirs;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", peer->pid);
	if (stat("/proc/self/ns/pid", &mine) || stat(path, &theirs) ||
	    mine.st_ino != theirs.st_ino || mine.st_dev != theirs.st_dev)
		return false;
	return !peer->has_pidfd || pidfd_alive(peer->pidfd);
}

/*
 * -t from a kernel without pidfds of threads (before 6.9): thread ids as numbers, which mean the
 * same to the daemon only when the client is in its pid namespace.
 */
static int tids_as_numbers(const struct bperf_req *req, const struct peer *peer,
			   struct open_target *t)
{
	int i;

	if (!req->nr_ids || req->nr_ids > BPERF_PROTO_MAX_IDS)
		return -EINVAL;
	if (!same_pid_ns(peer))
		return -EXDEV;
	for (i = 0; i < (int)req->nr_ids; i++) {
		if (req->ids[i] <= 0)
			return -EINVAL;
		t->tids[t->nr_tids++] = req->ids[i];
	}
	return 0;
}

int resolve_target(const struct bperf_req *req, const struct peer *peer, const int *fds,
		   int nr_fds, struct open_target *t)
{
	int i, err;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	t->cgroup_fd = -1;
	switch (req->target) {
	case TGT_WORKLOAD:
	case TGT_PID:
	case TGT_TID:
		if (req->target == TGT_TID && !nr_fds)
			return tids_as_numbers(req, peer, t);
		if (nr_fds < 1 || (req->target == TGT_WORKLOAD && nr_fds != 1))
			return -EINVAL;
		for (i = 0; i < nr_fds; i++) {
			pid = pidfd_pid(fds[i]);
			if (pid < 0)
				return pid;
			if (req->target == TGT_PID) {
				err = add_threads(pid, t->tids, &t->nr_tids);
				if (err)
					return err;
			} else {
				t->tids[t->nr_tids++] = pid;
			}
		}
		if (req->target == TGT_WORKLOAD)
			t->exec_tgid = t->tids[0];
		return 0;
	case TGT_CPUS:
	case TGT_CGROUP:
		if (nr_fds != (req->target == TGT_CGROUP) || req->nr_ids > BPERF_PROTO_MAX_IDS)
			return -EINVAL;
		if (req->target == TGT_CGROUP) {
			err = resolve_cgroup(fds[0], t);
			if (err)
				return err;
		}
		if (!req->nr_ids) {
			t->nr_cpus = online_cpus(t->cpus, BPERF_PROTO_MAX_CPUS);
			return t->nr_cpus > 0 ? 0 : -ENODEV;
		}
		for (i = 0; i < (int)req->nr_ids; i++) {
			if (req->ids[i] < 0 || req->ids[i] >= BPERF_PROTO_MAX_CPUS)
				return -EINVAL;
			t->cpus[t->nr_cpus++] = req->ids[i];
		}
		return 0;
	}
	return -EINVAL;
}
