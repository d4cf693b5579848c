// SPDX-License-Identifier: GPL-2.0-only
/* perf 6.1's --topdown: which topdown events the core PMU offers and the checks around them. */
#include "topdown.h"

#include <dirent.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/proc.h"

#define PMU_DEVICES "/sys/bus/event_source/devices"
#define NMI_WATCHDOG "/proc/sys/kernel/nmi_watchdog"

/* The older events (Sandy Bridge to Skylake, Atoms): counted per core, system-wide. */
static const char *const topdown_events[] = {
	"topdown-total-slots", "topdown-slots-retired", "topdown-recovery-bubbles",
	"topdown-fetch-bubbles", "topdown-slots-issued", NULL,
};

/* The perf-metrics events (Icelake on): slots with the level 1, then the level 2 metrics. */
static const char *const topdown_metric_events[] = {
	"slots", "topdown-retiring", "topdown-bad-spec", "topdown-fe-bound", "topdown-be-bound",
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat", "topdown-mem-bound",
	NULL,
};
#define TOPDOWN_L1_METRIC_EVENTS 5
#define TOPDOWN_L2_PROBE "topdown-heavy-ops"

bool topdown_pmu_has_event(const char *pmu, const char *event)
{
	char path[512];

	snprintf(path, sizeof(path), PMU_DEVICES "/%s/events/%s", pmu, event);
	return !access(path, F_OK);
}

/* On a hybrid machine perf takes --cputype's PMU, else cpu_core's events and says so. */
static const char *topdown_pmu(const struct stat_options *o, bool *hybrid)
{
	*hybrid = !access(PMU_DEVICES "/cpu_core", F_OK) || !access(PMU_DEVICES "/cpu_atom", F_OK);
	if (!*hybrid)
		return "cpu";
	if (o->cputype_pmu)
		return o->cputype_pmu;
	pr_err("WARNING: default to use cpu_core topdown events");
	return "cpu_core";
}

/*
 * The events of names[] (at most max of them) that the PMU has, comma-separated, in braces when
 * group; "" when it has none. Hybrid PMUs' events carry the PMU's name.
 */
static char *present_events(const char *const *names, int max, const char *pmu, bool hybrid,
			    bool group)
{
	size_t size = 3, len = 0;
	char *str;
	int i;

	for (i = 0; names[i] && i < max; i++)
		size += strlen(names[i]) + strlen(pmu) + 3;
	str = xzalloc(size);
	for (i = 0; names[i] && i < max; i++) {
		if (!topdown_pmu_has_event(pmu, names[i]))
			continue;
		len += snprintf(str + len, size - len, "%s%s%s%s%s", len ? "," : group ? "{" : "",
				hybrid ? pmu : "", hybrid ? "/" : "", names[i], hybrid ? "/" : "");
	}
	if (len && group)
		snprintf(str + len, size - len, "}");
	return str;
}

/* A watchdog takes a counter, so the older events go ungrouped then (with perf's warning). */
static bool watchdog_allows_group(bool *warn)
{
	*warn = nmi_watchdog_enabled();
	return !*warn && !access(NMI_WATCHDOG, R_OK);
}

static int add_topdown_string(struct stat_options *o, const char *str)
{
	struct parse_events_error err = { .idx = -1 };
	int ret = parse_events(&o->evlist, str, &o->events_ctx, &err);

	if (ret) {
		pr_err("Cannot set up top down events %s: %d", str, ret);
		parse_events_error_print_errors(stderr, str, &err);
	}
	parse_events_error_free(&err);
	return ret ? EXIT_EINVAL : 0;
}

