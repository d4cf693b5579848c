/* SPDX-License-Identifier: GPL-2.0-only */
/* `bperf data dump`: the file header, attrs, feature sections and every record decoded. */
#ifndef BPERF_DATA_DUMP_H
#define BPERF_DATA_DUMP_H

#include <stdio.h>

#include "session.h"

void data_dump_header(struct data_session *s, FILE *out);
/* The decoded contents of feature section feat (strings, CPUs, memory, cmdline, build ids). */
void data_dump_feature(struct data_session *s, int feat, FILE *out);
/* One record as read; its sample_id_all trailer and sample fields by its event. */
void data_dump_record(struct data_session *s, const struct data_record *rec, FILE *out);
/* The counts by record type, as perf report -D's "Aggregated stats". */
void data_dump_stats(const struct data_session *s, FILE *out);

#endif
