/* SPDX-License-Identifier: GPL-2.0-only */
/* tracefs lookups: where tracefs is, and a tracepoint's id. */
#ifndef BPERF_EVENTS_TRACEPOINT_H
#define BPERF_EVENTS_TRACEPOINT_H

#include <stdint.h>

/* "<tracefs>/events" for ctx's tracefs_root, or the mounted one; caller frees */
char *tracing_events_dir(const char *tracefs_root);
/* Reads the ID: line of events/<sys>/<name>/format; 0 or -errno */
int tracepoint_id(const char *events_dir, const char *sys, const char *name, uint64_t *id);

#endif
