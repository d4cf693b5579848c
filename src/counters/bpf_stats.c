// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel BPF statistics backend (bperf stat -b without trampolines): how many times a
 * program ran and for how long, from bpf_prog_info's run_cnt and run_time_ns, which the kernel
 * keeps while a BPF_ENABLE_STATS fd is open. Each counter holds its own fd, for the session only.
 * The counts are differences since enable, so statistics already on (kernel.bpf_stats_enabled)
 * do not matter. They land on the first CPU, in the program's column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "../util/common.h"
#include "bpf_prog_targets.h"
#include "counter.h"

struct stats_priv {
	int stats_fd;
	int prog_fd;
	__u64 base;		/* the statistic at the last enable */
	__u64 total;		/* its growth over the enabled periods before */
	__u64 enabled_ns;
	__u64 enabled_at;	/* 0 when disabled */
};

static int read_stat(const struct counter *c, __u64 *value)
{
	const struct stats_priv *p = c->priv;
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(p->prog_fd, &info, &len))
		return -errno;
	*value = c->evsel->bpf_prog_stat == BPF_PROG_STAT_RUN_TIME ? info.run_time_ns :
								    info.run_cnt;
	return 0;
}

static int stats_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	struct stats_priv *p;

	if (cpu_idx)
		return 0;
	p = xzalloc(sizeof(*p));
	p->prog_fd = ctx->bpf_progs->progs[c->evsel->bpf_prog_idx].fd;
	p->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (p->stats_fd < 0) {
		pr_err("Failed to enable kernel BPF statistics: %s", strerror(errno));
		free(p);
		return -ECANCELED;
	}
	c->priv = p;
	return 0;
}

static int stats_enable(struct counter *c)
{
	struct stats_priv *p = c->priv;
	int err;

	if (!p || p->enabled_at)
		return 0;
	err = read_stat(c, &p->base);
	if (!err)
		p->enabled_at = now_ns();
	return err;
}

static int stats_disable(struct counter *c)
{
	struct stats_priv *p = c->priv;
	__u64 now;
	int err;

	if (!p || !p->enabled_at)
		return 0;
	err = read_stat(c, &now);
	if (!err)
		p->total += now - p->base;
	p->enabled_ns += now_ns() - p->enabled_at;
	p->enabled_at = 0;
	return err;
}

static int stats_read(struct counter *c)
{
	struct stats_priv *p = c->priv;
	struct raw_count *r;
	__u64 now = 0;
	int err;

	if (!p)
		return 0;
	memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
	err = p->enabled_at ? read_stat(c, &now) : 0;
	if (err)
		return err;
	r = counter_count(c, 0, c->evsel->bpf_prog_idx);
	r->val = p->total + (p->enabled_at ? now - p->base : 0);
	r->ena = r->run = p->enabled_ns + (p->enabled_at ? now_ns() - p->enabled_at : 0);
	return 0;
}

static void stats_close(struct counter *c)
{
	struct stats_priv *p = c->priv;

	if (!p)
		return;
	close(p->stats_fd);
	free(p);
	c->priv = NULL;
}

const struct counter_ops bpf_stats_counter_ops = {
	.name = "kernel BPF statistics",
	.per_program = true,
	.open_cpu = stats_open_cpu,
	.enable = stats_enable,
	.disable = stats_disable,
	.read = stats_read,
	.close = stats_close,
};
