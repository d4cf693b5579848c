/* SPDX-License-Identifier: GPL-2.0-only */
/* Types shared by bpf/prog_profiler.bpf.c and src/counters/prog_profiler.c. */
#ifndef BPERF_PROG_PROFILER_H
#define BPERF_PROG_PROFILER_H

/* One CPU's totals for one target program, in the per-CPU map totals. */
struct prog_profile {
	__u64 counter;	/* sum of (exit - entry) readings of the event */
	__u64 enabled;	/* the same differences of the event's time enabled ... */
	__u64 running;	/* ... and running, to scale a multiplexed event */
	__u64 runs;	/* exits of the target seen */
};

#endif
