/* SPDX-License-Identifier: GPL-2.0-only */
/* `bperf stat report`: replays a perf.data file of counts through the live printers. */
#ifndef BPERF_STAT_REPORT_H
#define BPERF_STAT_REPORT_H

#include <stdbool.h>

#include "../output/output.h"
#include "options.h"
#include "../metrics/result.h"

struct report_options {
	const char *input;		/* -i, default "perf.data" */
	enum aggr_mode aggr_mode;	/* used when aggr_mode_given */
	bool aggr_mode_given;
	struct output_config out;
};

/* Reads and prints one file. Returns 0, or 255 after one message naming the problem. */
int stat_report_file(const struct report_options *ro);

/*
 * `stat [options] report [options]`: argv[0] is "report"; opts holds the stat options given
 * before it (-x, -j, -B, ...). Returns the exit code.
 */
int cmd_stat_report(const struct stat_options *opts, int argc, const char **argv);

#endif
