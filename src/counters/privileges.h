/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The capabilities BPF counting needs, checked before anything is created so that a user
 * without them gets one line and leaves no BPF object, pin or attr map entry behind.
 */
#ifndef BPERF_PRIVILEGES_H
#define BPERF_PRIVILEGES_H

#include <stdbool.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* cap (a CAP_* number) in the effective set, or CAP_SYS_ADMIN, which grants the BPF ones */
bool has_effective_cap(int cap);

/*
 * Shared counters load raw tracepoint programs, pin the attr map and open per-CPU events (CAP_BPF
 * and CAP_PERFMON), and find each other's leaders by id: the kernel hands links, programs and
 * maps out by id (BPF_*_GET_FD_BY_ID, GET_NEXT_ID) to CAP_SYS_ADMIN only, so without it no two
 * sessions could share. They need CAP_SYS_ADMIN, which grants the other two. asked_by names what
 * asked for them ("--bpf-counters", "task-clock:b", ...). Returns 0, or -EPERM after printing
 * what is missing.
 */
int require_shared_counter_caps(const char *asked_by);

/* -b: the kernel hands out other programs by id to CAP_SYS_ADMIN only. Returns 0 or -EPERM. */
int require_bpf_prog_caps(void);

#endif
