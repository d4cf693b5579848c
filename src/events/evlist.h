/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parsed event list: what `-e` strings become. Each evsel carries the
 * perf_event_attr exactly as perf's parser builds it (before the stat-time
 * settings such as read_format, disabled, inherit and enable_on_exec).
 */
#ifndef BPERF_EVLIST_H
#define BPERF_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>

enum tool_event {
	TOOL_NONE,
	TOOL_DURATION_TIME,
	TOOL_USER_TIME,
	TOOL_SYSTEM_TIME,
};

/* bperf stat -b: what a synthetic per-program evsel counts (not a perf event) */
enum bpf_prog_stat {
	BPF_PROG_STAT_NONE,
	BPF_PROG_STAT_RUNS,	/* bpf-prog-ID-runs: how many times the program ran */
	BPF_PROG_STAT_RUN_TIME,	/* bpf-prog-ID-run-time: for how long, from kernel statistics */
};

struct evsel {
	struct perf_event_attr attr;
	/*
	 * The attr as parsed, before the stat-time settings: upstream perf keys
	 * its shared-counter leaders by this, so bperf must too.
	 */
	struct perf_event_attr parsed_attr;
	char *name;	     /* the name perf prints (modifiers kept, name= applied) */
	char *pmu_name;	     /* sysfs PMU ("cpu", "software", "msr", "tracepoint", ...) */
	const char *unit;    /* "msec", "ns", a sysfs .unit, or "" */
	double scale;	     /* multiply raw counts by this (1e-6 for clock events) */
	int idx;	     /* position in the evlist */
	int leader_idx;	     /* idx of the group leader; == idx for a leader or a lone event */
	int nr_members;	     /* members of the group this evsel leads, itself included */
	enum tool_event tool;
	bool percore;	     /* percore=1 term */
	bool bpf_counter;    /* :b modifier: count through shared BPF counters */
	bool weak_group;     /* :W */
	bool precise_max;    /* :P */
	bool is_clock;	     /* task-clock or cpu-clock: the CPUs utilized / rate base */
	bool requires_cpu;   /* the PMU has a cpumask (uncore-like): opened per CPU only */
	char *cpumask;	     /* PMU cpumask from sysfs, NULL if none */
	bool hybrid;	     /* one of a hardware event's copies, one per hybrid PMU (pmu_name) */
	bool sysfs_pmu;	     /* made from a sysfs PMU's terms or alias (perf's evsel->pmu_name) */
	bool auto_merge;     /* one of the PMUs a "pmu/.../" glob or an alias matched */
	bool name_given;     /* name=... term: the name stays as given */
	bool in_group;	     /* in a group of more than one event: read_format gets ID|GROUP */
	bool exclude_GH;     /* a G or H modifier was given */
	bool sample_read;    /* :S */
	bool unit_owned;     /* unit was allocated (sysfs .unit) and is freed with the evsel */
	bool per_pkg;	     /* sysfs .per-pkg */
	char *group_name;    /* name{...}: the group's name, on the leader */
	enum bpf_prog_stat bpf_prog_stat;
	int bpf_prog_idx;    /* with bpf_prog_stat: the program's place in the -b list */
	char *per_run_unit;  /* -b: the unit of this event's average per program run */
	char *filter;	     /* --filter: tracepoint (or address) filter set after the open */
	/* -G / --for-each-cgroup: counted only in this cgroup (owned by the evlist), or NULL */
	const struct evsel_cgroup *cgroup;
};

/* A cgroup events are counted in: perf_event_open() gets its directory's fd. */
struct evsel_cgroup {
	char *name;	/* as printed: relative to the cgroup mount */
	int fd;
	int idx;	/* 1-based place in the evlist's table: a key for metrics */
	__u64 id;	/* the kernel's cgroup id (its directory's inode): shared counters match it */
};

struct evlist {
	struct evsel *entries;
	int nr;
	struct evsel_cgroup **cgroups;	/* the cgroups evsels point to */
	int nr_cgroups;
	/*
	 * perf's nr_cgroups: -G entries seen (empty ones too) or cgroups expanded; when non-zero,
	 * every line gets a cgroup column, empty for events without one.
	 */
	int nr_cgroup_args;
};

