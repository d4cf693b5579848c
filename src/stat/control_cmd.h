/* SPDX-License-Identifier: GPL-2.0-only */
/* What --control commands do to a running session: perf 6.1's command set. */
#ifndef BPERF_STAT_CONTROL_CMD_H
#define BPERF_STAT_CONTROL_CMD_H

#include "control.h"
#include "session.h"

/* perf's messages when counting starts or stops (-D, --control), on stderr */
#define EVENTS_ENABLED_MSG "Events enabled"
#define EVENTS_DISABLED_MSG "Events disabled"

/*
 * Runs every complete command waiting on the control descriptor: enable [NAME],
 * disable [NAME], ping, evlist [-v|-g|-F], stop and snapshot (no effect on stat), acking each
 * as perf does. Unknown commands are ignored.
 */
void control_process(struct stat_control *c, struct stat_session *s);

#endif
