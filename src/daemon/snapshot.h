/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one scrape shows: filled by the daemon's registry, printed by exposition.c. Values are
 * differences from the bases taken when the daemon started (or registered the cgroup), so every
 * series of a new daemon starts at 0: an ordinary counter reset for Prometheus.
 */
#ifndef BPERF_DAEMON_SNAPSHOT_H
#define BPERF_DAEMON_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>

struct snap_event {
	const char *name;	/* as bperf stat prints it: "page-faults", "msr/tsc/" */
	bool seconds;		/* a clock (cpu-clock, task-clock): nanoseconds, exported as seconds */
	bool scaled;		/* the PMU may multiplex it: _enabled/_running_seconds_total too */
};

struct snap_cgroup {
	const char *path;	/* below perf's cgroup mount, as -G takes it; "/" = the whole CPU */
	double created;		/* Unix time its counting started (OpenMetrics _created) */
};

struct snap_value {
	__u64 count, enabled, running;	/* enabled, running in nanoseconds */
};

struct snapshot {
	int nr_events, nr_cgroups, nr_cpus;
	const struct snap_event *events;
	const struct snap_cgroup *cgroups;	/* sorted by path, "/" first */
	const int *cpus;			/* CPU numbers */
	const struct snap_value *values;	/* [event][cgroup][cpu] */
};

static inline const struct snap_value *snap_at(const struct snapshot *s, int ev, int cg, int cpu)
{
	return &s->values[((size_t)ev * s->nr_cgroups + cg) * s->nr_cpus + cpu];
}

#endif
