/* SPDX-License-Identifier: GPL-2.0-only */
/* perf stat's command line, parsed into one struct that the session is built from. */
#ifndef BPERF_STAT_OPTIONS_H
#define BPERF_STAT_OPTIONS_H

#include <stdbool.h>

#include "../config.h"
#include "../events/evlist.h"
#include "../output/output.h"
#include "control.h"
#include "../metrics/metric_set.h"
#include "../metrics/result.h"

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
	const char *cgroup_list;	/* --for-each-cgroup, expanded after the default events */
	const char **argv;	/* the workload, NULL if none */
	int argc;

	/* aggregation and scaling */
	enum aggr_mode aggr_mode;
	bool per_thread;
	bool no_aggr;
	bool scale;		/* --no-scale clears it */
	bool percore_show_thread;	/* percore events: per-CPU lines with the core's sum */
	bool no_merge;		/* a line per uncore PMU instance an event matched */
	bool hybrid_merge;	/* one line per hybrid event, the PMUs' counts summed */
	char *cputype_pmu;	/* --cputype: "cpu_atom", ..., or NULL */

	/* output */
	const char *csv_sep;
	bool json;
	bool big_num;
	bool big_num_given;	/* -B/--big-num seen on the command line */
	const char *output_name;
	bool append;
	int log_fd;
	bool quiet;
	int verbose;		/* -v, after bperf --debug verbose=N */
	bool trace_opens;	/* bperf --debug perf-event-open: -vv's attrs and opens */

	/* run control */
	int run_count;
	int interval_ms;
	unsigned int interval_count;
	bool summary;
	bool no_csv_summary;
	unsigned int timeout_ms;
	int delay_ms;
	bool sync_before;
	bool run_table;		/* --table: each -r run's elapsed time */
	const char *pre_cmd;	/* --pre: sh command before each run */
	const char *post_cmd;	/* --post: ... and after it */
	bool interval_clear;	/* --interval-clear */
	struct stat_control control;	/* --control */
	int last_event_first;	/* evlist index of the first event of the last -e (--filter) */

	/* metrics and the event sets that come with them (metric_events.c) */
	int detailed;		/* -d, -dd, -ddd */
	bool transaction;	/* -T */
	bool topdown;		/* --topdown */
	unsigned int td_level;	/* --td-level; topdown metrics print up to it */
	bool topdown_accuracy_note;	/* --topdown's note on long periods goes to the output */
	bool smi_cost;		/* --smi-cost */
	bool smi_reset;		/* --smi-cost turned freeze_on_smi on: off again at the end */
	bool metric_only;	/* --metric-only */
	bool metric_only_given;	/* --[no-]metric-only seen: --topdown/--smi-cost keep it */
	char *metrics;		/* the -M lists, joined with ',' */
	struct metric_set metric_set;	/* what -M resolved to; its no_group/no_merge flags */
};

/*
 * Parses `stat` options (argv[0] is "stat"). Returns 0, or the exit code
 * to leave with after the message (129 for usage errors, 234 for perf's
 * semantic checks).
 */
int stat_options_parse(struct stat_options *opts, int argc, const char **argv);
/*
 * --for-each-cgroup: the event list (default events included) once per cgroup. 0, or the exit
 * code after perf's message.
 */
int stat_options_expand_cgroups(struct stat_options *opts);
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
