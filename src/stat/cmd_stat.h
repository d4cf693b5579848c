/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPERF_CMD_STAT_H
#define BPERF_CMD_STAT_H

struct top_opts;

/* `bperf stat ...` under bperf's options before the command: returns the process exit code. */
int cmd_stat(int argc, const char **argv, const struct top_opts *top);

#endif
