/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The events that metric options add, in perf 6.1's order: -M lists, then -T, --smi-cost and
 * --topdown (each refused where the machine lacks what it needs), then after the default
 * events the -d, -dd, -ddd cache events.
 */
#ifndef BPERF_METRIC_EVENTS_H
#define BPERF_METRIC_EVENTS_H

#include <stdbool.h>

#include "options.h"

/*
 * -M, -T, --smi-cost and --topdown, before the default events. cpu_target: counting CPUs
 * (-a, -C, or no workload and no task). Returns 0 or the exit code after perf's message.
 */
int metric_events_add(struct stat_options *o, bool cpu_target);

/* -d, -dd, -ddd: appended after the default (or given) events. 0 or an exit code. */
int detailed_events_add(struct stat_options *o);

/* --smi-cost set freeze_on_smi: put it back to 0 at the end, as perf does. */
void metric_events_cleanup(struct stat_options *o);

#endif
