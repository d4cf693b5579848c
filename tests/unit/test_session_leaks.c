// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opens and frees counting sessions many times, successful ones and failing ones (a dead tid, a
 * live tid followed by a dead one, a dead pid, unsupported events, an offline CPU, and EMFILE
 * part-way through a system-wide open, after some fds are open), and checks that the process
 * ends with exactly the file descriptors it started with and no perf_event fd. Needs root
 * (exit 77 = skipped otherwise).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "check.h"
#include "stat/session.h"

#define NAME "test_session_leaks"
#define ROUNDS 20

struct fd_census {
	int total;
	int perf_events;
};

static struct fd_census count_fds(void)
{
	struct fd_census c = { 0 };
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t n;

	if (!dir) {
		perror(NAME ": /proc/self/fd");
		exit(1);
	}
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.' || atoi(de->d_name) == dirfd(dir))
			continue;
		c.total++;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			if (strstr(target, "perf_event"))
				c.perf_events++;
		}
	}
	closedir(dir);
	return c;
}

struct scenario {
	const char *name;
	const char *events;
	const char *pid;
	const char *tid;
	const char *cpu_list;
	bool system_wide;
	bool expect_open_ok;	/* false: session_init or session_open must fail */
	int fd_headroom;	/* > 0: RLIMIT_NOFILE set to this many fds above those open */
};

/* One session: init, open, and when it opened, a short count; then free. */
static void run_scenario(const struct scenario *sc, struct fd_census *while_open)
{
	struct parse_events_error perr = { .idx = -1 };
	struct stat_options o = { 0 };
	struct stat_session s;
	int err;

	o.scale = true;
	o.run_count = 1;
	o.pid = sc->pid;
	o.tid = sc->tid;
	o.cpu_list = sc->cpu_list;
	o.system_wide = sc->system_wide;
	err = parse_events(&o.evlist, sc->events, &o.events_ctx, &perr);
	if (!CHECK_MSG(sc->name, !err, "expected '%s' to parse, got %d", sc->events, err)) {
		parse_events_error_free(&perr);
		return;
	}
	err = session_init(&s, &o, &o.evlist, 0, NULL);
	if (!err && sc->fd_headroom) {
		struct rlimit saved, low;

		getrlimit(RLIMIT_NOFILE, &saved);
		low = saved;
		low.rlim_cur = count_fds().total + sc->fd_headroom;
		setrlimit(RLIMIT_NOFILE, &low);
		err = session_open(&s);
		setrlimit(RLIMIT_NOFILE, &saved);
	} else if (!err) {
		err = session_open(&s);
	}
	if (!err) {
		session_enable(&s);
		usleep(1000);
		session_disable(&s);
		session_read(&s, 1000000, 0, 0);
		if (while_open)
			*while_open = count_fds();
	}
	CHECK_MSG(sc->name, !err == sc->expect_open_ok, "open expected %s, got %s (%d)",
		  sc->expect_open_ok ? "success" : "failure", err ? "failure" : "success", err);
	session_free(&s);
	stat_options_free(&o);
}

int main(void)
{
	char self_tid[64], live_then_dead[64];
	struct fd_census before, after, during = { 0 };
	char name[64];
	int i, k;

	if (geteuid() != 0) {
		printf("needs root\n");
		return EXIT_SKIP;
	}
	snprintf(self_tid, sizeof(self_tid), "%d", (int)gettid());
	snprintf(live_then_dead, sizeof(live_then_dead), "%d,999999", (int)gettid());
	{
		const struct scenario scenarios[] = {
			{ "own thread", "cs,faults,task-clock", NULL, self_tid, NULL, false, true },
			{ "own process, group", "{cs,faults}", self_tid, NULL, NULL, false, true },
			{ "system-wide, unsupported cycles", "cs,cycles,instructions", NULL, NULL,
			  NULL, true, true },
			{ "offline cpu 5", "cs,faults", NULL, NULL, "5", false, true },
			{ "dead tid", "cs,faults", NULL, "999999", NULL, false, false },
			{ "live tid then dead tid", "cs,faults,{task-clock,cpu-clock}", NULL,
			  live_then_dead, NULL, false, false },
			{ "dead pid", "cs", "999999", NULL, NULL, false, false },
			{ "bad cpu list", "cs", NULL, NULL, "foo", false, false },
			{ "EMFILE part-way", "cs,faults,task-clock,cpu-clock,minor-faults", NULL,
			  NULL, NULL, true, false, 5 },
		};
		int n = sizeof(scenarios) / sizeof(scenarios[0]);

		/* a first round outside the census: libc and /proc may cache an fd once */
		for (k = 0; k < n; k++)
			run_scenario(&scenarios[k], NULL);
		before = count_fds();
		for (i = 0; i < ROUNDS; i++)
			for (k = 0; k < n; k++)
				run_scenario(&scenarios[k], k == 0 ? &during : NULL);
	}
	after = count_fds();
	/* proves the census sees perf_event fds at all: 3 events on one thread */
	CHECK_EQ("perf_event fds while a session is open", 3, during.perf_events);
	snprintf(name, sizeof(name), "open fds after %d rounds", ROUNDS);
	CHECK_EQ(name, before.total, after.total);
	CHECK_EQ("perf_event fds left open", 0, after.perf_events);
	printf("%s: %d fds before the rounds, %d after\n", NAME, before.total, after.total);
	return check_exit(NAME);
}
