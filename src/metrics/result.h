/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What counting produced, aggregated and ready to print: the interface
 * between src/stat (aggregation) and src/output (printers, metrics).
 */
#ifndef BPERF_RESULT_H
#define BPERF_RESULT_H

#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../events/evlist.h"

struct metric_set;

enum aggr_mode {
	AGGR_GLOBAL,	/* default: one value per event */
	AGGR_NONE,	/* -A / --no-aggr: one value per CPU */
	AGGR_THREAD,	/* --per-thread */
	AGGR_CORE,	/* --per-core */
	AGGR_DIE,	/* --per-die */
	AGGR_SOCKET,	/* --per-socket */
	AGGR_NODE,	/* --per-node */
};

/* Identity of one aggregate: the fields that matter for its mode. */
struct aggr_id {
	int cpu;
	int socket;
	int die;
	int core;
	int node;
	pid_t tid;
	char comm[64];
};

struct counter_value {
	double count;	   /* raw count, scaled by ena/run unless --no-scale; not unit-scaled */
	__u64 ena;	   /* time enabled, ns */
	__u64 run;	   /* time running, ns */
	int nr_cpus;	   /* CPUs that make up this aggregate (the %4d column) */
	/*
	 * -r N: stddev of the mean, in percent. perf 6.1 divides by the printed
	 * count, i.e. the last run's, not by the mean.
	 */
	double noise_pct;
	/*
	 * No line at all for this aggregate: with -A an event opened on fewer
	 * CPUs (duration_time only has CPU0). Other modes print every aggregate.
	 */
	bool absent;
};

struct stat_result {
	const struct evlist *evlist;
	const bool *supported;	     /* [evsel idx]: the event could be opened */
	enum aggr_mode aggr_mode;
	int nr_aggr;
	const struct aggr_id *aggr;	     /* [nr_aggr] */
	/*
	 * [evsel idx * nr_aggr + aggr index]. With -r N perf 6.1 prints the
	 * *last* run's counts, and its metrics divide them by the mean over
	 * the runs of the base events (clock, cycles, ...): see shadow_counts.
	 */
	const struct counter_value *values;
	/*
	 * Same indexing: the count averaged over the -r runs, used as the
	 * denominator of other events' metrics. NULL: use values[].count.
	 */
	const double *shadow_counts;
	double wall_ns;		     /* mean elapsed ns for "CPUs utilized" (interval length with -I) */
	int run_count;		     /* -r N (1 normally) */
	bool interval;		     /* -I: each line gets the timestamp prefix */
	double interval_ts;	     /* seconds since start, for the -I prefix (rounded to ns) */
	/*
	 * --per-thread with -a: threads whose scaled count is 0 are left out
	 * (perf's target__has_per_thread()); with -p/-t they stay.
	 */
	bool per_thread_drop_zero;
	/* -A: percore events print per CPU (with the core's sum), not per core */
	bool percore_show_thread;
	/*
	 * -b: each event's value per target program, [evsel idx * nr_progs + program index] (the
	 * same run or interval as values); the runs lines' averages per run divide these.
	 */
	const struct counter_value *prog_values;
	int nr_progs;
	/*
	 * stat report: perf's report feeds every event to the metrics' bases, counted or not
	 * (an event without counts is a base of value 0 there).
	 */
	bool replay;
	/* topdown metrics print up to this level (--td-level; 0 in stat report, as perf's) */
	unsigned int topdown_level;
	/* the cpu PMU lacks topdown-recovery-bubbles: perf's backend bound then says so */
	bool topdown_no_recovery_bubbles;
	/* -M: the metrics to evaluate, each printed on its leader event's line; NULL: none */
	const struct metric_set *metric_set;
};

static inline const struct counter_value *result_value(const struct stat_result *r, int ev,
							 int aggr)
{
	return &r->values[ev * r->nr_aggr + aggr];
}

/*
 * The header and footer: who was counted and how long it took.
 *
 * target_desc is printed verbatim after "Performance counter stats for ",
 * so it carries its own quotes exactly as perf prints them:
 *   "'sleep 1'" (workload argv joined by spaces), "'system wide'",
 *   "'CPU(s) 0-1'" (the -C list as typed), "process id '1'", "thread id '5'".
 */
struct run_summary {
	char *target_desc;
	int run_count;
	double elapsed_s;	/* mean wall time */
	double elapsed_stddev_s;/* -r N */
	double user_s;
	double sys_s;
	bool show_rusage;	/* forked workload, single run: print user/sys */
	bool null_run;		/* -n */
	bool print_table;	/* --table with -r N: per-run table before the elapsed line */
	const double *run_elapsed_s; /* [run_count] wall time of each run, for --table */
	/* /proc/sys/kernel/nmi_watchdog is on: uncounted events get perf's hint to turn it off */
	bool nmi_watchdog;
};

#endif
