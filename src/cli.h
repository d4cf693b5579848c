/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf's command line before the command, as perf.c has it: the options every command
 * shares (--debug, --no-pager, ...), and the help and version commands.
 */
#ifndef BPERF_CLI_H
#define BPERF_CLI_H

#include "util/top_opts.h"

#define BPERF_VERSION "0.1.0"
#define BPERF_USAGE_STRING "bperf [--version] [--help] [OPTIONS] COMMAND [ARGS]"

/* "\n usage: ...\n\n", the commands and the pointer to `bperf help COMMAND`, on stdout. */
void print_main_usage(void);

/* `bperf help [--all] [--man] [COMMAND]`: the command list, or bperf(1) through man(1). */
int cmd_help(int argc, const char **argv, const struct top_opts *top);

/* `bperf version [--build-options]` (top->build_options: perf's -vv). */
int cmd_version(int argc, const char **argv, const struct top_opts *top);

/* perf's `--list-cmds`: every command on one line. */
void print_command_names(void);

#endif
