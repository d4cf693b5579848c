/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What output.c hands to the per-format printers (std.c, csv.c, json.c):
 * one counter line, with its values and metrics already worked out.
 */
#ifndef BPERF_OUTPUT_PRINTER_H
#define BPERF_OUTPUT_PRINTER_H

#include <math.h>
#include <stddef.h>

#include "../metrics/metrics.h"
#include "output.h"

#define CNTR_NOT_SUPPORTED "<not supported>"
#define CNTR_NOT_COUNTED "<not counted>"

struct counter_line {
	const struct output_config *cfg;
	const struct stat_result *res;
	const struct evsel *evsel;
	const struct aggr_id *id;	/* NULL in global aggregation */
	const struct counter_value *val;
	const char *prefix;		/* "" or the -I time prefix, already formatted */
	double uval;			/* count * scale: the value printed */
	bool counted;			/* run and ena are non-zero */
	bool supported;			/* for <not counted> vs <not supported> */
	bool summary_column;		/* CSV: the "summary" first column (--summary) */
	int unit_width;
	const struct metric_line *metrics;
	int nr_metrics;
};

/* The unit perf prints for an event: never NULL. */
static inline const char *event_unit(const struct evsel *evsel)
{
	return evsel->unit ? evsel->unit : "";
}

/* -G / --for-each-cgroup: every line has a cgroup column, empty for events without one. */
static inline bool lines_have_cgroup(const struct counter_line *cl)
{
	return cl->res->evlist->nr_cgroup_args > 0;
}

static inline const char *line_cgroup(const struct counter_line *cl)
{
	return cl->evsel->cgroup ? cl->evsel->cgroup->name : "";
}

/* perf: integer counts unless the scale has a fraction (clock events in msec). */
static inline bool has_fractional_scale(const struct evsel *evsel)
{
	return floor(evsel->scale) != evsel->scale;
}

/*
 * The -r noise of a line: perf keeps run-to-run statistics only for global
 * aggregation, so -A and --per-* lines always show a noise of 0.
 */
static inline double line_noise_pct(const struct counter_line *cl)
{
	return cl->res->aggr_mode == AGGR_GLOBAL ? cl->val->noise_pct : 0.0;
}

/* -A: a percore event's line stands for a whole core (S0-D0-C1) unless per CPU was asked. */
static inline bool line_is_percore(const struct counter_line *cl)
{
	return cl->id && cl->res->aggr_mode == AGGR_NONE && cl->evsel->percore &&
	       !cl->res->percore_show_thread;
}

/* The aggregate's columns of a line (CPU0, S0-D0-C1 and its CPU count...), nothing for global. */
void std_print_aggr_prefix(FILE *out, enum aggr_mode mode, const struct aggr_id *id, int nr);
void csv_print_aggr_fields(FILE *out, const char *sep, enum aggr_mode mode,
			   const struct aggr_id *id, int nr);
void json_print_aggr_keys(FILE *out, enum aggr_mode mode, const struct aggr_id *id, int nr);

void std_print_line(const struct counter_line *cl);
void csv_print_line(const struct counter_line *cl);
void json_print_line(const struct counter_line *cl);

/* -I prefix of each format, e.g. "     1.000123456 " for std. */
void std_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec);
void csv_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec,
			 const char *sep);
void json_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec);

void std_print_header(FILE *out, const struct run_summary *sum);
void std_print_footer(FILE *out, const struct run_summary *sum, const struct footer_hints *hints);

/* The std "#           time             counts unit events" line for -I. */
void std_print_interval_header(const struct output_config *cfg, enum aggr_mode mode,
			       int unit_width);

#endif
