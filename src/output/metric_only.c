// SPDX-License-Identifier: GPL-2.0-only
/*
 * --metric-only: a header of metric units, then one row of metric values, as perf 6.1 prints
 * them in global aggregation. Rates (/sec) and CPUs utilized are left out; an event that was
 * not counted gives an empty cell; an event without metrics gives nothing.
 */
#include <ctype.h>
#include <string.h>

#include "metric_only.h"
#include "printer.h"

#define METRIC_ONLY_LEN 20

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
static int event_metrics(const struct stat_result *res, int ev, struct metric_line *m)
{
	const struct counter_value *v = result_value(res, ev, 0);

	if ((res->supported && !res->supported[ev]) || !v->run || !v->ena)
		return -1;
	return metrics_compute(res, ev, 0, m, METRICS_MAX);
}

static void print_units(const struct output_config *cfg, const struct stat_result *res)
{
	struct metric_line m[METRICS_MAX];
	char unit[1024];
	int ev, i, n;

	if (cfg->format == OUTPUT_JSON) {
		fputs("{}\n", cfg->out);
		return;
	}
	for (ev = 0; ev < res->evlist->nr; ev++) {
		n = event_metrics(res, ev, m);
		for (i = 0; i < n; i++) {
			if (!valid_only_metric(m[i].unit))
				continue;
			full_unit(unit, sizeof(unit), &res->evlist->entries[ev], m[i].unit);
			if (cfg->format == OUTPUT_CSV)
				fprintf(cfg->out, "%s%s", unit, cfg->csv_sep);
			else
				fprintf(cfg->out, "%*s ", METRIC_ONLY_LEN, unit);
		}
	}
	fputc('\n', cfg->out);
}

/* The value as perf's CSV keeps it: blanks dropped, cut after the digits and dots. */
static void print_cell(const struct output_config *cfg, const char *unit, const char *value)
{
	int width = METRIC_ONLY_LEN;
	char trimmed[64];
	size_t len;

	switch (cfg->format) {
	case OUTPUT_CSV:
		while (isspace((unsigned char)*value))
			value++;
		for (len = 0; len < sizeof(trimmed) - 1 &&
		     (isdigit((unsigned char)value[len]) || value[len] == '.'); len++)
			trimmed[len] = value[len];
		trimmed[len] = '\0';
		fprintf(cfg->out, "%s%s", trimmed, cfg->csv_sep);
		break;
	case OUTPUT_JSON:
		while (isspace((unsigned char)*value))
			value++;
		fprintf(cfg->out, "{\"%s\" : \"%s\"}", *unit ? unit : "metric-value", value);
		break;
	default:
		if ((int)strlen(unit) >= width)
			width = (int)strlen(unit) + 1;
		fprintf(cfg->out, "%*s ", width, value);
		break;
	}
}

static void print_values(const struct output_config *cfg, const struct stat_result *res)
{
	struct metric_line m[METRICS_MAX];
	char unit[1024], value[64];
	int ev, i, n;

	for (ev = 0; ev < res->evlist->nr; ev++) {
		n = event_metrics(res, ev, m);
		if (n < 0) {
			print_cell(cfg, "", "");
			continue;
		}
		for (i = 0; i < n; i++) {
			if (!valid_only_metric(m[i].unit))
				continue;
			full_unit(unit, sizeof(unit), &res->evlist->entries[ev], m[i].unit);
			value[0] = '\0';
			if (m[i].format)
				snprintf(value, sizeof(value), m[i].format, m[i].value);
			print_cell(cfg, unit, value);
		}
	}
	fputc('\n', cfg->out);
}

void print_metric_only(const struct output_config *cfg, const struct stat_result *res)
{
	print_units(cfg, res);
	print_values(cfg, res);
}
