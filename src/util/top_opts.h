/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's options before the command (--debug, --no-pager, -vv), which main.c parses and every
 * command takes; a struct of plain values, so that it sits below every layer.
 */
#ifndef BPERF_TOP_OPTS_H
#define BPERF_TOP_OPTS_H

#include <stdbool.h>

struct top_opts {
	int verbose;		/* --debug verbose[=N]: as many -v, for every command */
	bool trace_opens;	/* --debug perf-event-open: each attr and open, as at -vv */
	bool no_pager;		/* --no-pager: bperf list prints as to a pipe */
	bool build_options;	/* -vv: perf's `version --build-options` */
};

#endif
