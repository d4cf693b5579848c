/* SPDX-License-Identifier: GPL-2.0-only */
/* --metric-only: metric headers and values instead of counter lines. */
#ifndef BPERF_OUTPUT_METRIC_ONLY_H
#define BPERF_OUTPUT_METRIC_ONLY_H

#include "output.h"

/* The header and value rows, global aggregation without -I (what bperf supports). */
void print_metric_only(const struct output_config *cfg, const struct stat_result *res);

#endif
