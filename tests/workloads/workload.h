/* SPDX-License-Identifier: GPL-2.0-only */
/* Argument parsing shared by the test workloads: each takes one non-negative count. */
#ifndef BPERF_WORKLOAD_H
#define BPERF_WORKLOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* Parses argv[idx] as a decimal count or exits 2 with a usage line. */
static inline unsigned long workload_count(int argc, char **argv, int idx, const char *usage)
{
	unsigned long value;
	char *end;

	if (idx >= argc) {
		fprintf(stderr, "usage: %s %s\n", argv[0], usage);
		exit(2);
	}
	errno = 0;
	value = strtoul(argv[idx], &end, 10);
	if (errno || end == argv[idx] || *end || argv[idx][0] == '-') {
		fprintf(stderr, "%s: bad count '%s'\nusage: %s %s\n", argv[0], argv[idx], argv[0],
			usage);
		exit(2);
	}
	return value;
}

#endif
