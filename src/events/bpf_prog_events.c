// SPDX-License-Identifier: GPL-2.0-only
/*
 * The evsels bperf stat -b adds for each program: its runs and, without trampolines, its run
 * time. They are printed like events but counted by the BPF-program backends, never opened as
 * perf events.
 */
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "events/evlist.h"

static struct evsel *append_synthetic(struct evlist *evlist, char *name)
{
	struct evsel *e;

	evlist->entries = xrealloc(evlist->entries, sizeof(*e) * (evlist->nr + 1));
	e = &evlist->entries[evlist->nr];
	memset(e, 0, sizeof(*e));
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_DUMMY;
	e->attr.size = PERF_ATTR_SIZE_VER7;
	e->name = name;
	e->unit = "";
	e->scale = 1.0;
	e->idx = evlist->nr;
	e->leader_idx = e->idx;
	e->nr_members = 1;
	evlist->nr++;
	return e;
}

/*
 * Events counted in nanoseconds (printed in msec) average to ns per run; "msr/tsc/" takes
 * words, not another slash.
 */
static char *per_run_unit(const struct evsel *e)
{
	size_t len = strlen(e->name);

	if (e->scale == 1e-6 && e->unit && !strcmp(e->unit, "msec"))
		return xasprintf("%s ns/run", e->name);
	if (len && e->name[len - 1] == '/')
		return xasprintf("%s per run", e->name);
	return xasprintf("%s/run", e->name);
}

void evlist_add_bpf_prog_stats(struct evlist *evlist, int prog_idx, unsigned int id,
			       bool run_time)
{
	struct evsel *e;
	int i;

	e = append_synthetic(evlist, xasprintf("bpf-prog-%u-runs", id));
	e->bpf_prog_stat = BPF_PROG_STAT_RUNS;
	e->bpf_prog_idx = prog_idx;
	if (run_time) {
		e = append_synthetic(evlist, xasprintf("bpf-prog-%u-run-time", id));
		e->bpf_prog_stat = BPF_PROG_STAT_RUN_TIME;
		e->bpf_prog_idx = prog_idx;
		e->unit = "msec";
		e->scale = 1e-6;
	}
	for (i = 0; i < evlist->nr; i++) {
		e = &evlist->entries[i];
		if (!e->per_run_unit && !e->tool && e->bpf_prog_stat != BPF_PROG_STAT_RUNS)
			e->per_run_unit = per_run_unit(e);
	}
}
