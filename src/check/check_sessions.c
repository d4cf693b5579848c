// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check: more sessions of instructions:u on one task than the PMU has counters. Direct,
 * each session has its own event in the task's context and they take turns (multiplexing);
 * shared, they all read one leader's counter and run all the time.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "check_run.h"
#include "util/common.h"

#define MAX_SESSIONS 16
#define MIN_INTERVAL_MS 200
/* the intervals (-I) measured once every session is up */
#define INTERVALS 4
/* how long the sessions may take to start (a leader loads in seconds in an emulated guest) */
#define START_TIMEOUT_MS 120000

struct session_result {
	int nr;			/* sessions that counted */
	double least_pct, most_pct;	/* over the intervals after all were up */
	char why[320];		/* a session that failed */
};

/* insnloop for ever: the task the sessions count */
static pid_t start_target(const char *workloads)
{
	char *path = xasprintf("%s/insnloop", workloads);
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, "1000000000000000", (char *)NULL);
		_exit(127);
	}
	free(path);
	return pid;
}

static void stop_target(pid_t pid)
{
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

/*
 * A session's intervals from the one after skip on (skip: its lines when every session had
 * printed one, so the first interval measured began after all had started) into res: the
 * least and most percentage of each interval's time its event ran. false if none counted.
 */
static bool add_intervals(const struct stat_rows *rows, const char *event, int skip,
			  struct session_result *res)
{
	int seen = 0, used = 0;

	for (int i = 0; i < rows->nr; i++) {
		const struct stat_row *row = &rows->rows[i];

		if (strcmp(row->event, event) || seen++ <= skip || !row->counted)
			continue;
		used++;
		if (row->pct < res->least_pct)
			res->least_pct = row->pct;
		if (row->pct > res->most_pct)
			res->most_pct = row->pct;
	}
	return used > 0;
}

/* Waits until each session has printed an interval; each one's lines then go to lines[]. */
static bool wait_all_up(const struct stat_child *children, int nr, int *lines)
{
	unsigned long long end = now_ns() + START_TIMEOUT_MS * 1000000ULL;
	int up;

	do {
		up = 0;
		for (int i = 0; i < nr; i++)
			up += (lines[i] = stat_child_lines(&children[i])) > 0;
		if (up == nr)
			return true;
		usleep(50000);
	} while (now_ns() < end);
	return false;
}

/* nr sessions of event on pid, all at once, for INTERVALS intervals of interval ms. */
static void run_sessions(struct check_ctx *ctx, const char *event, pid_t pid, int nr,
			 const char *interval, struct session_result *res)
{
	struct stat_child children[MAX_SESSIONS];
	char pid_arg[16], name[32];
	const char *args[] = { "-I", interval, "-p", pid_arg, "-e", event, NULL };
	int started = 0, lines[MAX_SESSIONS] = { 0 };
	bool up;

	snprintf(pid_arg, sizeof(pid_arg), "%d", pid);
	*res = (struct session_result){ .least_pct = 100, .most_pct = 0 };
	for (int i = 0; i < nr; i++) {
		snprintf(name, sizeof(name), "session%d", i);
		if (!stat_child_start(&children[started], ctx->self, ctx->tmpdir, name,
				      ctx->private_map, args))
			started++;
	}
	up = wait_all_up(children, started, lines);
	if (up && !*ctx->stop)
		usleep(INTERVALS * 1000 * strtoul(interval, NULL, 10));
	for (int i = 0; i < started; i++)
		stat_child_interrupt(&children[i]);
	for (int i = 0; i < started; i++) {
		struct stat_rows rows;
		int err = stat_child_finish(&children[i], &rows);

		if (!up)
			snprintf(res->why, sizeof(res->why), "not all up in %d s",
				 START_TIMEOUT_MS / 1000);
		else if (err || !add_intervals(&rows, event, lines[i], res))
			snprintf(res->why, sizeof(res->why), "%s",
				 rows.nr ? "not counted" : rows.why);
		else
			res->nr++;
		stat_rows_free(&rows);
	}
}

static void report_sessions(struct check_ctx *ctx, int nr, const struct session_result *direct,
			    const struct session_result *shared)
{
	char direct_text[384];

	if (direct->nr < nr)
		snprintf(direct_text, sizeof(direct_text), "direct: %d of %d counted (%s)",
			 direct->nr, nr, direct->why);
	else if (direct->least_pct < 100)
		snprintf(direct_text, sizeof(direct_text), "direct multiplexed at %.2f-%.2f%%",
			 direct->least_pct, direct->most_pct);
	else
		snprintf(direct_text, sizeof(direct_text),
			 "direct did not multiplex (the sessions hardly overlapped)");
	if (shared->nr < nr)
		check_add(&ctx->report, "shared-sessions", CHECK_FAIL,
			  "%d sessions of instructions:ub on one task: %d counted (%s); %s", nr,
			  shared->nr, shared->why, direct_text);
	else
		check_add(&ctx->report, "shared-sessions",
			  shared->least_pct >= 100 ? CHECK_OK : CHECK_FAIL,
			  "%d sessions of instructions:u on one task, %d counters: shared ran at "
			  "%.2f-%.2f%% of each interval, %s", nr, ctx->machine.counters,
			  shared->least_pct, shared->most_pct, direct_text);
}

void check_sessions(struct check_ctx *ctx)
{
	struct session_result direct, shared;
	unsigned long long ms = ctx->machine.startup_ns / 1000000;
	int nr = ctx->machine.counters + 2;
	char interval[16];
	pid_t target;

	if (!ctx->machine.shared || ctx->machine.counters < 1) {
		check_add(&ctx->report, "shared-sessions", CHECK_SKIP, "%s",
			  ctx->machine.shared ? "no counters found" : "shared counting is not for "
			  "this user");
		return;
	}
	if (*ctx->stop)
		return;
	if (nr > MAX_SESSIONS)
		nr = MAX_SESSIONS;
	/* an interval as long as a bperf stat run takes here: a read is no sooner than that */
	if (ms < MIN_INTERVAL_MS)
		ms = MIN_INTERVAL_MS;
	snprintf(interval, sizeof(interval), "%llu", ms);
	target = start_target(ctx->workloads);
	if (target < 0) {
		check_add(&ctx->report, "shared-sessions", CHECK_FAIL, "fork: %m");
		return;
	}
	run_sessions(ctx, "instructions:u", target, nr, interval, &direct);
	run_sessions(ctx, "instructions:ub", target, nr, interval, &shared);
	stop_target(target);
	report_sessions(ctx, nr, &direct, &shared);
}
