/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPERF_CMD_STAT_H
#define BPERF_CMD_STAT_H

/* `bperf stat ...`: returns the process exit code. */
int cmd_stat(int argc, const char **argv);

#endif
