/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the unit tests that count per cgroup need before they start: root, perf's cgroup mount
 * (to make their cgroups in) and a writable bpffs (to pin their attr map in). Not in check.h,
 * which every test includes and which needs nothing of bperf.
 */
#ifndef BPERF_TESTS_UNIT_NEEDS_CGROUP_H
#define BPERF_TESTS_UNIT_NEEDS_CGROUP_H

#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "src/events/cgroup.h"

/*
 * Whether the test can run, with perf's cgroup mount in mnt. If not, prints why, the line that
 * ends the output of a test returning EXIT_SKIP.
 */
static inline bool needs_cgroup_bpffs(char *mnt, size_t size)
{
	if (geteuid() != 0) {
		printf("needs root\n");
		return false;
	}
	if (cgroup_mountpoint(mnt, size) || access("/sys/fs/bpf", W_OK)) {
		printf("needs a cgroup hierarchy for perf and bpffs\n");
		return false;
	}
	return true;
}

#endif /* BPERF_TESTS_UNIT_NEEDS_CGROUP_H */
