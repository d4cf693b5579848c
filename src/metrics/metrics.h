/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The derived values perf stat prints after '#': CPUs utilized, rates per
 * second, insn per cycle, miss ratios... computed from a stat_result with
 * the rules of perf 6.1's stat-shadow.c. Printing is left to src/output.
 */
#ifndef BPERF_METRICS_H
#define BPERF_METRICS_H

#include <stdbool.h>

#include "result.h"

/* perf never emits more than two metrics for one counter line; a -b runs line, one per event. */
#define METRICS_MAX 16

enum metric_color {
	METRIC_NO_COLOR,	/* perf passes no colour */
	METRIC_COLOR_NORMAL,	/* perf's "" colour (a ratio below its thresholds): the reset only */
	METRIC_COLORED,		/* red, green, magenta or yellow, and the reset */
};

struct metric_line {
	double value;
	/*
	 * printf format of value, e.g. "%8.3f". NULL when the metric cannot be
	 * computed (e.g. no cycles for insn per cycle): printers then show the
	 * empty metric, while JSON still prints value 0 and the unit.
	 */
	const char *format;
	/* "CPUs utilized", "K/sec", ...; NULL (with format NULL) means "no metric at all". */
	const char *unit;
	/* The metric goes on a line of its own (perf's new_line callback). */
	bool new_line;
	/*
	 * The colour perf gives the value. Without a terminal nothing is coloured, but perf's
	 * --metric-only cell still widens by the escape codes' length.
	 */
	enum metric_color color;
};

/*
 * Fills out[] with the metrics of event ev in aggregate aggr; returns how
 * many (0 when perf prints nothing at all, as for msr/smi/ without cycles
 * and aperf). An event without any metric yields one line with
 * format == unit == NULL. Only call this for counted values.
 */
int metrics_compute(const struct stat_result *res, int ev, int aggr, struct metric_line *out,
		    int max);

#endif
