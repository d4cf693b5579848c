/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf check's measured runs: this bperf's `stat -x,` of a shipped workload, started as a child
 * so that each run is what a user's would be, and its CSV output read back (check_run.c).
 */
#ifndef BPERF_CHECK_CHECK_RUN_H
#define BPERF_CHECK_CHECK_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#define CHECK_MAX_ROWS 16

/* One event line of the CSV output. */
struct stat_row {
	char event[64];
	bool counted;		/* a number, not <not supported> or <not counted> */
	unsigned long long count;
	double pct;		/* the percentage of its enabled time it ran */
};

struct stat_rows {
	struct stat_row rows[CHECK_MAX_ROWS];
	int nr;
	char why[256];		/* a failed run: the last line it printed */
};

/* A run on its way: the child and where its output goes. */
struct stat_child {
	pid_t pid;
	char *out;
	char *log;
};

/*
 * Starts `SELF stat -x, -o DIR/NAME.csv --bpf-attr-map MAP ARGS...` (args ends with NULL; a
 * workload after "--"), its stdout and stderr to DIR/NAME.log. 0 or -errno.
 */
int stat_child_start(struct stat_child *c, const char *self, const char *dir, const char *name,
		     const char *map, const char *const *args);
/* Waits for it and reads its rows: 0, or -1 with rows->why. */
int stat_child_finish(struct stat_child *c, struct stat_rows *rows);
/* Both, one after the other. */
int stat_run(const char *self, const char *dir, const char *name, const char *map,
	     const char *const *args, struct stat_rows *rows);
/* The row of event (as bperf prints its name), or NULL. */
const struct stat_row *stat_row_find(const struct stat_rows *rows, const char *event);

#endif
