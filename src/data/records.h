/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Decoders of the data-section records of a stat file, each checking the record's size and
 * the counts it claims against that size. They report a problem with data_error() (the
 * record's offset named) and return -EINVAL.
 */
#ifndef BPERF_DATA_RECORDS_H
#define BPERF_DATA_RECORDS_H

#include <sys/types.h>

#include "reader.h"

/* CPU numbers are u16 in perf's records; this one means "any CPU" (per-task counting). */
#define DATA_CPU_ANY 0xffff

struct data_thread_map {
	int nr;
	pid_t *pids;		/* -1: any thread (per-CPU counting) */
	char (*comms)[64];	/* NUL-terminated, "" unless recorded with --per-thread */
};

struct data_stat_config {
	__u64 aggr_mode;	/* enum file_aggr_mode */
	__u64 interval_ms;
	bool scale;
};

struct data_event_update {
	__u64 type;		/* enum event_update_type */
	__u64 id;
	const char *text;	/* UNIT and NAME: in the record, NUL-terminated */
	double scale;		/* SCALE */
};

/* HEADER_ATTR (pipe format): the attr and its ids (pointing into the record). */
int data_decode_header_attr(struct perf_data_reader *r, const struct data_record *rec,
			    struct perf_event_attr *attr, const __u64 **ids, __u32 *nr_ids);
int data_decode_event_update(struct perf_data_reader *r, const struct data_record *rec,
			     struct data_event_update *u);
/* Allocates the map's arrays (data_thread_map_free). */
int data_decode_thread_map(struct perf_data_reader *r, const struct data_record *rec,
			   struct data_thread_map *map);
void data_thread_map_free(struct data_thread_map *map);
/* Allocates *cpus: CPU numbers in the record's order, -1 for "any". */
int data_decode_cpu_map(struct perf_data_reader *r, const struct data_record *rec, int **cpus,
			int *nr);
/* Fills only the tags present (the caller sets the defaults). */
int data_decode_stat_config(struct perf_data_reader *r, const struct data_record *rec,
			    struct data_stat_config *cfg);
int data_decode_stat(struct perf_data_reader *r, const struct data_record *rec,
		     struct rec_stat *st);
int data_decode_stat_round(struct perf_data_reader *r, const struct data_record *rec,
			   struct rec_stat_round *round);

#endif
