/* SPDX-License-Identifier: GPL-2.0-only */
/* perf stat's command line, parsed into one struct that the session is built from. */
#ifndef BPERF_STAT_OPTIONS_H
#define BPERF_STAT_OPTIONS_H

#include <stdbool.h>

#include "../config.h"
#include "../events/evlist.h"
#include "../output/output.h"
#include "result.h"

struct stat_options {
	/* events */
	struct evlist evlist;
	struct parse_events_ctx events_ctx;
	bool group;		/* -g: all events in one group */
	bool null_run;		/* -n */
	bool bpf_counters;	/* --bpf-counters */
	const char *bpf_attr_map;
	/* stat.* variables of perf's config files, read before the command line */
	struct stat_config_vars config;

	/* targets */
	const char *bpf_prog;	/* -b list as typed: count while these BPF programs run */
	const char *pid;	/* -p list as typed */
	const char *tid;	/* -t list as typed */
	const char *cpu_list;	/* -C list as typed */
	bool system_wide;	/* -a */
	bool no_inherit;	/* -i */
	bool all_user;		/* --all-user */
	bool all_kernel;	/* --all-kernel */
	const char *all_space_given;	/* the first of --all-user/--all-kernel seen */
	const char **argv;	/* the workload, NULL if none */
	int argc;

	/* aggregation and scaling */
	enum aggr_mode aggr_mode;
	bool per_thread;
	bool no_aggr;
	bool scale;		/* --no-scale clears it */

	/* output */
	const char *csv_sep;
	bool json;
	bool big_num;
	bool big_num_given;	/* -B/--big-num seen on the command line */
	const char *output_name;
	bool append;
	int log_fd;
	bool quiet;
	int verbose;

	/* run control */
	int run_count;
	int interval_ms;
	unsigned int interval_count;
	bool summary;
	bool no_csv_summary;
	unsigned int timeout_ms;
	int delay_ms;
	bool sync_before;
};

/*
 * Parses `stat` options (argv[0] is "stat"). Returns 0, or the exit code
 * to leave with after the message (129 for usage errors, 234 for perf's
 * semantic checks).
 */
int stat_options_parse(struct stat_options *opts, int argc, const char **argv);
void stat_options_free(struct stat_options *opts);
/*
 * `stat record [options] ...` (argv[0] is "record"): the stat options again, then -o names the
 * perf.data file (*path, default "perf.data") instead of the counts' output. 0 or exit code.
 */
int stat_options_parse_record(struct stat_options *opts, const char **path);
/*
 * perf's usage lines after an error: "\n Usage: ...\n\n" when header, then the line of the
 * option named by name (one letter: the short option; else long names starting with name).
 */
void stat_options_usage(const struct stat_options *opts, bool header, const char *name);

#endif
