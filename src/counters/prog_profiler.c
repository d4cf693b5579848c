// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF-program profiler backend (bperf stat -b): for each target program, an fentry and an
 * fexit program (bpf/prog_profiler.bpf.c) read the event on the current CPU when the target
 * starts and returns, and add up the differences per CPU. The perf events themselves are opened
 * per CPU system-wide through the direct backend and handed to the BPF programs in a
 * PERF_EVENT_ARRAY. A bpf-prog-ID-runs evsel loads the fexit program alone, to count runs.
 *
 * Counts are kept per (CPU, program): the counter's thread dimension is the target programs.
 * Enabling attaches the programs, disabling detaches them.
 */
#include "prog_profiler.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../util/common.h"
#include "counter.h"
#include "prog_profiler.skel.h"
#include "bpf/prog_profiler.h"

/* The kernel's ENOTSUPP (not in user-space headers): no trampolines on this arch. */
#define KERNEL_ENOTSUPP 524

struct profiler_priv {
	struct prog_profiler_bpf **skels;	/* [nr_threads]: NULL for other programs */
	struct counter events;		/* the perf event on each CPU, opened directly */
	bool count_event;		/* false for a runs evsel */
	int nr_possible;
	int *cpu_idx_of;		/* [possible CPU]: index in the target's CPUs, or -1 */
	struct prog_profile *buf;	/* [possible CPU]: one lookup of totals */
	__u64 enabled_ns;		/* wall time of the enabled periods before enabled_at */
	__u64 enabled_at;		/* start of the current enabled period, 0 when disabled */
};

/* Refusals of the kernel, as opposed to errors about a program or of ours. */
static bool is_trampoline_refusal(int err)
{
	return err == EPERM || err == EOPNOTSUPP || err == KERNEL_ENOTSUPP || err == ENOTSUP;
}

/* Opens, configures and loads one skeleton on target (libbpf's messages from -v: bpf_log.c). */
static int load_skel(const struct bpf_prog_target *target, bool count_event,
		     struct prog_profiler_bpf **out)
{
	struct prog_profiler_bpf *skel;
	int err;

	skel = prog_profiler_bpf__open();
	if (!skel) {
		err = -errno;
		goto out;
	}
	skel->rodata->count_event = count_event;
	bpf_program__set_autoload(skel->progs.bperf_on_entry, count_event);
	err = bpf_map__set_max_entries(skel->maps.events, libbpf_num_possible_cpus());
	if (!err && count_event)
		err = bpf_program__set_attach_target(skel->progs.bperf_on_entry, target->fd,
						     target->func_name);
	if (!err)
		err = bpf_program__set_attach_target(skel->progs.bperf_on_exit, target->fd,
						     target->func_name);
	if (!err)
		err = prog_profiler_bpf__load(skel);
	if (err) {
		prog_profiler_bpf__destroy(skel);
		skel = NULL;
	}
out:
	*out = skel;
	return err;
}

int prog_profiler_probe(const struct bpf_prog_target *target, int *refusal)
{
	struct prog_profiler_bpf *skel;
	int err;

	*refusal = 0;
	err = load_skel(target, false, &skel);
	if (!err)
		err = prog_profiler_bpf__attach(skel);
	prog_profiler_bpf__destroy(skel);
	if (err && is_trampoline_refusal(-err)) {
		*refusal = -err;
		return 0;
	}
	if (err)
		pr_err("Failed to load a BPF profiler on bpf prog %u (%s): %s", target->id,
		       target->func_name, strerror(-err));
	return err;
}

static struct profiler_priv *priv_of(const struct counter *c)
{
	return c->priv;
}

/* A runs evsel profiles its own program only; an event, every target. */
static bool profiles_prog(const struct counter *c, int prog_idx)
{
	return c->evsel->bpf_prog_stat != BPF_PROG_STAT_RUNS || c->evsel->bpf_prog_idx == prog_idx;
}

static int load_all(struct counter *c, const struct open_ctx *ctx)
{
	const struct bpf_prog_targets *progs = ctx->bpf_progs;
	struct profiler_priv *p = xzalloc(sizeof(*p));
	int i, err;

	c->priv = p;
	p->count_event = c->evsel->bpf_prog_stat != BPF_PROG_STAT_RUNS;
	p->nr_possible = libbpf_num_possible_cpus();
	if (p->nr_possible < 0)
		return p->nr_possible;
	p->buf = xzalloc(p->nr_possible * sizeof(*p->buf));
	p->cpu_idx_of = xzalloc(p->nr_possible * sizeof(*p->cpu_idx_of));
	for (i = 0; i < p->nr_possible; i++)
		p->cpu_idx_of[i] = -1;
	for (i = 0; i < ctx->target->cpus.nr; i++)
		if (ctx->target->cpus.cpus[i] >= 0 && ctx->target->cpus.cpus[i] < p->nr_possible)
			p->cpu_idx_of[ctx->target->cpus.cpus[i]] = i;
	p->skels = xzalloc(progs->nr * sizeof(*p->skels));
	for (i = 0; i < progs->nr; i++) {
		if (!profiles_prog(c, i))
			continue;
		err = load_skel(&progs->progs[i], p->count_event, &p->skels[i]);
		if (err) {
			pr_err("Failed to load the BPF profiler of %s on bpf prog %u (%s): %s",
			       c->evsel->name, progs->progs[i].id, progs->progs[i].func_name,
			       strerror(-err));
			return -ECANCELED;
		}
	}
	if (!p->count_event)
		return 0;
	/* bpf_perf_event_read_value() refuses inherited events */
	c->evsel->attr.inherit = 0;
	p->events.evsel = c->evsel;
	p->events.ops = &direct_counter_ops;
	p->events.leader = &p->events;
	p->events.nr_cpus = c->nr_cpus;
	p->events.nr_threads = 1;
	p->events.supported = true;
	return 0;
}

