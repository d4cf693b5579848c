// SPDX-License-Identifier: GPL-2.0-only
/* perf's add_default_attributes() for the metric options: which events each one adds. */
#include "metric_events.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "topdown.h"

#define FREEZE_ON_SMI "/sys/devices/cpu/freeze_on_smi"

/* -T: the full set needs cycles-ct and el-start, else the limited one (as perf picks) */
static const char transaction_events[] =
	"task-clock,{instructions,cycles,cpu/cycles-t/,cpu/tx-start/,cpu/el-start/,"
	"cpu/cycles-ct/}";
static const char transaction_limited_events[] =
	"task-clock,{instructions,cycles,cpu/cycles-t/,cpu/tx-start/}";
static const char smi_cost_events[] = "{msr/aperf/,msr/smi/,cycles}";

static const char *const detailed_events[] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,iTLB-loads,"
	"iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

static bool pmu_has_event(const char *pmu, const char *event)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/events/%s", pmu, event);
	return !access(path, F_OK);
}

/* Parses events into the evlist; a failure prints perf's error block for shown_str. */
static int add_events(struct stat_options *o, const char *str, const char *shown_str,
		      const char *failure)
{
	struct parse_events_error err = { .idx = -1 };
	int ret = parse_events(&o->evlist, str, &o->events_ctx, &err);

	if (ret) {
		if (failure)
			pr_err("%s", failure);
		parse_events_error_print_errors(stderr, shown_str, &err);
	}
	parse_events_error_free(&err);
	return ret;
}

static int add_transaction_events(struct stat_options *o)
{
	const char *str = transaction_limited_events;

	if (pmu_has_event("cpu", "cycles-ct") && pmu_has_event("cpu", "el-start"))
		str = transaction_events;
	/* perf shows the full string in the error, whichever it parsed */
	if (add_events(o, str, transaction_events, "Cannot set up transaction events"))
		return EXIT_EINVAL;
	return 0;
}

static int add_smi_cost_events(struct stat_options *o)
{
	char buf[16];
	FILE *f;

	if (read_text_file(FREEZE_ON_SMI, buf, sizeof(buf)) < 0) {
		pr_err("freeze_on_smi is not supported.");
		return EXIT_EINVAL;
	}
	if (!strcmp(buf, "0")) {
		f = fopen(FREEZE_ON_SMI, "w");
		if (!f || fputs("1", f) < 0 || fclose(f)) {
			pr_err("Failed to set freeze_on_smi.");
			return EXIT_EINVAL;
		}
		o->smi_reset = true;
	}
	if (!pmu_has_event("msr", "aperf") || !pmu_has_event("msr", "smi")) {
		pr_err("To measure SMI cost, it needs msr/aperf/, msr/smi/ and cpu/cycles/ support");
		return EXIT_EINVAL;
	}
	if (!o->metric_only_given)
		o->metric_only = true;
	if (add_events(o, smi_cost_events, smi_cost_events, "Cannot set up SMI cost events"))
		return EXIT_EINVAL;
	return 0;
}

int metric_events_add(struct stat_options *o, bool cpu_target)
{
	/* perf reports an unknown metric and counts on without it */
	if (o->metrics) {
		o->metric_set.system_wide = o->system_wide || (cpu_target && !o->cpu_list);
		o->metric_set.cpu_list = o->cpu_list;
		metric_set_add(&o->metric_set, o->metrics, &o->evlist, &o->events_ctx);
	}
	if (o->null_run)
		return 0;
	if (o->transaction)
		return add_transaction_events(o);
	/* as perf, --smi-cost leaves --topdown out */
	if (o->smi_cost)
		return add_smi_cost_events(o);
	if (o->topdown) {
		int err = topdown_events_add(o, cpu_target);

		if (err)
			return err;
	}
	/* the level topdown metrics print at, --topdown or not */
	if (!o->td_level)
		o->td_level = TOPDOWN_MAX_LEVEL;
	return 0;
}

int detailed_events_add(struct stat_options *o)
{
	int i;

	if (o->null_run || o->transaction)
		return 0;
	for (i = 0; i < o->detailed && i < (int)ARRAY_SIZE(detailed_events); i++)
		if (add_events(o, detailed_events[i], detailed_events[i], NULL))
			return EXIT_FATAL;
	return 0;
}

void metric_events_cleanup(struct stat_options *o)
{
	FILE *f;

	if (!o->smi_reset)
		return;
	f = fopen(FREEZE_ON_SMI, "w");
	if (f) {
		fputs("0", f);
		fclose(f);
	}
	o->smi_reset = false;
}
