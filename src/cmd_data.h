/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPERF_CMD_DATA_H
#define BPERF_CMD_DATA_H

/* bperf data {dump|csv|top}: reading `perf record` files. */
int cmd_data(int argc, const char **argv);

#endif
