// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metric-only: a header of metric units, then one row of metric values per aggregate (one for
 * global aggregation, one per CPU with -A, per core/die/socket/node with --per-*), each row with
 * the -I time prefix when interval printing, as perf 6.1 prints them. Rates (/sec) and CPUs
 * utilized are left out; an event that was not counted gives an empty cell; an event without
 * metrics gives nothing.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "metric_only.h"
#include "printer.h"
#include "../metrics/metric_set.h"

#define METRIC_ONLY_LEN 20
/* what perf counts in a cell's width for its colour: "" or "\033[31m" (5), then "\033[m" */
static const int color_len[] = {
	[METRIC_NO_COLOR] = 0, [METRIC_COLOR_NORMAL] = 3, [METRIC_COLORED] = 8,
};

/* perf's aggr_header_lens: the std header's indent before the units */
static const int aggr_header_len[] = {
	[AGGR_GLOBAL] = 0, [AGGR_NONE] = 6, [AGGR_THREAD] = 24, [AGGR_CORE] = 24,
	[AGGR_DIE] = 18, [AGGR_SOCKET] = 12, [AGGR_NODE] = 6,
};

/* -I std header: what follows "#           time" (perf's " " prefix included) */
static const char *const aggr_header_std[] = {
	[AGGR_GLOBAL] = " ", [AGGR_NONE] = " CPU     ", [AGGR_THREAD] = " comm-pid ",
	[AGGR_CORE] = " core            cpus ", [AGGR_DIE] = " die          cpus ",
	[AGGR_SOCKET] = " socket cpus ", [AGGR_NODE] = " node   cpus ",
};

/* perf's aggr_header_csv, with its "," whatever -x says and its missing trailing ones */
static const char *const aggr_header_csv[] = {
	[AGGR_GLOBAL] = "", [AGGR_NONE] = "cpu,", [AGGR_THREAD] = "comm-pid,",
	[AGGR_CORE] = "core,cpus,", [AGGR_DIE] = "die,cpus", [AGGR_SOCKET] = "socket,cpus",
	[AGGR_NODE] = "node,",
};

static bool valid_only_metric(const char *unit)
{
	return unit && !strstr(unit, "/sec") && !strstr(unit, "CPUs utilized");
}

/* perf's fixunit(): "of all branches" becomes "branch-misses of all branches" */
static void full_unit(char *buf, size_t size, const struct evsel *evsel, const char *unit)
{
	if (!strncmp(unit, "of all", 6))
		snprintf(buf, size, "%s %s", evsel->name, unit);
	else
		snprintf(buf, size, "%s", unit);
}

/* The metrics of one event, or -1 when it was not counted (an empty cell). */
static int event_metrics(const struct stat_result *res, int ev, int aggr, struct metric_line *m)
{
	const struct counter_value *v = result_value(res, ev, aggr);

	if ((res->supported && !res->supported[ev]) || !v->run || !v->ena)
		return -1;
	return metrics_compute(res, ev, aggr, m, METRICS_MAX);
}

/*
 * The metrics a header names. With -A perf names every event's metrics, counted or not (its
 * header is worked out on the first CPU with a zero count, so rates are plain "/sec");
 * otherwise only those of the first aggregate's counted events that -M metrics count: others
 * (--topdown's, -e's) have metric values in the rows and none in the header.
 */
static int header_metrics(const struct stat_result *res, int ev, struct metric_line *m)
{
	int i, n;

	if (res->aggr_mode != AGGR_NONE)
		return metric_set_counts_event(res->metric_set, ev) ? event_metrics(res, ev, 0, m) : 0;
	n = metrics_compute(res, ev, 0, m, METRICS_MAX);
	for (i = 0; i < n; i++)
		if (m[i].unit && strstr(m[i].unit, "/sec"))
			m[i].unit = "/sec";
	return n;
}

static void print_units(const struct output_config *cfg, const struct stat_result *res)
{
	struct metric_line m[METRICS_MAX];
	bool json = cfg->format == OUTPUT_JSON, first = true;
	char unit[1024];
	int ev, i, n;

	switch (cfg->format) {
	case OUTPUT_STD:
		if (res->interval)
			fprintf(cfg->out, "#           time%s", aggr_header_std[res->aggr_mode]);
		else
			fprintf(cfg->out, "%*s", aggr_header_len[res->aggr_mode], "");
		break;
	case OUTPUT_CSV:
		fprintf(cfg->out, "%s%s", res->interval ? " time," : "",
			aggr_header_csv[res->aggr_mode]);
		break;
	case OUTPUT_JSON:
		fprintf(cfg->out, "{%*s", res->interval ? 0 : aggr_header_len[res->aggr_mode], "");
		/* perf's JSON header names metrics (all of them) only with -A */
		if (res->aggr_mode != AGGR_NONE) {
			fputs("}\n", cfg->out);
			return;
		}
		break;
	}
	for (ev = 0; ev < res->evlist->nr; ev++) {
		n = header_metrics(res, ev, m);
		for (i = 0; i < n; i++) {
			if (json ? !m[i].unit : !valid_only_metric(m[i].unit))
				continue;
			full_unit(unit, sizeof(unit), &res->evlist->entries[ev], m[i].unit);
			if (json)
				fprintf(cfg->out, "%s\"unit\" : \"%s\"", first ? "" : ", ", unit);
			else if (cfg->format == OUTPUT_CSV)
				fprintf(cfg->out, "%s%s", unit, cfg->csv_sep);
			else
				fprintf(cfg->out, "%*s ", METRIC_ONLY_LEN, unit);
			first = false;
		}
	}
	if (json)
		fputc('}', cfg->out);
	fputc('\n', cfg->out);
}

