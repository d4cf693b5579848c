// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check: the report of check.h's parts, as a table or JSON, exit 1 if a verdict is fail.
 * It leaves nothing behind: its runs' leaders go with them, and their attr map, pinned apart
 * from the user's, and output files are removed at the end.
 */
#include "cmd_check.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "util/top_opts.h"
#include "util/common.h"
#include "counters/attr_map.h"
#include "util/parse_options.h"

/* Set by a signal: the parts start no more runs, and the leftovers are still removed. */
static volatile sig_atomic_t stop_requested;

static void request_stop(int sig)
{
	stop_requested = sig;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = { .sa_handler = request_stop };
	int sigs[] = { SIGINT, SIGTERM, SIGHUP };

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

static const char *const check_usage[] = {
	"bperf check [<options>]",
	NULL,
};

/* The workloads every measurement uses, each an executable in the workloads directory. */
static const char *const workload_names[] = { "insnloop", "pagetouch", "pingpong" };

static bool has_workloads(const char *dir)
{
	for (size_t i = 0; i < ARRAY_SIZE(workload_names); i++) {
		char *path = xasprintf("%s/%s", dir, workload_names[i]);
		bool ok = !access(path, X_OK);

		free(path);
		if (!ok)
			return false;
	}
	return true;
}

/*
 * --workloads, else $BPERF_WORKLOADS, else beside this bperf: the build tree's .output/workloads,
 * a packed folder's workloads/ (tools/pack-check), or PREFIX/libexec/bperf/workloads.
 */
static char *find_workloads(const char *given, const char *self)
{
	static const char *const beside[] = {
		"%s/.output/workloads", "%s/workloads", "%s/../libexec/bperf/workloads",
	};
	const char *env = getenv("BPERF_WORKLOADS");
	char *dir = xstrdup(self), *found = NULL;

	if (given || env) {
		free(dir);
		return has_workloads(given ? given : env) ? xstrdup(given ? given : env) : NULL;
	}
	for (size_t i = 0; i < ARRAY_SIZE(beside) && !found; i++) {
		char *path = xasprintf(beside[i], dirname(dir));

		if (has_workloads(path))
			found = path;
		else
			free(path);
		free(dir);
		dir = xstrdup(self);
	}
	free(dir);
	return found;
}

/* What the runs leave: their attr map's pin, its lock (a bpffs folder), the output folder. */
static void remove_leftovers(struct check_ctx *ctx)
{
	char *lock = xasprintf("%s_lock", ctx->private_map);

	unlink(ctx->private_map);
	rmdir(lock);
	free(lock);
	if (ctx->tmpdir)
		rmdir(ctx->tmpdir);
}

static int setup(struct check_ctx *ctx, const char *workloads, char *self_buf)
{
	char tmpl[] = "/tmp/bperf-check.XXXXXX";
	ssize_t n = readlink("/proc/self/exe", self_buf, PATH_MAX - 1);

	if (n <= 0) {
		pr_err("bperf check: cannot find this bperf (/proc/self/exe): %s", strerror(errno));
		return -errno;
	}
	self_buf[n] = '\0';
	ctx->self = self_buf;
	ctx->workloads = find_workloads(workloads, self_buf);
	if (workloads && !ctx->workloads) {
		pr_err("bperf check: no insnloop, pagetouch and pingpong in %s", workloads);
		return -ENOENT;
	}
	if (!mkdtemp(tmpl)) {
		pr_err("bperf check: cannot make a folder in /tmp: %s", strerror(errno));
		return -errno;
	}
	ctx->tmpdir = xstrdup(tmpl);
	ctx->private_map = xasprintf("/sys/fs/bpf/bperf_check_%d", getpid());
	return 0;
}

int cmd_check(int argc, const char **argv, const struct top_opts *top)
{
	struct check_ctx ctx = { .attr_map = DEFAULT_ATTR_MAP_PATH, .verbose = top->verbose };
	const char *workloads = NULL;
	char self[PATH_MAX];
	bool json = false;
	const struct option options[] = {
		{ OPT_BOOLEAN, 'j', "json", &json, NULL, "print the report as JSON" },
		{ OPT_INCR, 'v', "verbose", &ctx.verbose, NULL, "be more verbose" },
		{ OPT_STRING, 0, "workloads", &workloads, "dir",
		  "where insnloop, pagetouch and pingpong are" },
		{ OPT_STRING, 0, "bpf-attr-map", &ctx.attr_map, "path",
		  "the attr map whose leaders are listed" },
		{ OPT_END },
	};
	int first = parse_options(argc, argv, options, check_usage), failed;

	if (first == PARSE_OPT_HELP)
		usage_with_options(check_usage, options);
	if (first < 0)
		return EXIT_USAGE;
	if (first < argc) {
		pr_err("bperf check: unexpected argument '%s'", argv[first]);
		usage_with_options(check_usage, options);
		return EXIT_USAGE;
	}
	if (setup(&ctx, workloads, self)) {
		free(ctx.workloads);
		return 1;
	}
	ctx.stop = &stop_requested;
	catch_stop_signals();
	check_system(&ctx);
	check_counters(&ctx);
	check_access(&ctx);
	check_bpf(&ctx);
	check_holders(&ctx);
	if (!stop_requested)
		check_measure(&ctx);
	remove_leftovers(&ctx);
	if (stop_requested)
		check_add(&ctx.report, "stopped", CHECK_FAIL, "by signal %d before the end",
			  (int)stop_requested);
	if (json)
		check_print_json(stdout, &ctx.report);
	else
		check_print_table(stdout, &ctx.report);
	failed = check_failed(&ctx.report);
	check_report_free(&ctx.report);
	free(ctx.workloads);
	free(ctx.tmpdir);
	free(ctx.private_map);
	return failed ? 1 : 0;
}
