// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong [-t] N: N round trips of one byte over a pair of pipes between two tasks, forcing at
 * least two context switches per round trip. The partner is a forked child process by default
 * and a thread of the same process with -t.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

struct pingpong {
	int to_partner[2];
	int to_main[2];
	unsigned long round_trips;
};

static int transfer(int from_fd, int to_fd)
{
	char byte = 'x';

	if (read(from_fd, &byte, 1) != 1 || write(to_fd, &byte, 1) != 1)
		return -1;
	return 0;
}

static void *partner(void *arg)
{
	struct pingpong *pp = arg;
	unsigned long i;

	for (i = 0; i < pp->round_trips; i++) {
		if (transfer(pp->to_partner[0], pp->to_main[1])) {
			perror("pingpong: partner");
			return (void *)1;
		}
	}
	return NULL;
}

static int run_main_side(struct pingpong *pp)
{
	char byte = 'x';
	unsigned long i;

	for (i = 0; i < pp->round_trips; i++) {
		if (write(pp->to_partner[1], &byte, 1) != 1 || read(pp->to_main[0], &byte, 1) != 1) {
			perror("pingpong: main");
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *usage = "[-t] ROUND_TRIPS";
	int use_thread = argc > 1 && !strcmp(argv[1], "-t");
	struct pingpong pp = { .round_trips = workload_count(argc, argv, 1 + use_thread, usage) };
	int err = 0;

	if (pipe(pp.to_partner) || pipe(pp.to_main)) {
		perror("pingpong: pipe");
		return 1;
	}

	if (use_thread) {
		pthread_t thread;
		void *ret;

		if (pthread_create(&thread, NULL, partner, &pp)) {
			fprintf(stderr, "pingpong: pthread_create failed\n");
			return 1;
		}
		err = run_main_side(&pp);
		pthread_join(thread, &ret);
		return err || ret ? 1 : 0;
	}

	pid_t child = fork();
	int status;

	if (child < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (!child)
		_exit(partner(&pp) ? 1 : 0);

	err = run_main_side(&pp);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		err = -1;
	return err ? 1 : 0;
}
