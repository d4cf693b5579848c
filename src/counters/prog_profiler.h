/* SPDX-License-Identifier: GPL-2.0-only */
/* bperf stat -b on kernels with BPF trampolines: fentry/fexit programs on each target. */
#ifndef BPERF_COUNTERS_PROG_PROFILER_H
#define BPERF_COUNTERS_PROG_PROFILER_H

#include "bpf_prog_targets.h"

/*
 * Loads and attaches a run counter (fexit only) on target, then removes it. Returns 0 with
 * *refusal set to the errno when the kernel refuses trampolines (0 when it takes them), or
 * -errno after printing why for any other failure.
 */
int prog_profiler_probe(const struct bpf_prog_target *target, int *refusal);

#endif
