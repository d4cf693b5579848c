// SPDX-License-Identifier: GPL-2.0-only
#include "backend.h"

#include "../util/common.h"
#include "bpf/leader.h"
#include "bpf_prog_targets.h"

/* Why evsel's group cannot share a leader, or NULL: a group is shared as a whole or not. */
static const char *unshareable(const struct backend_request *req, const struct evsel *leader)
{
	int i, seen, nr = leader->nr_members > 1 ? leader->nr_members : 1;

	/* every member, wherever it stands in the evlist (as members[] finds them) */
	for (i = leader->idx, seen = 0; i < req->evlist->nr && seen < nr; i++) {
		const struct evsel *e = &req->evlist->entries[i];

		if (e->leader_idx != leader->idx)
			continue;
		seen++;
		if (e->tool)
			return "tool events are not perf events";
		if (e->requires_cpu)
			return "the PMU counts per CPU only";
		if (e->filter)
			return "a --filter needs the event's own perf events";
		if (e->hybrid)
			return "a hybrid PMU's event counts on that PMU's CPUs only";
		if (e->cgroup != leader->cgroup)
			return "a shared group counts in one cgroup";
	}
	if (leader->nr_members > LEADER_MAX_MEMBERS)
		return "the group has more members than a shared leader reads";
	if (req->per_thread)
		return "--per-thread needs per-thread counters";
	return NULL;
}

const struct counter_ops *counter_backend(const struct backend_request *req)
{
	const struct evsel *evsel = req->evsel;
	const char *why;

	if (req->bpf_progs && !evsel->tool) {
		if (evsel->bpf_prog_stat == BPF_PROG_STAT_RUN_TIME ||
		    (evsel->bpf_prog_stat == BPF_PROG_STAT_RUNS && req->bpf_progs->no_trampolines))
			return &bpf_stats_counter_ops;
		return &prog_profiler_counter_ops;
	}
	if (!req->shared)
		return &direct_counter_ops;
	why = unshareable(req, &req->evlist->entries[evsel->leader_idx]);
	if (!why)
		return req->no_caps ? &daemon_counter_ops : &shared_counter_ops;
	pr_debug(req->verbose, 1, "bperf: counting %s directly: %s", evsel->name, why);
	return &direct_counter_ops;
}
