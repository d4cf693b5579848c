// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check: who holds the counters. The leaders the attr map names (their events live in BPF
 * maps, with no fd anywhere), then every perf event file open on the host, from a task_file
 * iterator (bpf/perf_holders.bpf.c), summed up by process and event: a server with a profiler
 * on 256 CPUs gets one line for its 256 cycles events, not 256.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "counters/leader_list.h"
#include "events/evlist.h"
#include "bpf/perf_holders.h"
#include "perf_holders.skel.h"

/* One process's events of one kind. */
struct holder_sum {
	__u32 tgid;
	char comm[16];
	char *event;
	int nr;			/* fds */
	int nr_cpu_wide;	/* of them, bound to a CPU (else to a task) */
	__u64 enabled, running;
};

struct holder_sums {
	struct holder_sum *list;
	int nr;
};

/*
 * A name for type and config: perf's for generic events (with attr's modifiers where it is
 * known), rNNN, else PMU/config=N/ where the PMU is known (its name, or type N).
 */
static char *event_label(__u32 type, __u64 config, const struct perf_event_attr *attr,
			 const char *pmu)
{
	/* exclude_guest: perf's plain name, no modifiers (an open event's are not read) */
	struct perf_event_attr a = { .type = type, .config = config, .exclude_guest = 1 };

	if (type == PERF_TYPE_HARDWARE || type == PERF_TYPE_SOFTWARE) {
		if (attr) {
			/* the user's modifiers (:u), not perf's default host-and-guest :HG */
			a = *attr;
			a.exclude_guest = 1;
		}
		if ((type == PERF_TYPE_HARDWARE && config < PERF_COUNT_HW_MAX) ||
		    (type == PERF_TYPE_SOFTWARE && config < PERF_COUNT_SW_MAX))
			return evsel_name_from_attr(&a);
	}
	if (type == PERF_TYPE_RAW)
		return xasprintf("r%llx", (unsigned long long)config);
	if (pmu && *pmu)
		return xasprintf("%s/config=0x%llx/", pmu, (unsigned long long)config);
	return xasprintf("type %u config 0x%llx", type, (unsigned long long)config);
}

static const char *key_type_name(enum leader_key_type t)
{
	return t == LEADER_KEY_GROUP ? "a group's key" : t == LEADER_KEY_MEMBER ? "a member key" :
									      "an event key";
}

static void report_leaders(struct check_ctx *ctx)
{
	struct leader_summary *list;
	int nr, err = leader_list(ctx->attr_map, &list, &nr);

	if (err == -ENOENT) {
		check_add(&ctx->report, "leaders", CHECK_INFO, "none: no attr map at %s",
			  ctx->attr_map);
		return;
	}
	if (err && !nr) {
		check_add(&ctx->report, "leaders", CHECK_WARN, "cannot read the attr map %s: %s",
			  ctx->attr_map, strerror(-err));
		return;
	}
	check_add(&ctx->report, "leaders", CHECK_INFO, "%d in %s", nr, ctx->attr_map);
	for (int i = 0; i < nr; i++) {
		const struct leader_summary *s = &list[i];
		char *name = event_label(s->attr.type, s->attr.config, &s->attr, NULL);

		if (!s->alive)
			check_add(&ctx->report, "leader", CHECK_INFO, "%s (%s): link %u is gone",
				  name, key_type_name(s->key_type), s->link_id);
		else if (!s->ours)
			check_add(&ctx->report, "leader", CHECK_INFO,
				  "%s: link %u, upstream perf's leader", name, s->link_id);
		else
			check_add(&ctx->report, "leader", CHECK_INFO,
				  "%s (%s): link %u, bperf's, %u member%s, %u session%s", name,
				  key_type_name(s->key_type), s->link_id, s->nr_members,
				  s->nr_members == 1 ? "" : "s", s->nr_sessions,
				  s->nr_sessions == 1 ? "" : "s");
		free(name);
	}
	free(list);
}

static void add_holder(struct holder_sums *sums, const struct perf_holder *h)
{
	char *event = event_label(h->type, h->config, NULL, h->pmu);
	struct holder_sum *s = NULL;

	for (int i = 0; i < sums->nr && !s; i++)
		if (sums->list[i].tgid == h->tgid && !strcmp(sums->list[i].event, event))
			s = &sums->list[i];
	if (s) {
		free(event);
	} else {
		sums->list = xgrow(sums->list, sums->nr, sizeof(*sums->list));
		s = &sums->list[sums->nr++];
		memset(s, 0, sizeof(*s));
		s->tgid = h->tgid;
		memcpy(s->comm, h->comm, sizeof(s->comm) - 1);
		s->event = event;
	}
	s->nr++;
	s->nr_cpu_wide += h->cpu >= 0;
	s->enabled += h->time_enabled;
	s->running += h->time_running;
}

/* Runs the iterator to its end: 0, or -errno. */
static int read_holders(struct holder_sums *sums)
{
	struct perf_holders_bpf *skel = perf_holders_bpf__open_and_load();
	struct bpf_link *link = NULL;
	struct perf_holder rec;
	int fd = -1, err = 0;
	ssize_t n;

	if (!skel)
		return -errno;
	link = bpf_program__attach_iter(skel->progs.list_perf_events, NULL);
	if (!link || (fd = bpf_iter_create(bpf_link__fd(link))) < 0) {
		err = -errno;
		goto out;
	}
	while ((n = read(fd, &rec, sizeof(rec))) == sizeof(rec))
		add_holder(sums, &rec);
	if (n < 0)
		err = -errno;
	close(fd);
out:
	bpf_link__destroy(link);
	perf_holders_bpf__destroy(skel);
	return err;
}

static void report_holders(struct check_ctx *ctx)
{
	struct holder_sums sums = { 0 };
	int err = read_holders(&sums), total = 0, processes = 0;

	/* a process's sums are next to each other: the iterator visits its files together */
	for (int i = 0; i < sums.nr; i++) {
		total += sums.list[i].nr;
		processes += !i || sums.list[i].tgid != sums.list[i - 1].tgid;
	}
	if (err)
		check_add(&ctx->report, "holders", CHECK_WARN,
			  "the task_file iterator failed (%s): open perf events not listed",
			  strerror(-err));
	else
		check_add(&ctx->report, "holders", CHECK_INFO,
			  "%d perf event%s open in %d process%s' fds", total, total == 1 ? "" : "s",
			  processes, processes == 1 ? "" : "es");
	for (int i = 0; i < sums.nr; i++) {
		const struct holder_sum *s = &sums.list[i];

		check_add(&ctx->report, "holder", CHECK_INFO,
			  "pid %u (%s): %d x %s, %d per CPU, %d per task, running %.0f%%", s->tgid,
			  s->comm, s->nr, s->event, s->nr_cpu_wide, s->nr - s->nr_cpu_wide,
			  s->enabled ? 100.0 * s->running / s->enabled : 100.0);
		free(s->event);
	}
	free(sums.list);
}

void check_holders(struct check_ctx *ctx)
{
	if (!ctx->machine.bpf_root) {
		check_add(&ctx->report, "holders", CHECK_SKIP,
			  "listing leaders and others' perf events needs root (CAP_SYS_ADMIN)");
		return;
	}
	report_leaders(ctx);
	report_holders(ctx);
}
