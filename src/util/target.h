/* SPDX-License-Identifier: GPL-2.0-only */
/* What is counted: CPU and thread maps built from -a, -C, -p, -t or the workload. */
#ifndef BPERF_TARGET_H
#define BPERF_TARGET_H

#include <stdbool.h>
#include <sys/types.h>

struct cpu_map {
	int nr;
	int *cpus;	/* -1 alone: "any CPU" (per-task counting) */
};

struct thread_map {
	int nr;
	pid_t *tids;	/* -1 alone: "any task" (per-CPU counting) */
	char (*comms)[64];	/* /proc comm; kernel threads' can exceed 16 bytes */
};

struct target {
	struct cpu_map cpus;
	struct thread_map threads;
	bool system_wide;	/* per-CPU counting of all tasks (-a, -C, or no workload) */
	bool has_task;		/* -p or -t */
	bool pids;		/* -p: the threads are those of whole processes */
	bool forked;		/* a workload is forked and counted */
};

/* Parses a perf CPU list ("0-3,7"); -EINVAL when nothing valid comes first. */
int cpu_map_parse(struct cpu_map *map, const char *list);
/* The list in a sysfs file ("0-3,7\n": online, present, a node's cpulist); -errno. */
int cpu_map_read(struct cpu_map *map, const char *path);
int cpu_map_online(struct cpu_map *map);
/* The first max ids of a sysfs list file into ids[], in order: how many, or -errno. */
int cpu_list_read_ids(const char *path, int *ids, int max);
void cpu_map_any(struct cpu_map *map);
void cpu_map_free(struct cpu_map *map);
/* Whether cpu is one of map's. */
bool cpu_map_has(const struct cpu_map *map, int cpu);
/* The list in perf's short form, "0-3,7". */
char *cpu_map_to_string(const struct cpu_map *map);

/* -p: every thread of each process; -ESRCH if a process has none. */
int thread_map_from_pids(struct thread_map *map, const char *list);
/* -t: the thread ids as given (perf_event_open reports the dead ones). */
int thread_map_from_tids(struct thread_map *map, const char *list);
/* --per-thread -a: every thread of every process, as perf's all-threads map. */
int thread_map_all(struct thread_map *map);
void thread_map_single(struct thread_map *map, pid_t tid);
void thread_map_free(struct thread_map *map);
/* Re-reads /proc/<tid>/comm for every thread (after exec or at print time). */
void thread_map_read_comms(struct thread_map *map);

void target_free(struct target *target);

#endif
