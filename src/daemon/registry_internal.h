/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The registry's state, shared by registry.c (events, leaders, the machine's series) and
 * registry_cgroups.c (cgroup registrations and their own counts). Nothing outside them uses it.
 *
 * Memory: the machine's bases take events x possible CPUs; each cgroup takes events x 3 values,
 * and per online CPU only where its CPU x cgroup series are exported (or its parent's are).
 */
#ifndef BPERF_DAEMON_REGISTRY_INTERNAL_H
#define BPERF_DAEMON_REGISTRY_INTERNAL_H

#include "../counters/leader.h"
#include "../util/target.h"
#include "registry.h"

/*
 * A leader the daemon holds a slot in: one for each group of its events that opens as a perf
 * group (up to LEADER_MAX_MEMBERS of one class, join_events), one for an event left alone.
 */
struct reg_leader {
	struct perf_event_attr key;	/* its attr map key: the event's, or the group's */
	struct leader_handle h;
	__u32 slot;
	bool joined;
};

struct reg_event {
	char *name;
	struct perf_event_attr attr;	/* as parsed: the attr map key bperf stat uses too */
	bool seconds, scaled;
	int leader;			/* its leader in registry.leaders */
	__u32 member;			/* and its member there */
	struct bpf_perf_event_value *base;	/* [possible CPUs]: raw readings at the start */
};

/* A difference of sums that may go below zero for a moment (an own count: see own_counts()) */
struct reg_delta {
	long long count, enabled, running;
};

struct reg_cgroup {
	char *path;
	__u64 id;
	double created;
	bool counted;		/* registered in every leader */
	bool tried;		/* registration was tried (else: the attr map was not locked) */
	bool dropped;		/* refused: the leaders' cgroups are all taken (tried later) */
	bool per_cpu;		/* its CPU x cgroup series are exported */
	bool no_base;		/* its bases could not be read: not counted until they are */
	int parent;		/* its nearest counted ancestor in registry.cgroups, -1: none */
	int pos;		/* counted: its place in the snapshot's cgroups (0 is "/") */
	int cpu_pos;		/* per_cpu: its place among the CPU x cgroup series */
	__u32 *idx;		/* [leader]: its index in each leader */
	struct bpf_perf_event_value *base;	/* [event]: sums over the CPUs at registration */
	struct reg_delta *folded;		/* [event]: removed descendants' counts */
	/* per_cpu, or its parent is: per online CPU index, NULL otherwise */
	struct bpf_perf_event_value *cpu_base;	/* [event][CPU] at registration */
	struct reg_delta *cpu_folded;		/* [event][CPU], per_cpu only */
	struct reg_delta *cpu_now;		/* [event][CPU]: this snapshot's, scratch */
};

struct registry {
	const char *map_path;
	int verbose;
	struct cpu_map cpus;	/* the CPUs online at the start: the slots' and the series' */
	__u32 nr_possible;	/* the leaders' per-CPU width */
	int nr_events;
	struct reg_event *events;
	int nr_leaders;
	struct reg_leader *leaders;
	int nr_cgroups;
	struct reg_cgroup *cgroups;	/* sorted by path */
	int nr_counted, nr_dropped, nr_cpu_cgroups;
	struct reg_delta *root_folded;	/* [event]: removed top cgroups' counts ("/"'s own) */
	/* daemon.cgroup-cpu-series: the paths (sorted), or every cgroup */
	char **cpu_paths;
	int nr_cpu_paths;
	bool cpu_all;
	int max_cpu_series;	/* daemon.max-cgroup-cpu-series */
	bool cpu_full_warned;	/* said once that no more CPU x cgroup series fit */
	int start_error;	/* the first walk asked for too many series: the daemon stops */
	double start;
	bool walked;		/* the first walk's cgroups are there: later ones are new */
	bool cg_warned;		/* said once why cgroups cannot be counted */
	bool bases_missing;	/* some cgroups are no_base: registered at the next snapshot */
	bool base_warned;	/* said once that bases could not be read, until they can again */
	struct bpf_perf_event_value *buf;	/* [possible CPUs] */
	struct bpf_perf_event_value *sums;	/* [cgroup][member]: leader_cg_sum's */
	struct reg_delta *totals;		/* [cgroup]: one event's, scratch */
	size_t sums_cap, totals_cap;
	/* the last snapshot's storage, reused */
	struct snap_event *snap_events;
	struct snap_cgroup *snap_cgroups;
	struct snap_value *snap_machine, *snap_own, *snap_own_cpu;
	int *snap_cpu_cgroups;
	size_t snap_cgroups_cap, snap_cpu_cgroups_cap, snap_own_cap, snap_own_cpu_cap;
};

/* Unix time now, in seconds (OpenMetrics' _created). */
double registry_unix_now(void);
/* strcmp of two char * elements, for qsort and bsearch of paths. */
int registry_cmp_path(const void *a, const void *b);
/* Brings every leader's sums up to date, as its readers must before they read (leader_sync). */
int registry_sync(struct registry *r);
/* Series per CPU x cgroup for each cgroup that has them: 1 or 3 per event. */
int registry_series_per_cpu_cgroup(const struct registry *r);
/* The cgroups' own counts into the snapshot's storage (registry_cgroups.c). */
/* The no_base cgroups registered again and their bases taken, before a snapshot. */
void registry_retry_bases(struct registry *r);
int registry_read_cgroups(struct registry *r);
void registry_free_cgroups(struct registry *r);

#endif
