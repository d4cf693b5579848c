// SPDX-License-Identifier: GPL-2.0-only
/* perf stat's weak group fallback: a group the kernel refused is counted event by event. */
#include "weak_group.h"

#include <string.h>

#include "../util/common.h"
#include "../events/stat_config.h"
#include "topdown.h"

/* perf's arch_evsel__must_be_in_group(): with perf metrics, topdown events need their group. */
static bool must_stay_in_group(const struct evsel *e)
{
#if defined(__x86_64__) || defined(__i386__)
	if (e->attr.type != PERF_TYPE_RAW || !e->name)
		return false;
	if (!strcasestr(e->name, "slots") && !strcasestr(e->name, "topdown"))
		return false;
	return topdown_pmu_has_event(e->pmu_name ? e->pmu_name : "cpu", "slots");
#else
	return false;
#endif
}

void weak_group_reset(struct evlist *evlist, int leader_idx, bool *reset, int verbose)
{
	struct evsel *leader = &evlist->entries[leader_idx];
	/* the members were configured with the leader's options */
	bool on_exec = leader->attr.enable_on_exec;
	int i;

	pr_debug(verbose, 1, "Weak group for %s/%d failed", leader->name, leader->nr_members);
	for (i = leader_idx; i < evlist->nr; i++) {
		struct evsel *e = &evlist->entries[i];

		if (e->leader_idx != leader_idx)
			continue;
		reset[i] = true;
		if (e == leader || must_stay_in_group(e))
			continue;
		e->leader_idx = e->idx;
		e->nr_members = 1;
		e->in_group = false;
		leader->nr_members--;
		evsel_config_group_for_stat(e, on_exec);
	}
	leader->in_group = leader->nr_members > 1;
	evsel_config_group_for_stat(leader, on_exec);
}
