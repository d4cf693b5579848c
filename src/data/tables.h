/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `bperf data csv`: readperf's four tables. stat.csv (records per type), overview.csv (every
 * record in time order), processes.csv (per process) and results.csv (per function).
 */
#ifndef BPERF_DATA_TABLES_H
#define BPERF_DATA_TABLES_H

#include <stdio.h>

#include "hists.h"
#include "session.h"

/* overview.csv: the header line, then one line per record as the session delivers it */
void tables_overview_header(FILE *out);
void tables_overview_record(struct data_session *s, const struct data_record *rec,
			    const struct data_sample *smp, const struct data_location *loc,
			    FILE *out);
void tables_write_stat(const struct data_session *s, FILE *out);
void tables_write_processes(const struct data_session *s, FILE *out);
void tables_write_results(const struct data_session *s, const struct data_hists *h, FILE *out);
/* A CSV field, quoted when it holds a comma, quote or line break. */
void csv_field(FILE *out, const char *s);

#endif
