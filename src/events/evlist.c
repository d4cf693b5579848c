// SPDX-License-Identifier: GPL-2.0-only
/* parse_events() and the evlist it fills; perf stat's default event set. */
#include "events/evlist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "events/parse_internal.h"
#include "events/cgroup.h"
#include "events/pmu.h"
#include "util/target.h"

int parse_event_string(struct parse_state *st, const char *str);

static void evsel_free_fields(struct evsel *e)
{
	free(e->name);
	free(e->pmu_name);
	free(e->cpumask);
	free(e->group_name);
	free(e->per_run_unit);
	free(e->filter);
	if (e->unit_owned)
		free((char *)e->unit);
}

static char *strdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void evlist_append_copy(struct evlist *evlist, const struct evsel *src)
{
	struct evsel e = *src;

	e.name = strdup_or_null(src->name);
	e.pmu_name = strdup_or_null(src->pmu_name);
	e.cpumask = strdup_or_null(src->cpumask);
	e.group_name = strdup_or_null(src->group_name);
	e.per_run_unit = strdup_or_null(src->per_run_unit);
	e.filter = strdup_or_null(src->filter);
	if (src->unit_owned)
		e.unit = strdup_or_null(src->unit);
	e.idx = evlist->nr;
	e.leader_idx = evlist->nr + (src->leader_idx - src->idx);
	evlist->entries = xrealloc(evlist->entries, sizeof(*evlist->entries) * (evlist->nr + 1));
	evlist->entries[evlist->nr++] = e;
}

static void append_evsels(struct evlist *evlist, struct evsel *evsels, int nr)
{
	evlist->entries = xrealloc(evlist->entries, sizeof(*evlist->entries) * (evlist->nr + nr));
	memcpy(evlist->entries + evlist->nr, evsels, sizeof(*evsels) * nr);
	evlist->nr += nr;
}

int parse_events(struct evlist *evlist, const char *str, const struct parse_events_ctx *ctx,
		 struct parse_events_error *err)
{
	struct parse_state st = {
		.input = str,
		.ctx = ctx,
		.err = err,
		.base_idx = evlist->nr,
	};
	int ret;

	if (err && !err->num_errors)
		err->idx = -1;
	st.pmus = pmu_set_new(ctx ? ctx->sysfs_root : NULL);
	st.pmus->verbose = ctx ? ctx->verbose : 0;
	ret = parse_event_string(&st, str);
	if (!ret && !st.nr) {
		fprintf(stderr, "WARNING: event parser found nothing\n");
		ret = -EINVAL;
	}
	if (!ret)
		append_evsels(evlist, st.evsels, st.nr);
	else
		for (int i = 0; i < st.nr; i++)
			evsel_free_fields(&st.evsels[i]);
	free(st.evsels);
	pmu_set_free(st.pmus);
	return ret ? -EINVAL : 0;
}

void evlist_free(struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr; i++)
		evsel_free_fields(&evlist->entries[i]);
	free(evlist->entries);
	evlist->entries = NULL;
	evlist->nr = 0;
	evlist_free_cgroups(evlist);
}

static const char *const hw_names[PERF_COUNT_HW_MAX] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches",
	"branch-misses", "bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend",
	"ref-cycles",
};

static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* perf's evsel__add_modifiers: the ":kuhpHG" suffix an attr implies */
static void add_modifiers(const struct perf_event_attr *a, char *bf, size_t size)
{
	size_t r = 0;
	bool colon = false, guest_default = false;

#define MOD(excl, c)                                              \
	do {                                                      \
		if (!(excl) && r + 2 < size) {                    \
			if (!colon) {                             \
				bf[r++] = ':';                    \
				colon = true;                     \
			}                                         \
			bf[r++] = (c);                            \
		}                                                 \
	} while (0)

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		MOD(a->exclude_kernel, 'k');
		MOD(a->exclude_user, 'u');
		MOD(a->exclude_hv, 'h');
		guest_default = true;
	}
	if (a->precise_ip) {
		for (unsigned int i = 0; i < a->precise_ip && i < 3; i++)
			MOD(0, 'p');
		guest_default = true;
	}
	if (a->exclude_host || a->exclude_guest == guest_default) {
		MOD(a->exclude_host, 'H');
		MOD(a->exclude_guest, 'G');
	}
