// SPDX-License-Identifier: GPL-2.0-only
/*
 * sleeper MS: sleep MS milliseconds of wall time, using (almost) no CPU. SIGUSR1 ends the sleep
 * early with exit status 0, for tests that hold a session open as long as they need it.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "workload.h"

static volatile sig_atomic_t woken;

static void wake(int sig)
{
	(void)sig;
	woken = 1;
}

int main(int argc, char **argv)
{
	unsigned long ms = workload_count(argc, argv, 1, "MS");
	struct timespec left = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
	struct sigaction sa = { .sa_handler = wake };

	sigaction(SIGUSR1, &sa, NULL);
	while (!woken && nanosleep(&left, &left) && errno == EINTR)
		;
	return 0;
}
