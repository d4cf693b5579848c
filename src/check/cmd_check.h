/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef BPERF_CHECK_CMD_CHECK_H
#define BPERF_CHECK_CMD_CHECK_H

struct top_opts;

/* `bperf check [-j] [-v] [--workloads DIR] [--bpf-attr-map PATH]`: this machine's self-check. */
int cmd_check(int argc, const char **argv, const struct top_opts *top);

#endif