/* The value as perf's CSV keeps it: blanks dropped, cut after the digits and dots. */
static void print_cell(const struct output_config *cfg, const char *unit, const char *value,
		       enum metric_color color)
{
	int width = METRIC_ONLY_LEN;
	char trimmed[64];
	size_t len;

	switch (cfg->format) {
	case OUTPUT_CSV:
	case OUTPUT_JSON:
		while (isspace((unsigned char)*value))
			value++;
		for (len = 0; len < sizeof(trimmed) - 1 &&
		     (isdigit((unsigned char)value[len]) || value[len] == '.'); len++)
			trimmed[len] = value[len];
		trimmed[len] = '\0';
		/* perf 6.1's JSON cells name no metric: the header (with -A) does */
		if (cfg->format == OUTPUT_JSON)
			fprintf(cfg->out, "{\"metric-value\" : \"%s\"}", trimmed);
		else
			fprintf(cfg->out, "%s%s", trimmed, cfg->csv_sep);
		break;
	default:
		if ((int)strlen(unit) > width)
			width = (int)strlen(unit) + 1;
		width += color_len[color];
		fprintf(cfg->out, "%*s ", width, value);
		break;
	}
}

/* The CPUs of an aggregate, as its counters saw them. */
static int aggr_nr_cpus(const struct stat_result *res, int aggr)
{
	int ev, nr = 0;

	for (ev = 0; ev < res->evlist->nr; ev++)
		if (result_value(res, ev, aggr)->nr_cpus > nr)
			nr = result_value(res, ev, aggr)->nr_cpus;
	return nr;
}

/* The row's start: -I time, then the aggregate's columns (perf's JSON stays unbalanced). */
static void print_row_prefix(const struct output_config *cfg, const struct stat_result *res,
			     const char *prefix, int aggr)
{
	const struct aggr_id *id = res->aggr ? &res->aggr[aggr] : NULL;
	int nr = aggr_nr_cpus(res, aggr);
	unsigned long long ns;

	if (cfg->format != OUTPUT_JSON)
		fputs(prefix, cfg->out);
	if (res->aggr_mode == AGGR_GLOBAL && cfg->format != OUTPUT_JSON)
		return;
	switch (cfg->format) {
	case OUTPUT_STD:
		std_print_aggr_prefix(cfg->out, res->aggr_mode, id, nr);
		break;
	case OUTPUT_CSV:
		csv_print_aggr_fields(cfg->out, cfg->csv_sep, res->aggr_mode, id, nr);
		break;
	case OUTPUT_JSON:
		if (res->interval) {
			/* not the counter lines' prefix: perf closes this object at once */
			ns = llround(res->interval_ts * 1e9);
			fprintf(cfg->out, "{\"interval\" : %llu.%09llu}", ns / 1000000000ULL,
				ns % 1000000000ULL);
		} else if (res->aggr_mode != AGGR_GLOBAL) {
			fputc('{', cfg->out);
		}
		json_print_aggr_keys(cfg->out, res->aggr_mode, id, nr);
		break;
	}
}

static void print_row(const struct output_config *cfg, const struct stat_result *res,
		      const char *prefix, int aggr)
{
	struct metric_line m[METRICS_MAX];
	char unit[1024], value[64];
	int ev, i, n;

	print_row_prefix(cfg, res, prefix, aggr);
	for (ev = 0; ev < res->evlist->nr; ev++) {
		n = event_metrics(res, ev, aggr, m);
		if (n < 0) {
			print_cell(cfg, "", "", METRIC_NO_COLOR);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!valid_only_metric(m[i].unit))
				continue;
			full_unit(unit, sizeof(unit), &res->evlist->entries[ev], m[i].unit);
			value[0] = '\0';
			if (m[i].format)
				snprintf(value, sizeof(value), m[i].format, m[i].value);
			print_cell(cfg, unit, value, m[i].color);
		}
	}
	fputc('\n', cfg->out);
}

void print_metric_only(const struct output_config *cfg, const struct stat_result *res,
		       const char *prefix, bool header)
{
	int a, nr_rows = res->aggr_mode == AGGR_GLOBAL ? 1 : res->nr_aggr;

	if (header)
		print_units(cfg, res);
	for (a = 0; a < nr_rows; a++)
		print_row(cfg, res, prefix, a);
}
