// SPDX-License-Identifier: GPL-2.0-only
/*
 * One print callback for libbpf, as libbpf-tools install: libbpf's own warnings would
 * otherwise land on stderr beside output that must equal perf's, so they wait for -v.
 */
#include "bpf_log.h"

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * libbpf's callback takes no context: the level it prints up to can only live here. Set once,
 * before any BPF object is opened.
 */
static enum libbpf_print_level max_level;
static bool silent = true;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (silent || level > max_level)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void bpf_log_init(int verbose)
{
	silent = verbose < 1;
	max_level = verbose >= 2 ? LIBBPF_DEBUG : LIBBPF_INFO;
	libbpf_set_print(print_libbpf);
}
