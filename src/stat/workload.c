// SPDX-License-Identifier: GPL-2.0-only
#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/common.h"

int workload_prepare(struct workload *w, const char **argv)
{
	int go[2], err[2];

	memset(w, 0, sizeof(*w));
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	w->pid = fork();
	if (w->pid < 0) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return e;
	}
	if (w->pid == 0) {
		char c;
		int e;

		sigset_t none;

		close(go[1]);
		close(err[0]);
		/* The parent takes its signals synchronously: give the workload a clean mask. */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* Wait for the parent: it opens the counters on this pid meanwhile. */
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execvp(argv[0], (char *const *)argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int workload_start(struct workload *w)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
	int e = 0;

	/* A child gone before its exec closed the pipe: EPIPE, not bperf's death by SIGPIPE. */
	sigaction(SIGPIPE, &ignore, &old);
	if (write(w->go_fd, "g", 1) != 1)
		e = errno;
	sigaction(SIGPIPE, &old, NULL);
	close(w->go_fd);
	w->go_fd = -1;
	return e == EPIPE ? -ESRCH : -e;
}

int workload_exec_result(struct workload *w)
{
	ssize_t n;
	int e = 0;

	/* EOF on exec (the pipe is close-on-exec), or the child's errno. */
	do {
		n = read(w->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

int workload_wait(struct workload *w, bool block)
{
	pid_t ret;

	if (w->reaped)
		return 0;
	ret = wait4(w->pid, &w->status, block ? 0 : WNOHANG, &w->rusage);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return -EAGAIN;
	w->reaped = true;
	return 0;
}

void workload_kill(struct workload *w, int sig)
{
	if (w->go_fd >= 0) {
		close(w->go_fd);
		w->go_fd = -1;
	}
	if (w->err_fd >= 0) {
		close(w->err_fd);
		w->err_fd = -1;
	}
	if (w->reaped || w->pid <= 0)
		return;
	kill(w->pid, sig);
	while (workload_wait(w, true) == -EINTR)
		;
}
