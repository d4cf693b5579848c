/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capabilities BPF counting needs, checked before anything is created so that a user
 * without them gets one line and leaves no BPF object, pin or attr map entry behind.
 */
#ifndef BPERF_PRIVILEGES_H
#define BPERF_PRIVILEGES_H

/*
 * Shared counters load raw tracepoint programs, pin the attr map and open per-CPU events: they
 * need CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN stands for both, as in the kernel). asked_by
 * names what asked for them ("--bpf-counters", "task-clock:b", ...). Returns 0, or 255 after
 * printing what is missing.
 */
int require_shared_counter_caps(const char *asked_by);

/* -b: the kernel hands out other programs by id to CAP_SYS_ADMIN only. Returns 0 or 255. */
int require_bpf_prog_caps(void);

#endif
