/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The Prometheus text format 0.0.4 and OpenMetrics 1.0 expositions of a snapshot, names in
 * Prometheus's conventions (bperf_<event>_total, _seconds_total for clocks), label values
 * escaped and made valid UTF-8.
 */
#ifndef BPERF_DAEMON_EXPOSITION_H
#define BPERF_DAEMON_EXPOSITION_H

#include <stdbool.h>
#include <stddef.h>

#include "../data/byte_buf.h"
#include "snapshot.h"

#define CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* Whether an Accept header value prefers OpenMetrics 1.0 (NULL: no header, plain text). */
bool accept_wants_openmetrics(const char *accept);
/*
 * The family name of an event ("page-faults" -> "bperf_page_faults", a clock ->
 * "bperf_cpu_clock_seconds"), without _total. Two events with one family name cannot be
 * exported together: the daemon checks this at start. Returns the length or -ENAMETOOLONG.
 */
int exposition_family(const char *event, bool seconds, char *buf, size_t size);
/* Appends the whole exposition (OpenMetrics ends with "# EOF"); 0 or -errno. */
int exposition_write(struct byte_buf *out, const struct snapshot *s, bool openmetrics);

#endif
