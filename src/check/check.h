/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf check: what this machine can count, and whether shared counting is exact on it. Each
 * part adds lines to one report: facts (info) and verdicts (ok, skip, warn, fail), printed as a
 * table or as JSON by check_print.c. A verdict is fail only where bperf's counting would be
 * wrong or impossible although the user may count; what this user may not do is warn or skip.
 */
#ifndef BPERF_CHECK_CHECK_H
#define BPERF_CHECK_CHECK_H

#include <linux/types.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

enum check_verdict { CHECK_INFO, CHECK_OK, CHECK_SKIP, CHECK_WARN, CHECK_FAIL };

struct check_line {
	char *name;
	enum check_verdict verdict;
	char *detail;
};

struct check_report {
	struct check_line *lines;
	int nr;
};

/* What the parts find and later parts use. */
struct check_machine {
	bool core_pmu;		/* PERF_TYPE_HARDWARE events open */
	int counters;		/* general-purpose counters a group can hold, -1 unknown */
	bool cycle_counter;	/* cycles has a counter of its own besides them */
	bool direct_user;	/* this user may count its own tasks in user space */
	bool shared;		/* this user may load shared counters, and the kernel read them */
	bool bpf_root;		/* this user may list leaders and run iterators */
	unsigned long long startup_ns;	/* the wall time of one bperf stat of a tiny workload */
};

struct check_ctx {
	struct check_report report;
	struct check_machine machine;
	const char *self;		/* this bperf, for the measured runs */
	char *workloads;		/* insnloop, pagetouch, pingpong's directory; NULL if none */
	const char *attr_map;		/* the attr map whose leaders are listed */
	char *private_map;		/* the measured runs' own attr map (removed at the end) */
	char *tmpdir;			/* the runs' outputs (removed at the end) */
	volatile sig_atomic_t *stop;	/* set by SIGINT, SIGTERM, SIGHUP: no more runs */
	int verbose;
};

/*
 * One event of this task's, user space only, with group read_format (check_counters.c): its fd,
 * or -errno. The trial opens of counters and of what this user may count.
 */
int check_open_user_event(__u32 type, __u64 config, int group_fd);

void check_add(struct check_report *r, const char *name, enum check_verdict v, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));
bool check_failed(const struct check_report *r);
void check_report_free(struct check_report *r);
void check_print_table(FILE *out, const struct check_report *r);
void check_print_json(FILE *out, const struct check_report *r);

/* The parts, in the order they run. */
void check_system(struct check_ctx *ctx);	/* kernel, CPU, perf's table, PMUs */
void check_counters(struct check_ctx *ctx);	/* counters, the NMI watchdog, free now */
void check_access(struct check_ctx *ctx);	/* paranoid, what this user may count */
void check_bpf(struct check_ctx *ctx);		/* the BPF features bperf uses */
void check_holders(struct check_ctx *ctx);	/* leaders and every other open perf event */
void check_measure(struct check_ctx *ctx);	/* shared against direct on the workloads */
/* (check_measure's last part) sessions on one task: shared at 100%, direct multiplexed */
void check_sessions(struct check_ctx *ctx);

#endif
