/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPERF_CMD_DATA_H
#define BPERF_CMD_DATA_H

struct top_opts;

/* bperf data {dump|csv|top}: reading `perf record` files (it prints no debug lines). */
int cmd_data(int argc, const char **argv, const struct top_opts *top);

#endif
