/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf's built-in metrics for -M: generic ones over perf's generic events, so that they mean
 * the same on every CPU (perf 6.1 takes its metrics from tables per CPU model instead).
 */
#ifndef BPERF_METRIC_TABLE_H
#define BPERF_METRIC_TABLE_H

#include <stdbool.h>
#include <stdio.h>

struct metric_def {
	const char *name;
	const char *groups;	/* ';'-separated metric groups */
	const char *expr;	/* see metric_expr.h */
	/* perf's ScaleUnit: "100%" multiplies by 100 and prints "%"; NULL: plain ratio */
	const char *scale_unit;
	const char *desc;
};

extern const struct metric_def metric_table[];
extern const int metric_table_size;

/* Does name (case-insensitive) name this metric or one of its groups? */
bool metric_def_matches(const struct metric_def *def, const char *name);

/*
 * `bperf list` of the metrics in perf list's layout: metrics (one sorted list), groups (the
 * group names), or both (each group with its metrics); filter keeps the groups whose name
 * contains it; raw is --raw-dump's names on a line.
 */
void metric_table_print(FILE *out, bool metrics, bool groups, const char *filter, bool raw);

#endif