/* The older events: per core, system-wide, in one group unless a watchdog holds a counter. */
static int add_slot_events(struct stat_options *o, const char *pmu, bool hybrid, bool cpu_target)
{
	bool warn, group;
	char *str;
	int ret;

	if (o->aggr_mode != AGGR_GLOBAL && o->aggr_mode != AGGR_CORE) {
		pr_err("top down event configuration requires --per-core mode");
		return EXIT_EINVAL;
	}
	o->aggr_mode = AGGR_CORE;
	if (o->evlist.nr_cgroup_args || !cpu_target) {
		pr_err("top down event configuration requires system-wide mode (-a)");
		return EXIT_EINVAL;
	}
	group = watchdog_allows_group(&warn);
	str = present_events(topdown_events, 64, pmu, hybrid, group);
	if (!*str) {
		free(str);
		pr_err("System does not support topdown");
		return EXIT_EINVAL;
	}
	if (warn)
		pr_err("nmi_watchdog enabled with topdown. May give wrong results.\n"
		       "Disable with echo 0 > /proc/sys/kernel/nmi_watchdog");
	ret = add_topdown_string(o, str);
	free(str);
	return ret;
}

/* perf's topdown_sys_has_perf_metrics(): the core PMU (type PERF_TYPE_RAW) has slots. */
static bool have_perf_metrics(void)
{
	bool found = false;
	struct dirent *de;
	char path[512], buf[32];
	DIR *d = opendir(PMU_DEVICES);

	while (d && !found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMU_DEVICES "/%s/type", de->d_name);
		if (read_text_file(path, buf, sizeof(buf)) < 0 || atoi(buf) != PERF_TYPE_RAW)
			continue;
		found = topdown_pmu_has_event(de->d_name, "slots");
	}
	if (d)
		closedir(d);
	return found;
}

int topdown_default_events_add(struct stat_options *o)
{
	bool hybrid = !access(PMU_DEVICES "/cpu_core", F_OK) ||
		      !access(PMU_DEVICES "/cpu_atom", F_OK);
	const char *pmu = !hybrid ? "cpu" : o->cputype_pmu ? o->cputype_pmu : "cpu_core";
	int nr = TOPDOWN_L1_METRIC_EVENTS, i;
	size_t len = 0;
	char str[512];

	if (!have_perf_metrics())
		return 0;
	if (topdown_pmu_has_event(pmu, TOPDOWN_L2_PROBE))
		nr = 64;
	/* every event, present or not; slots bare even on cpu_core, as perf writes them */
	for (i = 0; topdown_metric_events[i] && i < nr; i++)
		len += snprintf(str + len, sizeof(str) - len, "%s%s%s%s%s", i ? "," : "{",
				i && !strcmp(pmu, "cpu_core") ? pmu : "",
				i && !strcmp(pmu, "cpu_core") ? "/" : "", topdown_metric_events[i],
				i && !strcmp(pmu, "cpu_core") ? "/" : "");
	snprintf(str + len, sizeof(str) - len, "}");
	return add_topdown_string(o, str);
}

int topdown_events_add(struct stat_options *o, bool cpu_target)
{
	unsigned int max_level = 1;
	int nr = TOPDOWN_L1_METRIC_EVENTS;
	bool hybrid;
	const char *pmu = topdown_pmu(o, &hybrid);
	char *str;
	int ret;

	if (!o->metric_only_given)
		o->metric_only = true;
	if (topdown_pmu_has_event(pmu, TOPDOWN_L2_PROBE)) {
		nr = 64;
		max_level = 2;
	}
	if (o->td_level > max_level) {
		pr_err("Invalid top-down metrics level. The max level is %u.", max_level);
		return EXIT_EINVAL;
	}
	if (!o->td_level)
		o->td_level = max_level;
	str = present_events(topdown_metric_events, nr, pmu, hybrid, true);
	if (!*str) {
		free(str);
		return add_slot_events(o, pmu, hybrid, cpu_target);
	}
	/* goes to the counts' output, once the output is open */
	o->topdown_accuracy_note = !o->interval_ms && !o->metric_only;
	ret = add_topdown_string(o, str);
	free(str);
	return ret;
}
