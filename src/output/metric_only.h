/* SPDX-License-Identifier: GPL-2.0-only */
/* --metric-only: metric headers and values instead of counter lines. */
#ifndef BPERF_OUTPUT_METRIC_ONLY_H
#define BPERF_OUTPUT_METRIC_ONLY_H

#include "output.h"

/*
 * The header (when header is set: always without -I, every 25th print with it) and one value
 * row per aggregate, each after prefix (the -I time, "" without -I).
 */
void print_metric_only(const struct output_config *cfg, const struct stat_result *res,
		       const char *prefix, bool header);

#endif
