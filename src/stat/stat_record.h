/* SPDX-License-Identifier: GPL-2.0-only */
/* `bperf stat record`: the counts of a live session, written to perf.data as perf does. */
#ifndef BPERF_STAT_RECORD_H
#define BPERF_STAT_RECORD_H

#include <linux/types.h>
#include <stdbool.h>

#include "session.h"

struct stat_recorder;

/* Creates the file (the old one kept as .old). argv is the command line from "stat" on. */
struct stat_recorder *stat_recorder_open(const char *path, int argc, const char **argv);
/* Header, attrs and the maps and config records; once the session is open. 0 or exit code. */
int stat_recorder_start(struct stat_recorder *rec, const struct stat_session *s);
/* One STAT record per counter, CPU and thread with the session's cumulative counts. */
void stat_recorder_counts(struct stat_recorder *rec, const struct stat_session *s);
void stat_recorder_round(struct stat_recorder *rec, bool final, __u64 time_ns);
/* The kernel map, the feature sections and the final header. 0 or exit code. */
int stat_recorder_finish(struct stat_recorder *rec, bool interval);
void stat_recorder_free(struct stat_recorder *rec);

#endif