static int install_event(struct counter *c, int cpu, int fd)
{
	struct profiler_priv *p = priv_of(c);
	int i;

	for (i = 0; i < c->nr_threads; i++) {
		if (!p->skels[i])
			continue;
		if (bpf_map_update_elem(bpf_map__fd(p->skels[i]->maps.events), &cpu, &fd, BPF_ANY)) {
			pr_err("Failed to give the %s event of CPU %d to the BPF profiler: %s",
			       c->evsel->name, cpu, strerror(errno));
			return -ECANCELED;
		}
	}
	return 0;
}

static int profiler_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	struct profiler_priv *p;
	int err;

	if (ctx->bpf_progs->no_trampolines)
		return -EOPNOTSUPP;
	if (!c->priv) {
		err = load_all(c, ctx);
		if (err)
			return err;
	}
	p = priv_of(c);
	if (!p->count_event)
		return 0;
	err = direct_counter_ops.open_cpu(&p->events, ctx, cpu_idx);
	if (err)
		return err;
	return install_event(c, ctx->target->cpus.cpus[cpu_idx],
			     direct_counter_fd(&p->events, cpu_idx, 0));
}

static int profiler_disable(struct counter *c);

static int profiler_enable(struct counter *c)
{
	struct profiler_priv *p = priv_of(c);
	int i, err;

	if (!p || p->enabled_at)
		return 0;
	if (p->count_event) {
		err = direct_counter_ops.enable(&p->events);
		if (err)
			return err;
	}
	p->enabled_at = now_ns();
	for (i = 0; i < c->nr_threads; i++) {
		if (!p->skels[i])
			continue;
		err = prog_profiler_bpf__attach(p->skels[i]);
		if (err) {
			pr_err("Failed to attach the BPF profiler of %s: %s", c->evsel->name,
			       strerror(-err));
			profiler_disable(c);
			return -ECANCELED;
		}
	}
	return 0;
}

static int profiler_disable(struct counter *c)
{
	struct profiler_priv *p = priv_of(c);
	int i;

	if (!p || !p->enabled_at)
		return 0;
	for (i = 0; i < c->nr_threads; i++)
		if (p->skels[i])
			prog_profiler_bpf__detach(p->skels[i]);
	p->enabled_ns += now_ns() - p->enabled_at;
	p->enabled_at = 0;
	return p->count_event ? direct_counter_ops.disable(&p->events) : 0;
}

/*
 * One (CPU, program) count. As in upstream perf, an event's times enabled and running are
 * those of the runs: what the event's own times grew by from entry to exit (so the run-time
 * column is the time the program ran, and multiplexed events scale as in direct counting). A
 * runs evsel has no event to time: its times are the wall time counted.
 */
static void fill_count(struct raw_count *r, const struct prog_profile *pp, bool count_event,
		       __u64 wall_ns)
{
	if (!count_event) {
		r->val = pp->runs;
		r->ena = r->run = wall_ns;
		return;
	}
	r->val = pp->counter;
	r->ena = pp->enabled;
	r->run = pp->running;
}

static int profiler_read(struct counter *c)
{
	struct profiler_priv *p = priv_of(c);
	__u64 wall_ns;
	__u32 zero = 0;
	int i, cpu, err = 0;

	if (!p)
		return 0;
	wall_ns = p->enabled_ns + (p->enabled_at ? now_ns() - p->enabled_at : 0);
	memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
	for (i = 0; i < c->nr_threads; i++) {
		if (!p->skels[i])
			continue;
		if (bpf_map_lookup_elem(bpf_map__fd(p->skels[i]->maps.totals), &zero, p->buf)) {
			if (!err)
				err = -errno;
			continue;
		}
		for (cpu = 0; cpu < p->nr_possible; cpu++) {
			int cpu_idx = p->cpu_idx_of[cpu];

			if (cpu_idx >= 0)
				fill_count(counter_count(c, cpu_idx, i), &p->buf[cpu],
					   p->count_event, wall_ns);
		}
	}
	return err;
}

static void profiler_close(struct counter *c)
{
	struct profiler_priv *p = priv_of(c);
	int i;

	if (!p)
		return;
	if (p->skels)
		for (i = 0; i < c->nr_threads; i++)
			prog_profiler_bpf__destroy(p->skels[i]);
	direct_counter_ops.close(&p->events);
	free(p->skels);
	free(p->buf);
	free(p->cpu_idx_of);
	free(p);
	c->priv = NULL;
}

const struct counter_ops prog_profiler_counter_ops = {
	.name = "bpf-prog profiler",
	.per_program = true,
	.open_cpu = profiler_open_cpu,
	.enable = profiler_enable,
	.disable = profiler_disable,
	.read = profiler_read,
	.close = profiler_close,
};
