/* SPDX-License-Identifier: GPL-2.0-only */
/* One counting session: the target, its counters, and their life cycle. */
#ifndef BPERF_SESSION_H
#define BPERF_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "../counters/counter.h"
#include "options.h"
#include "../util/target.h"

struct stat_session {
	const struct stat_options *opts;
	struct evlist *evlist;
	struct target target;
	struct counter *counters;	/* [evlist->nr] */
	bool *supported;		/* [evlist->nr] */
	struct open_ctx open_ctx;
	char *target_desc;		/* the header's "for ..." text */
	/*
	 * [evlist->nr] or NULL, owned by the caller and kept across -r runs: the events the kernel
	 * refused as not supported. As perf, later runs do not open them again, and the members of
	 * such a leader are opened on their own (their group reads then fail: <not counted>).
	 */
	bool *errored;
	/* the open_ctx's unless the caller points it at its own, kept across -r runs as perf's */
	struct missing_features missing;
};

struct bpf_prog_targets;

/*
 * Builds the target from the options (and the forked workload's pid, or 0; the -b programs,
 * or NULL). Returns 0, or the exit code after printing perf's message.
 */
int session_init(struct stat_session *s, const struct stat_options *opts,
		 struct evlist *evlist, pid_t workload_pid,
		 const struct bpf_prog_targets *bpf_progs);
/*
 * Opens every counter; unsupported events are marked. Returns 0, 255 after an open error, or
 * -EPERM (said) when the process lacks the capabilities shared counters need.
 */
int session_open(struct stat_session *s);
/*
 * Every counter on or off: the first error (each one said, naming its event; the others are
 * switched all the same). session_switch() does counter i (--control). A backend that cannot
 * go on (-ECANCELED, said: the daemon is gone and the counts with it) ends the run here, and
 * its workload with it, as session_read() does.
 */
int session_enable(struct stat_session *s);
int session_disable(struct stat_session *s);
int session_switch(struct stat_session *s, int i, bool enable);
/*
 * Reads every backend; tool events get the given times (ns). A counter whose read failed is
 * marked read_failed, its counts zero; the first error is returned.
 */
int session_read(struct stat_session *s, __u64 duration_ns, __u64 user_ns, __u64 sys_ns);
/* -v / -vv: the raw counts, as perf prints them before the table. */
void session_print_raw(const struct stat_session *s, FILE *out);
void session_close(struct stat_session *s);
void session_free(struct stat_session *s);

#endif
