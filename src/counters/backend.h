/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Which backend counts an event: the one choice of counters/, so that the session above never
 * names a backend (counter.h's contract).
 */
#ifndef BPERF_BACKEND_H
#define BPERF_BACKEND_H

#include <stdbool.h>

#include "counter.h"

struct bpf_prog_targets;

/* What the session knows of one event and its run. */
struct backend_request {
	const struct evlist *evlist;
	const struct evsel *evsel;
	const struct bpf_prog_targets *bpf_progs;	/* -b: the target programs, else NULL */
	bool shared;		/* shared counters were asked for this event's group */
	bool per_thread;	/* --per-thread */
	bool no_caps;		/* shared counters come through bperf daemon's socket */
	int verbose;		/* -v says why an event asked to share is counted directly */
};

/*
 * -b: the programs' runs (the profiler, or kernel statistics where there are no trampolines);
 * shared counters where asked and the event's group can share (through the daemon with
 * no_caps); direct perf events otherwise.
 */
const struct counter_ops *counter_backend(const struct backend_request *req);

#endif
