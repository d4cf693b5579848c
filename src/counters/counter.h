/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A counter is one evsel counted on a CPU map x thread map by a backend.
 * Backends (direct perf_event, shared BPF, BPF-program profiler) sit behind
 * one ops table so that the stat loop never asks where a count comes from.
 */
#ifndef BPERF_COUNTER_H
#define BPERF_COUNTER_H

#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>

#include "../events/evlist.h"
#include "../util/target.h"

struct raw_count {
	__u64 val;
	__u64 ena;
	__u64 run;
};

struct counter;
struct bpf_prog_targets;
struct daemon_conn;

/* perf's "missing features": learnt from EINVAL retries, kept for the command's every run */
struct missing_features {
	bool cloexec;		/* the kernel refused PERF_FLAG_FD_CLOEXEC */
	bool exclude_guest;	/* ... exclude_guest / exclude_host */
	bool sample_id_all;	/* ... sample_id_all */
};

/* What every open needs to know besides the counter itself. */
struct open_ctx {
	const struct target *target;
	int verbose;
	bool trace_opens;	/* --debug perf-event-open: the -vv attr dumps and open traces */
	FILE *log;		/* -vv attr dumps and open traces go here (stderr) */
	struct missing_features *missing; /* never NULL */
	bool ignore_missing_thread; /* -p: a thread that exited before its open is skipped */
	const char *bpf_attr_map;   /* shared counters: the pinned attr map's path */
	const struct bpf_prog_targets *bpf_progs; /* -b: the programs counted, else NULL */
	struct daemon_conn *daemon; /* shared counters through bperf daemon, else NULL */
};

struct counter_ops {
	const char *name;
	/* What the session may rely on, without asking which backend it has: */
	bool per_program;	/* counts[] per (CPU, target program) of -b, not per thread */
	bool user_fallback;	/* perf events of this user: perf's ":u" retry of a refusal */
	bool needs_bpf_caps;	/* CAP_SYS_ADMIN; without it the daemon (backend.h: no_caps) */
	bool weak_groups;	/* a refused weak group member dissolves its group */
	/*
	 * Opens on cpu index cpu_idx of the target (every thread). Returns 0, the kernel's
	 * -errno (the session reports it as perf does), or -ECANCELED when the backend has
	 * already printed why it cannot go on.
	 */
	int (*open_cpu)(struct counter *c, struct open_ctx *ctx, int cpu_idx);
	/*
	 * The other ops return 0 or -errno, and print nothing unless they return -ECANCELED (said
	 * already): the session names the event and the error, perf's bpf_counter_ops' contract.
	 */
	int (*enable)(struct counter *c);
	int (*disable)(struct counter *c);
	/*
	 * Fills c->counts with cumulative values. A backend reads what it can and returns the
	 * first error; the session then marks the counter read_failed (<not counted>, as perf
	 * prints a counter any of whose reads failed) and zeroes its counts.
	 */
	int (*read)(struct counter *c);
	/* --filter: hands the filter to every fd of the event; NULL where there is none. */
	int (*set_filter)(struct counter *c, const char *filter);
	void (*close)(struct counter *c);
};

struct counter {
	struct evsel *evsel;
	const struct counter_ops *ops;
	struct counter *leader;	 /* group leader (itself when alone) */
	/* a group leader's counters in group order, members[0] being itself; NULL when alone */
	struct counter **members;
	int member_idx;		 /* place in its group: 0 for a leader or a lone event */
	void *priv;		 /* the backend's state */
	int nr_cpus;
	int nr_threads;		 /* with -b: the target programs */
	struct raw_count *counts; /* [cpu_idx * nr_threads + thread_idx] */
	bool supported;		 /* false once the kernel refused the event */
	bool read_failed;	 /* the last read failed: printed as <not counted> */
	int open_err;		 /* -errno of the refusal */
};

static inline struct raw_count *counter_count(struct counter *c, int cpu_idx, int thread_idx)
{
	return &c->counts[cpu_idx * c->nr_threads + thread_idx];
}

extern const struct counter_ops direct_counter_ops;
extern const struct counter_ops shared_counter_ops;
extern const struct counter_ops prog_profiler_counter_ops;
extern const struct counter_ops bpf_stats_counter_ops;
/* shared counters for users without the capabilities: through bperf daemon's socket */
extern const struct counter_ops daemon_counter_ops;

/* The backend's fd for (cpu, thread), for group members; -1 if none. */
int direct_counter_fd(const struct counter *c, int cpu_idx, int thread_idx);

/* True for the errors perf reports as <not supported> rather than failing. */
bool open_error_is_unsupported(int err);

#endif
