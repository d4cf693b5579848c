// SPDX-License-Identifier: GPL-2.0-only
/* The direct backend: one perf_event fd per (CPU, thread), read with read(2). */
#include "counter.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/common.h"

struct direct_priv {
	int *fds;	/* [cpu_idx * nr_threads + thread_idx], -1 when not open */
	__u64 *ids;	/* PERF_EVENT_IOC_ID of each fd, to find our value in a group read */
};

static const char dash_line[] = "------------------------------------------------------------";

static struct direct_priv *priv_of(const struct counter *c)
{
	return c->priv;
}

static struct direct_priv *priv_get(struct counter *c)
{
	struct direct_priv *p = c->priv;
	int i, n = c->nr_cpus * c->nr_threads;

	if (p)
		return p;
	p = xzalloc(sizeof(*p));
	p->fds = xzalloc(n * sizeof(*p->fds));
	p->ids = xzalloc(n * sizeof(*p->ids));
	for (i = 0; i < n; i++)
		p->fds[i] = -1;
	c->priv = p;
	return p;
}

int direct_counter_fd(const struct counter *c, int cpu_idx, int thread_idx)
{
	const struct direct_priv *p = priv_of(c);

	return p ? p->fds[cpu_idx * c->nr_threads + thread_idx] : -1;
}