/* Where a parse failed: position in the -e string and perf's reason text. */
struct parse_events_error {
	int idx;     /* byte offset of the error in the string, -1 if none */
	char *str;   /* reason, e.g. "parser error", "unknown tracepoint" */
	char *help;  /* optional second line, may be NULL */
	/* perf keeps the first of several errors and prints it as "Initial error:" */
	int num_errors;
	int first_idx;
	char *first_str;
	char *first_help;
};

struct parse_events_ctx {
	const char *sysfs_root;	  /* "" or NULL: the real /sys; tests point it at a fake tree */
	const char *tracefs_root; /* NULL: /sys/kernel/tracing (then /sys/kernel/debug/tracing) */
	int verbose;		  /* -v count: perf's parse-time debug lines go to stderr */
	const char *cputype_pmu;  /* --cputype: hybrid events on this PMU only ("cpu_atom") */
};

/*
 * Appends the events of one -e string to evlist. Returns 0, or -EINVAL with
 * err filled in (the evlist is left as it was).
 */
int parse_events(struct evlist *evlist, const char *str, const struct parse_events_ctx *ctx,
		 struct parse_events_error *err);

/*
 * Prints perf's "event syntax error: ..." block (nothing when there is no
 * recorded error) and then "Run 'bperf list' for a list of valid events",
 * without the usage text.
 */
void parse_events_error_print(FILE *out, const char *str, const struct parse_events_error *err);
/* The same without the "Run 'bperf list'" line (perf's -T, -M and --smi-cost failures). */
void parse_events_error_print_errors(FILE *out, const char *str,
				    const struct parse_events_error *err);
void parse_events_error_free(struct parse_events_error *err);

/*
 * perf stat's default events: task-clock (cpu-clock when system_wide),
 * context-switches, cpu-migrations, page-faults, cycles, instructions,
 * branches, branch-misses (stalled-cycles-* where the PMU has them).
 */
int evlist_add_default(struct evlist *evlist, bool system_wide, const struct parse_events_ctx *ctx);

void evlist_free(struct evlist *evlist);

/*
 * Appends a deep copy of src (which may be in another evlist), renumbered to its new place;
 * its group leader is taken to be at the same distance before it.
 */
void evlist_append_copy(struct evlist *evlist, const struct evsel *src);

/*
 * perf stat's setup_system_wide: with a workload and no target, perf still
 * counts system-wide when every event requires a CPU or is named exactly
 * "duration_time".
 */
bool evlist_needs_system_wide(const struct evlist *evlist);

/*
 * bperf stat -b: appends the per-program evsels of the program at prog_idx in the -b list,
 * bpf-prog-ID-runs and (with run_time) bpf-prog-ID-run-time, and names the average per run of
 * every evsel for the runs lines' metrics.
 */
void evlist_add_bpf_prog_stats(struct evlist *evlist, int prog_idx, unsigned int id,
			       bool run_time);

/* perf stat -g: every event in one group led by the first. */
void evlist_make_single_group(struct evlist *evlist);

/*
 * perf's -vv "perf_event_attr:" block, between the two dashed lines: the
 * "perf_event_attr:" line and one "  %-32s %s" line per non-zero field. The
 * caller prints the dashed lines ("%.60s\n" of a dash line) around it.
 */
void perf_event_attr_fprintf(FILE *out, const struct perf_event_attr *attr);

/* Name perf gives an event built from an attr alone (default events, files without names). */
char *evsel_name_from_attr(const struct perf_event_attr *attr);

/* A hybrid copy or an uncore event: opened on its PMU's CPUs (cpumask) only. */
bool evsel_has_own_cpus(const struct evsel *e);

/* Whether e is opened on cpu (see evsel_has_own_cpus()). */
bool evsel_counts_on_cpu(const struct evsel *e, int cpu);

/* `bperf list [filter]` */
struct top_opts;
int cmd_list(int argc, const char **argv, const struct top_opts *top);

#endif
