// SPDX-License-Identifier: GPL-2.0-only
/* spin MS: busy-loop until this process has used MS milliseconds of CPU time. */
#include <stdio.h>
#include <time.h>

#include "workload.h"

static unsigned long long cpu_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	unsigned long long end = cpu_time_ns() + workload_count(argc, argv, 1, "MS") * 1000000ULL;
	volatile unsigned long spins = 0;

	while (cpu_time_ns() < end)
		spins++;
	return 0;
}
