/* SPDX-License-Identifier: GPL-2.0-only */
/* The printers: std (human), CSV and JSON, all writing what a stat_result holds. */
#ifndef BPERF_OUTPUT_H
#define BPERF_OUTPUT_H

#include <stdio.h>

#include "../metrics/result.h"

enum output_format {
	OUTPUT_STD,
	OUTPUT_CSV,
	OUTPUT_JSON,
};

struct output_config {
	FILE *out;
	enum output_format format;
	const char *csv_sep;	/* -x SEP, already unescaped ("\t" becomes a TAB) */
	bool big_num;		/* thousands grouping in the count column (std only) */
	bool no_csv_summary;
	bool summary;		/* --summary: CSV total lines get the "summary" column */
	bool interval_clear;	/* --interval-clear: clear screen and header before each -I print */
	bool metric_only;	/* --metric-only: metric_only.c prints the metrics alone */
};

/* Header (std only), one line per counter/aggregate with metrics, and footer. */
void print_counters(const struct output_config *cfg, const struct stat_result *res,
		    const struct run_summary *sum);

/* Only the counter lines (with the -I time prefix when res->interval). */
void print_counter_lines(const struct output_config *cfg, const struct stat_result *res);

/*
 * One -I print: the "#           time ..." header line (std only) when
 * nr_printed % 25 == 0 or with --interval-clear, then the counter lines.
 * nr_printed counts the earlier interval prints, starting at 0.
 */
void print_interval(const struct output_config *cfg, const struct stat_result *res,
		    unsigned int nr_printed);

/*
 * What perf's footer adds under the counts, learnt while printing the lines: a supported event
 * printed <not counted> (the NMI watchdog hint), and such an event leads a group while the list
 * mixes hardware PMUs (the "reorganizing the group" hint).
 */
struct footer_hints {
	bool not_counted;
	bool mixed_group;
};

void print_header(const struct output_config *cfg, const struct run_summary *sum);
void print_footer(const struct output_config *cfg, const struct run_summary *sum,
		  const struct footer_hints *hints);

#endif
