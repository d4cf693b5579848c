// SPDX-License-Identifier: GPL-2.0-only
/* sleeper MS: sleep MS milliseconds of wall time, using (almost) no CPU. */
#include <errno.h>
#include <time.h>

#include "workload.h"

int main(int argc, char **argv)
{
	unsigned long ms = workload_count(argc, argv, 1, "MS");
	struct timespec left = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&left, &left) && errno == EINTR)
		;
	return 0;
}
