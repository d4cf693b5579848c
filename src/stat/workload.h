/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The forked workload: created stopped at a pipe so its counters can be
 * opened first (enable_on_exec then starts them at exec), then released.
 */
#ifndef BPERF_WORKLOAD_H
#define BPERF_WORKLOAD_H

#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

struct workload {
	pid_t pid;
	int go_fd;	/* write end: closing it lets the child exec */
	int err_fd;	/* read end: the child writes errno here if exec fails */
	int status;	/* wait status once reaped */
	struct rusage rusage;
	bool reaped;
};

/* Forks the child; it waits until workload_start(). */
int workload_prepare(struct workload *w, const char **argv);
/* Lets the child exec; -ESRCH when it died before (killed meanwhile: nothing will run). */
int workload_start(struct workload *w);
/* Waits until the exec happened; returns -errno from a failed exec (e.g. -ENOENT). */
int workload_exec_result(struct workload *w);
/* Waits for the child (EINTR returns -EINTR so signals can be handled). */
int workload_wait(struct workload *w, bool block);
/* Kills and reaps a child that was never started or must stop. */
void workload_kill(struct workload *w, int sig);

#endif
