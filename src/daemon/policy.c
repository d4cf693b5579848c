// SPDX-License-Identifier: GPL-2.0-only
/* The checks before the daemon counts anything for a client (policy.h). */
#include "policy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/common.h"

#define PMU_DEVICES "/sys/bus/event_source/devices"

/* PMUs whose events trace or probe rather than count: never served */
static const char *const refused_pmus[] = { "tracepoint", "kprobe", "uprobe", "breakpoint" };

/* A dynamic PMU type: served when a counting PMU in sysfs has it. */
static int check_pmu_type(__u32 type)
{
	DIR *dir = opendir(PMU_DEVICES);
	struct dirent *d;
	int err = -EOPNOTSUPP;
	size_t i;

	if (!dir)
		return -EOPNOTSUPP;
	while ((d = readdir(dir))) {
		char path[512], buf[32];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMU_DEVICES "/%s/type", d->d_name);
		if (read_text_file(path, buf, sizeof(buf)) || strtoul(buf, NULL, 10) != type)
			continue;
		err = 0;
		for (i = 0; i < ARRAY_SIZE(refused_pmus); i++)
			if (!strcmp(d->d_name, refused_pmus[i]))
				err = -EOPNOTSUPP;
		break;
	}
	closedir(dir);
	return err;
}

int policy_check_attr(const struct perf_event_attr *a)
{
	if (a->size > sizeof(*a) || a->__reserved_2 || a->sig_data)
		return -EINVAL;
	/* counting only: no sampling, no records, no signals, nothing that starts by itself */
	if (a->sample_period || a->freq || a->sample_type || a->sigtrap || a->enable_on_exec ||
	    a->mmap || a->mmap2 || a->mmap_data || a->comm || a->comm_exec || a->task ||
	    a->context_switch || a->namespaces || a->ksymbol || a->bpf_event || a->text_poke ||
	    a->build_id || a->cgroup || a->aux_output || a->watermark || a->wakeup_events ||
	    a->branch_sample_type || a->sample_regs_user || a->sample_regs_intr ||
	    a->sample_stack_user || a->aux_watermark || a->sample_max_stack || a->use_clockid ||
	    a->pinned || a->exclusive || a->inherit_thread || a->remove_on_exec || a->read_format)
		return -EOPNOTSUPP;
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return 0;
	case PERF_TYPE_SOFTWARE:
		return a->config < PERF_COUNT_SW_MAX && a->config != PERF_COUNT_SW_BPF_OUTPUT ?
		       0 : -EOPNOTSUPP;
	case PERF_TYPE_TRACEPOINT:
	case PERF_TYPE_BREAKPOINT:
		return -EOPNOTSUPP;
	}
	return check_pmu_type(a->type);
}

bool peer_in_group(const struct peer *p, gid_t gid)
{
	int i;

	if (p->gid == gid)
		return true;
	for (i = 0; i < p->nr_groups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

/* In the helper: the peer's identity, and no capability left (uid 0 would keep them). */
static int become_peer(const struct peer *p)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (setgroups(p->nr_groups, p->groups) || setresgid(p->gid, p->gid, p->gid) ||
	    setresuid(p->uid, p->uid, p->uid))
		return errno;
	if (syscall(SYS_capset, &hdr, none))
		return errno;
	return 0;
}

static int try_open(struct perf_event_attr *attr, pid_t pid, int cpu, unsigned long flags)
{
	int fd = (int)syscall(__NR_perf_event_open, attr, pid, cpu, -1,
			      flags | PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The helper's work: the exit status is 0 or the first errno. */
static int helper_main(const struct peer *p, const struct perf_event_attr *attr,
		       const struct policy_target *t)
{
	struct perf_event_attr a = *attr;
	int i, err;

	err = become_peer(p);
	if (err)
		return err;
	a.disabled = 1;
	for (i = 0; i < t->nr_tids; i++) {
		err = try_open(&a, t->tids[i], -1, 0);
		if (err)
			return err;
	}
	for (i = 0; i < t->nr_cpus; i++) {
		if (t->cgroup_fd >= 0)
			err = try_open(&a, t->cgroup_fd, t->cpus[i], PERF_FLAG_PID_CGROUP);
		else
			err = try_open(&a, -1, t->cpus[i], 0);
		if (err)
			return err;
	}
	return 0;
}

/* A pidfd for the helper (Linux 5.3): it polls readable once the helper has exited. */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The helper's status as a verdict: 0 or the kernel's -errno. */
static int verdict(int status)
{
	if (!WIFEXITED(status))
		return -EPERM;
	return -WEXITSTATUS(status);
}

static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return verdict(status);
}

int policy_check_start(const struct peer *p, const struct perf_event_attr *attr,
		       const struct policy_target *t, struct policy_job *job)
{
	pid_t pid;
	int err;

	job->pid = -1;
	job->pidfd = -1;
	pid = fork();
	if (pid == 0) {
		err = helper_main(p, attr, t);
		_exit(err > 0 && err < 256 ? err : err ? EPERM : 0);
	}
	if (pid < 0)
		return -errno;
	/* the helper is not reaped before its status is read, so its pid cannot be reused */
	job->pidfd = open_pidfd(pid);
	if (job->pidfd < 0)
		return reap(pid);	/* no pidfds: the wait is here, as before */
	job->pid = pid;
	return POLICY_PENDING;
}

int policy_check_end(struct policy_job *job)
{
	int err = reap(job->pid);

	close(job->pidfd);
	job->pid = -1;
	job->pidfd = -1;
	return err;
}

void policy_check_kill(const struct policy_job *job)
{
	if (job->pid > 0)
		kill(job->pid, SIGKILL);
}
