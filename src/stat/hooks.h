/* SPDX-License-Identifier: GPL-2.0-only */
/* --pre and --post: shell commands run around each measured run. */
#ifndef BPERF_STAT_HOOKS_H
#define BPERF_STAT_HOOKS_H

/*
 * Runs cmd with /bin/sh -c (stdout and stderr are bperf's), with the signals the run loop
 * blocks unblocked for it. which names the option ("pre", "post") for the message. Returns 0,
 * or EXIT_FATAL after one line saying how the command failed.
 */
int run_hook(const char *which, const char *cmd);

#endif
