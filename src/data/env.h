/* SPDX-License-Identifier: GPL-2.0-only */
/* What `stat report` takes from a perf.data file's feature sections. */
#ifndef BPERF_DATA_ENV_H
#define BPERF_DATA_ENV_H

#include "reader.h"

struct data_event_desc {
	struct perf_event_attr attr;
	char *name;
	__u64 *ids;
	__u32 nr_ids;
};

#define DATA_MAX_CPUS 65536

struct data_env {
	char **cmdline;			/* CMDLINE: the recording's command line, program first */
	int nr_cmdline;
	struct data_event_desc *events;	/* EVENT_DESC: names of the attrs */
	int nr_events;
	int nr_cpus_avail;		/* NRCPUS */
	/* CPU_TOPOLOGY and NUMA_TOPOLOGY by CPU number, -1 where unknown; [nr_cpus_avail] */
	int *core_id;
	int *socket_id;
	int *die_id;
	int *node_id;
};

/* Reads the features above (the others are skipped). 0 or -EINVAL (message printed). */
int data_env_read(struct perf_data_reader *r, struct data_env *env);
void data_env_free(struct data_env *env);

#endif