#undef MOD
	bf[r] = '\0';
}

char *evsel_name_from_attr(const struct perf_event_attr *a)
{
	char mods[16];
	const char *base = NULL;

	if (a->type == PERF_TYPE_HARDWARE && a->config < PERF_COUNT_HW_MAX)
		base = hw_names[a->config];
	else if (a->type == PERF_TYPE_SOFTWARE && a->config < ARRAY_SIZE(sw_names))
		base = sw_names[a->config];
	if (!base)
		return xasprintf("unknown attr type: %u", a->type);
	add_modifiers(a, mods, sizeof(mods));
	return xasprintf("%s%s", base, mods);
}

static void add_default(struct evlist *evlist, uint32_t type, uint64_t config)
{
	struct evsel e;

	memset(&e, 0, sizeof(e));
	e.attr.type = type;
	e.attr.config = config;
	e.attr.exclude_guest = 1;
	e.attr.size = PERF_ATTR_SIZE_VER7;
	e.idx = evlist->nr;
	e.leader_idx = e.idx;
	e.nr_members = 1;
	e.name = evsel_name_from_attr(&e.attr);
	e.pmu_name = xstrdup(type == PERF_TYPE_HARDWARE ? "cpu" : "software");
	evsel_set_default_unit(&e);
	append_evsels(evlist, &e, 1);
}

static bool cpu_pmu_has_event(struct pmu_set *pmus, const char *event)
{
	struct pmu *cpu = pmu_find(pmus, "cpu");

	if (!cpu)
		return false;
	for (int i = 0; i < cpu->nr_aliases; i++)
		if (!strcmp(cpu->aliases[i].name, event))
			return true;
	return false;
}

int evlist_add_default(struct evlist *evlist, bool system_wide, const struct parse_events_ctx *ctx)
{
	struct pmu_set *pmus = pmu_set_new(ctx ? ctx->sysfs_root : NULL);
	struct parse_events_error err = { 0 };
	struct pmu *hybrid[2];
	int ret;

	add_default(evlist, PERF_TYPE_SOFTWARE,
		    system_wide ? PERF_COUNT_SW_CPU_CLOCK : PERF_COUNT_SW_TASK_CLOCK);
	add_default(evlist, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
	add_default(evlist, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
	add_default(evlist, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	/* perf 6.1 on a hybrid machine: these on each hybrid PMU */
	if (pmu_hybrid_list(pmus, hybrid, 2)) {
		pmu_set_free(pmus);
		ret = parse_events(evlist, "cycles,instructions,branches,branch-misses", ctx, &err);
		parse_events_error_free(&err);
		return ret;
	}
	add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	if (cpu_pmu_has_event(pmus, "stalled-cycles-frontend"))
		add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	if (cpu_pmu_has_event(pmus, "stalled-cycles-backend"))
		add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	add_default(evlist, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES);
	pmu_set_free(pmus);
	return 0;
}

void evlist_make_single_group(struct evlist *evlist)
{
	if (evlist->nr <= 0)
		return;
	for (int i = 0; i < evlist->nr; i++) {
		evlist->entries[i].leader_idx = evlist->entries[0].idx;
		evlist->entries[i].nr_members = 0;
		evlist->entries[i].in_group = evlist->nr > 1;
	}
	evlist->entries[0].nr_members = evlist->nr;
}

bool evlist_needs_system_wide(const struct evlist *evlist)
{
	for (int i = 0; i < evlist->nr; i++) {
		const struct evsel *e = &evlist->entries[i];

		if (!e->requires_cpu && strcmp(e->name ? e->name : "", "duration_time"))
			return false;
	}
	return evlist->nr > 0;
}

bool evsel_has_own_cpus(const struct evsel *e)
{
	return (e->hybrid || e->requires_cpu) && e->cpumask;
}

bool evsel_counts_on_cpu(const struct evsel *e, int cpu)
{
	struct cpu_map pmu_cpus;
	bool found;

	if (!evsel_has_own_cpus(e) || cpu < 0 || cpu_map_parse(&pmu_cpus, e->cpumask))
		return true;
	found = cpu_map_has(&pmu_cpus, cpu);
	cpu_map_free(&pmu_cpus);
	return found;
}
