/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf check's measured runs: this bperf's `stat -x,` of a shipped workload, started as a child
 * so that each run is what a user's would be, and its CSV output read back (check_run.c).
 */
#ifndef BPERF_CHECK_CHECK_RUN_H
#define BPERF_CHECK_CHECK_RUN_H

#include <stdbool.h>
#include <sys/types.h>

/* One event line of the CSV output (with -I, of one interval). */
struct stat_row {
	char event[64];
	bool interval;		/* an -I line: the interval's time came first */
	bool counted;		/* a number, not <not supported> or <not counted> */
	unsigned long long count;
	double pct;		/* the percentage of its enabled time it ran */
};

struct stat_rows {
	struct stat_row *rows;
	int nr;
	char why[320];		/* a failed run: its exit and the last line it printed */
};

/* A run on its way: the child and where its output goes. */
struct stat_child {
	pid_t pid;
	char *out;
	char *log;
	bool interrupted;	/* ended by stat_child_interrupt(): dying of SIGINT is its success */
};

/*
 * Starts `SELF stat -x, -o DIR/NAME.csv --bpf-attr-map MAP ARGS...` (args ends with NULL; a
 * workload after "--"), its stdout and stderr to DIR/NAME.log. 0 or -errno.
 */
int stat_child_start(struct stat_child *c, const char *self, const char *dir, const char *name,
		     const char *map, const char *const *args);
/* SIGINT, which ends a session without a workload as perf's does: it prints, then dies of it. */
void stat_child_interrupt(struct stat_child *c);
/* The event lines (of every interval, with -I) it has written so far. */
int stat_child_lines(const struct stat_child *c);
/* Waits for it and reads its rows (freed with stat_rows_free): 0, or -1 with rows->why. */
int stat_child_finish(struct stat_child *c, struct stat_rows *rows);
void stat_rows_free(struct stat_rows *rows);
/* Both, one after the other. */
int stat_run(const char *self, const char *dir, const char *name, const char *map,
	     const char *const *args, struct stat_rows *rows);
/* The row of event (as bperf prints its name), or NULL. */
const struct stat_row *stat_row_find(const struct stat_rows *rows, const char *event);

#endif
