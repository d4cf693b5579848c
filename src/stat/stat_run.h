/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf stat's state, passed down instead of kept in globals: what the whole command needs
 * (struct stat_run), with what one run of -r needs (struct one_run) and the results kept across
 * the runs (struct run_results). stat_run.c does one run; cmd_stat.c the command around it.
 */
#ifndef BPERF_STAT_RUN_H
#define BPERF_STAT_RUN_H

#include <signal.h>
#include <stdbool.h>

#include "../counters/bpf_prog_targets.h"
#include "../metrics/pmu_merge.h"
#include "../output/output.h"
#include "options.h"
#include "run_stats.h"
#include "session.h"
#include "stat_record.h"
#include "workload.h"

/* One run's: the workload and the session, made anew for each run of -r. */
struct one_run {
	struct workload workload;
	bool workload_cut;	/* -I: a signal ended counting before the workload's exit */
	struct stat_session session;
};

/* The results, kept across -r runs. */
struct run_results {
	struct aggr_id *aggr;
	int nr_aggr;
	int *cpu_aggr;		/* --per-socket/die/core/node: CPU index -> aggregate */
	struct counter_value *values;	/* the last run's (what perf 6.1 prints) */
	struct run_stats *value_stats;	/* [ev * nr_aggr + a] over the runs */
	double *shadow_counts;
	struct counter_value *prog_values;	/* -b: [ev * nr_progs + program], the last run's */
	struct run_stats elapsed;
	double *run_elapsed;
	double user_s, sys_s;
};

struct stat_run {
	struct stat_options opts;
	struct output_config out;
	struct merge_opts merge;	/* how events on several PMUs print */
	bool close_out;
	sigset_t sigs;		/* signals taken synchronously with sigtimedwait */
	int sig_fd;		/* --control: a signalfd of sigs, polled with the control fd */
	bool sig_fd_open;
	int last_signal;	/* perf re-raises the last one it caught (not SIGCHLD) */
	bool have_workload;
	struct bpf_prog_targets bpf_progs;	/* -b, open for the whole command */
	struct stat_recorder *recorder;	/* stat record: the perf.data being written, or NULL */
	struct one_run run;
	struct run_results results;
	int exit_code;
	/* [ev]: refused as not supported, not opened again (session.h) */
	bool *errored;
	struct missing_features missing;	/* what the kernel refused, for every run */

	/* -I */
	struct raw_count **prev;	/* [ev] previous cumulative counts */
	unsigned int nr_intervals;
	unsigned int nr_printed;
};

/*
 * perf's rule for -r: a run that cannot count (an event refused, a workload that cannot run)
 * says why and the next run starts; only the last run decides whether counts are printed.
 */
#define RUN_FAILED (-1)

/*
 * One measurement: prepare, open, start, wait, read. Returns 0, RUN_FAILED, or an exit code that
 * ends bperf at once.
 */
int run_once(struct stat_run *r, int run_idx);

/* The printers' view of values (by aggregate) over wall_ns. */
void fill_result(struct stat_run *r, struct stat_result *res, const struct counter_value *values,
		 double wall_ns);

#endif