bool open_error_is_unsupported(int err)
{
	return err == -EINVAL || err == -ENOSYS || err == -ENOENT || err == -EOPNOTSUPP ||
	       err == -ENXIO;
}

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags)
{
	return (int)syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/* perf's pr_debug2_peo(): at -vv, or always under --debug perf-event-open */
static bool trace_opens(const struct open_ctx *ctx)
{
	return ctx->verbose >= 2 || ctx->trace_opens;
}

static void close_cpu(struct counter *c, int cpu_idx)
{
	struct direct_priv *p = priv_of(c);
	int t;

	for (t = 0; t < c->nr_threads; t++) {
		int *fd = &p->fds[cpu_idx * c->nr_threads + t];

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

/* One attempt on every thread of a CPU, traced like perf's -vv. */
static int try_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	struct direct_priv *p = priv_of(c);
	int cpu = ctx->target->cpus.cpus[cpu_idx];
	unsigned long flags = ctx->missing->cloexec ? 0 : PERF_FLAG_FD_CLOEXEC;
	int t;

	/* a hybrid copy or an uncore event is opened on its PMU's CPUs only */
	if (!evsel_counts_on_cpu(c->evsel, cpu))
		return 0;
	if (trace_opens(ctx)) {
		fprintf(ctx->log, "%s\n", dash_line);
		perf_event_attr_fprintf(ctx->log, &c->evsel->attr);
		fprintf(ctx->log, "%s\n", dash_line);
	}
	/* -G: the cgroup's directory fd goes in place of the pid */
	if (c->evsel->cgroup)
		flags |= PERF_FLAG_PID_CGROUP;
	for (t = 0; t < c->nr_threads; t++) {
		pid_t pid = c->evsel->cgroup ? c->evsel->cgroup->fd : ctx->target->threads.tids[t];
		int group_fd = -1, fd;

		if (c->leader != c)
			group_fd = direct_counter_fd(c->leader, cpu_idx, t);
		if (trace_opens(ctx))
			fprintf(ctx->log, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx",
				pid, cpu, group_fd, flags);
		fd = sys_perf_event_open(&c->evsel->attr, pid, cpu, group_fd, flags);
		if (fd < 0) {
			int err = -errno;

			if (trace_opens(ctx))
				fprintf(ctx->log, "\nsys_perf_event_open failed, error %d\n", err);
			if (err == -ESRCH && ctx->ignore_missing_thread && c->nr_threads > 1)
				continue;
			close_cpu(c, cpu_idx);
			return err;
		}
		if (trace_opens(ctx))
			fprintf(ctx->log, " = %d\n", fd);
		p->fds[cpu_idx * c->nr_threads + t] = fd;
		if (ioctl(fd, PERF_EVENT_IOC_ID, &p->ids[cpu_idx * c->nr_threads + t]) < 0)
			p->ids[cpu_idx * c->nr_threads + t] = 0;
	}
	return 0;
}

/*
 * perf's retries after EINVAL, in its order: drop the close-on-exec flag,
 * then exclude_guest/exclude_host, then sample_id_all. Each is announced
 * once per command; exclude_guest is dropped again silently for later
 * events that still ask for it.
 */
static bool retry_without_missing_feature(struct counter *c, struct open_ctx *ctx)
{
	struct perf_event_attr *attr = &c->evsel->attr;

	if (!ctx->missing->cloexec) {
		ctx->missing->cloexec = true;
		if (trace_opens(ctx))
			pr_err("switching off cloexec flag");
		return true;
	}
	if (attr->exclude_guest || attr->exclude_host) {
		if (!ctx->missing->exclude_guest && trace_opens(ctx))
			pr_err("switching off exclude_guest, exclude_host");
		ctx->missing->exclude_guest = true;
		attr->exclude_guest = 0;
		attr->exclude_host = 0;
		return true;
	}
	if (!ctx->missing->sample_id_all) {
		ctx->missing->sample_id_all = true;
		attr->sample_id_all = 0;
		if (trace_opens(ctx))
			pr_err("switching off sample_id_all");
		return true;
	}
	return false;
}

static int direct_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	int err;

	priv_get(c);
	for (;;) {
		err = try_open_cpu(c, ctx, cpu_idx);
		if (err != -EINVAL || !retry_without_missing_feature(c, ctx))
			return err;
	}
}

static int for_each_fd_ioctl(struct counter *c, unsigned long request)
{
	struct direct_priv *p = priv_of(c);
	int i, n = c->nr_cpus * c->nr_threads;

	if (!p)
		return 0;
	for (i = 0; i < n; i++)
		if (p->fds[i] >= 0 && ioctl(p->fds[i], request, 0) < 0)
			return -errno;
	return 0;
}

static int direct_enable(struct counter *c)
{
	return for_each_fd_ioctl(c, PERF_EVENT_IOC_ENABLE);
}

static int direct_disable(struct counter *c)
{
	return for_each_fd_ioctl(c, PERF_EVENT_IOC_DISABLE);
}

/* Parses one read(2) of fd into *out, according to the attr's read_format. */
static int read_one(const struct counter *c, int fd, __u64 id, struct raw_count *out)
{
	__u64 fmt = c->evsel->attr.read_format;
	__u64 buf[3 + 2 * 64 + 8];
	ssize_t n;
	__u64 i, nr;
	int pos;

	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return -errno;
	if (n < (ssize_t)sizeof(__u64))
		return -EIO;
	if (!(fmt & PERF_FORMAT_GROUP)) {
		pos = 0;
		out->val = buf[pos++];
		out->ena = fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? buf[pos++] : 0;
		out->run = fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? buf[pos++] : 0;
		return 0;
	}
	nr = buf[0];
	/*
	 * perf reads a group with a buffer sized for every member it put in
	 * it; when one could not be opened the kernel's smaller answer makes
	 * the read fail, and the whole group is <not counted>. Do the same.
	 */
	if (nr != (__u64)c->leader->evsel->nr_members)
		return -ENOSPC;
	pos = 1;
	out->ena = fmt & PERF_FORMAT_TOTAL_TIME_ENABLED ? buf[pos++] : 0;
	out->run = fmt & PERF_FORMAT_TOTAL_TIME_RUNNING ? buf[pos++] : 0;
	for (i = 0; i < nr && (pos + 2) * sizeof(__u64) <= (size_t)n; i++, pos += 2) {
		if (!(fmt & PERF_FORMAT_ID) || buf[pos + 1] == id) {
			out->val = buf[pos];
			return 0;
		}
	}
	return -ENOENT;
}

static int direct_read(struct counter *c)
{
	struct direct_priv *p = priv_of(c);
	int i, n = c->nr_cpus * c->nr_threads, err, first_err = 0;

	if (!p)
		return 0;
	for (i = 0; i < n; i++) {
		if (p->fds[i] < 0)
			continue;
		err = read_one(c, p->fds[i], p->ids[i], &c->counts[i]);
		if (err && !first_err)
			first_err = err;
	}
	return first_err;
}

static int direct_set_filter(struct counter *c, const char *filter)
{
	struct direct_priv *p = priv_of(c);
	int i, n = c->nr_cpus * c->nr_threads;

	for (i = 0; p && i < n; i++)
		if (p->fds[i] >= 0 && ioctl(p->fds[i], PERF_EVENT_IOC_SET_FILTER, filter) < 0)
			return -errno;
	return 0;
}

static void direct_close(struct counter *c)
{
	struct direct_priv *p = priv_of(c);
	int cpu;

	if (!p)
		return;
	for (cpu = 0; cpu < c->nr_cpus; cpu++)
		close_cpu(c, cpu);
	free(p->fds);
	free(p->ids);
	free(p);
	c->priv = NULL;
}

const struct counter_ops direct_counter_ops = {
	.name = "direct",
	.user_fallback = true,
	.weak_groups = true,
	.open_cpu = direct_open_cpu,
	.enable = direct_enable,
	.disable = direct_disable,
	.read = direct_read,
	.set_filter = direct_set_filter,
	.close = direct_close,
};
