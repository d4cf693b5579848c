/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What perf stat does when the kernel refuses to open an event: its fallback for
 * kernel.perf_event_paranoid (count user space only, as "name:u") and its messages when it
 * gives up (util/evsel.c's evsel__fallback() and evsel__open_strerror()).
 */
#ifndef BPERF_OPEN_ERROR_H
#define BPERF_OPEN_ERROR_H

#include <stdbool.h>

#include "../events/evlist.h"

/* kernel.perf_event_paranoid, or INT_MAX when it cannot be read (as perf). */
int perf_event_paranoid(void);

/*
 * perf's fallback for err (-errno) from a direct open: EACCES on an event that counts the kernel,
 * above paranoid level 1, excludes the kernel and the hypervisor and appends "u" to the name
 * (":u" unless the name has a ':' or '/' already). An event that excludes user space is left
 * alone. Returns true when the evsel changed and the open is worth another try; -v says so.
 */
bool open_error_fallback(struct evsel *evsel, int err, int verbose);

/*
 * perf's "Error:" text for err (-errno), the refusal that ends the session; per_task: the target
 * has no CPUs (no -a or -C), where perf takes EINVAL for an event that needs them.
 */
void open_error_print(const struct evsel *evsel, int err, bool per_task);

#endif
