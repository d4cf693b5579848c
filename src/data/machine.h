/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The processes of a recording as its records build them, in time order: FORK adds a process
 * (with a copy of its parent's maps) or a thread, COMM names it, MMAP/MMAP2 map a binary over
 * whatever was there, EXIT ends it. A sample's ip resolves against the maps as they stand
 * then: a binary, a function in it, or perf's [unknown].
 */
#ifndef BPERF_DATA_MACHINE_H
#define BPERF_DATA_MACHINE_H

#include "dso.h"

struct data_map {
	__u64 start, end, pgoff;
	struct data_dso *dso;
	bool identity;		/* memory without a file: the ip is the address, as in perf */
};

struct data_process {
	__u32 pid, ppid;
	char comm[32];
	struct data_map *maps;	/* sorted, not overlapping */
	size_t nr_maps, cap_maps;
	__u32 nr_threads;
	__u64 samples, period;
	__u64 start_time, exit_time;	/* 0 if not seen */
	bool exited;
	struct data_process *hash_next;
};

struct data_machine {
	struct data_dsos dsos;
	struct data_process **by_pid;	/* hash of the live process of each pid */
	size_t hash_size;
	struct data_process **all;	/* in creation order, dead ones too */
	size_t nr_all;
	/* threads only counted: tid -> pid for a thread's first sight */
	__u32 *tids;
	size_t nr_tids, cap_tids;
};

/* What an ip of a sample is. */
struct data_location {
	struct data_dso *dso;		/* NULL: [unknown] */
	const struct data_symbol *sym;	/* NULL: unknown, addr says where */
	__u64 addr;			/* perf's map-relative address */
	char level;			/* perf's [k] [.] [H] [g] [u] */
};

void data_machine_init(struct data_machine *m);
void data_machine_free(struct data_machine *m);
/* The live process of pid, created (comm "pid") if unknown. */
struct data_process *data_machine_process(struct data_machine *m, __u32 pid);
void data_machine_fork(struct data_machine *m, __u32 pid, __u32 ppid, __u32 tid, __u64 time);
void data_machine_exit(struct data_machine *m, __u32 pid, __u32 tid, __u64 time);
void data_machine_comm(struct data_machine *m, __u32 pid, __u32 tid, const char *comm);
/* An MMAP or MMAP2 record (sample.h's struct data_mmap). */
struct data_mmap;
void data_machine_mmap(struct data_machine *m, const struct data_mmap *mm);
void data_machine_resolve(struct data_machine *m, __u32 pid, unsigned int cpumode, __u64 ip,
			  struct data_location *loc);
/* Counts tid (once) as a thread of its process. */
void data_machine_thread_seen(struct data_machine *m, __u32 pid, __u32 tid);

#endif
