/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --topdown and --td-level as perf 6.1 chooses them: the perf-metrics events (slots and
 * topdown-retiring, ..., level 2's topdown-heavy-ops, ...) where the core PMU has them in sysfs,
 * else the older topdown-total-slots, ... counted per core system-wide; refused where the core
 * PMU has neither.
 */
#ifndef BPERF_TOPDOWN_H
#define BPERF_TOPDOWN_H

#include <stdbool.h>

#include "options.h"

/* The highest --td-level perf knows; the level metrics print at without --topdown. */
#define TOPDOWN_MAX_LEVEL 2

/*
 * Adds --topdown's events to o->evlist and sets what comes with them (--metric-only unless
 * --[no-]metric-only was given, --per-core for the older events, the level). cpu_target: counting
 * CPUs (-a, -C, no workload). Returns 0, or the exit code after perf's message.
 */
int topdown_events_add(struct stat_options *o, bool cpu_target);

/*
 * perf's x86 default events end with the topdown group where the core PMU has perf metrics
 * ("slots"): {slots,topdown-retiring,...}, level 2's too where it has them. 0 or an exit code.
 */
int topdown_default_events_add(struct stat_options *o);

/* Whether the PMU named pmu has the sysfs event named event (perf's pmu_have_event). */
bool topdown_pmu_has_event(const char *pmu, const char *event);

#endif
