/* SPDX-License-Identifier: GPL-2.0-only */
/* Walks of /proc shared by every layer. */
#ifndef BPERF_PROC_H
#define BPERF_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Calls fn(tid, ctx) for each thread in /proc/PID/task, in directory order, until fn returns
 * non-zero (returned). -ESRCH when the process is gone or shows no thread.
 */
int proc_for_each_thread(pid_t pid, int (*fn)(pid_t tid, void *ctx), void *ctx);

/* /proc/sys/kernel/nmi_watchdog above 0 (perf's test): the watchdog holds a core counter. */
bool nmi_watchdog_enabled(void);

#endif
