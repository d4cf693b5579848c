// SPDX-License-Identifier: GPL-2.0-only
#include "hooks.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/common.h"

int run_hook(const char *which, const char *cmd)
{
	int status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		pr_err("failed to run --%s command: %s", which, strerror(errno));
		return EXIT_FATAL;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EXIT_FATAL;
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	/* perf 6.1 goes on, prints <not supported> counts and exits 0: say why and stop */
	if (WIFEXITED(status))
		pr_err("--%s command '%s' failed with exit status %d", which, cmd,
		       WEXITSTATUS(status));
	else
		pr_err("--%s command '%s' killed by signal %d (%s)", which, cmd,
		       WTERMSIG(status), strsignal(WTERMSIG(status)));
	return EXIT_FATAL;
}
