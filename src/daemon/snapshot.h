/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one scrape shows: filled by the daemon's registry, printed by exposition.c. Values are
 * differences from the bases taken when the daemon started (or registered the cgroup), so every
 * series of a new daemon starts at 0: an ordinary counter reset for Prometheus.
 *
 * Three shapes, each its own metric family, so that no sum over a family counts a slice twice:
 * the whole machine per CPU; each cgroup's own count (its tasks', not its descendants'), summed
 * over the CPUs, with "/" for what ran outside every counted cgroup; and, for the cgroups the
 * configuration names, the same per CPU.
 */
#ifndef BPERF_DAEMON_SNAPSHOT_H
#define BPERF_DAEMON_SNAPSHOT_H

#include <linux/types.h>
#include <stdbool.h>

struct snap_event {
	const char *name;	/* as bperf stat prints it: "page-faults", "msr/tsc/" */
	bool seconds;		/* a clock (cpu-clock, task-clock): nanoseconds, exported in s */
	bool scaled;		/* the PMU may multiplex it: _enabled/_running_seconds_total too */
};

struct snap_cgroup {
	const char *path;	/* below perf's cgroup mount, as -G takes it; "/": outside all */
	double created;		/* Unix time its counting started (OpenMetrics _created) */
};

struct snap_value {
	__u64 count, enabled, running;	/* enabled, running in nanoseconds */
};

struct snapshot {
	int nr_events, nr_cgroups, nr_cpus, nr_cpu_cgroups;
	int nr_dropped;				/* cgroups left out: the leaders' cap */
	unsigned long long nr_not_reading;	/* socket clients hung up on: unread replies */
	double start;				/* the machine series' _created */
	const struct snap_event *events;
	const struct snap_cgroup *cgroups;	/* sorted by path, "/" first */
	const int *cpus;			/* CPU numbers */
	const int *cpu_cgroups;			/* [nr_cpu_cgroups]: indices in cgroups */
	const struct snap_value *machine;	/* [event][cpu] */
	const struct snap_value *own;		/* [event][cgroup]: over the CPUs */
	const struct snap_value *own_cpu;	/* [event][cpu cgroup][cpu] */
};

static inline const struct snap_value *snap_machine(const struct snapshot *s, int ev, int cpu)
{
	return &s->machine[(size_t)ev * s->nr_cpus + cpu];
}

static inline const struct snap_value *snap_own(const struct snapshot *s, int ev, int cg)
{
	return &s->own[(size_t)ev * s->nr_cgroups + cg];
}

static inline const struct snap_value *snap_own_cpu(const struct snapshot *s, int ev, int i,
						    int cpu)
{
	return &s->own_cpu[((size_t)ev * s->nr_cpu_cgroups + i) * s->nr_cpus + cpu];
}

/*
 * Lines of a text-format body, comments left out: the two gauges and the one counter of the
 * daemon itself, and for each event 1 or 3
 * (counted, and its enabled and running times where the PMU may multiplex it) times
 * C + G + G_cpu x C series. OpenMetrics adds a _created line to each counter series.
 */
static inline size_t snap_nr_series(const struct snapshot *s)
{
	size_t per_shape = (size_t)s->nr_cpus + s->nr_cgroups +
			   (size_t)s->nr_cpu_cgroups * s->nr_cpus, n = 3;

	for (int ev = 0; ev < s->nr_events; ev++)
		n += (s->events[ev].scaled ? 3 : 1) * per_shape;
	return n;
}

#endif
