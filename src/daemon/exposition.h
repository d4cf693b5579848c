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

#include "../util/byte_buf.h"
#include "snapshot.h"

#define CONTENT_TYPE_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CONTENT_TYPE_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* A q value as RFC 9110 spells it: 0, 1, or 0.ddd (at most 3 digits), x 1000; -1 if malformed. */
int accept_parse_q(const char *p, const char *end);
/* Whether an Accept header value prefers OpenMetrics 1.0 (NULL: no header, plain text). */
bool accept_wants_openmetrics(const char *accept);
/*
 * The family name of an event ("page-faults" -> "bperf_page_faults", a clock ->
 * "bperf_cpu_clock_seconds"), without _total. Two events with one family name cannot be
 * exported together: the daemon checks this at start. Returns the length or -ENAMETOOLONG.
 */
int exposition_family(const char *event, bool seconds, char *buf, size_t size);
/*
 * The three shapes of a snapshot's series (snapshot.h), each its own family: bperf_EVENT per
 * CPU, bperf_cgroup_EVENT per cgroup, bperf_cgroup_cpu_EVENT per cgroup and CPU.
 */
enum exposition_shape { SHAPE_MACHINE, SHAPE_CGROUP, SHAPE_CGROUP_CPU };
/*
 * The family name of an event's series of one shape, without _total: its count (times false),
 * or its enabled or running time (times, times_running). The length, or -ENAMETOOLONG.
 */
int exposition_shape_family(const char *event, bool seconds, enum exposition_shape shape,
			    bool times_running, bool times, char *buf, size_t size);
/* Appends the whole exposition (OpenMetrics ends with "# EOF"); 0 or -errno. */
int exposition_write(struct byte_buf *out, const struct snapshot *s, bool openmetrics);

#endif
