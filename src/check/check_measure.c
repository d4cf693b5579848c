// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check's measurements on the shipped workloads: shared against direct counts of one run,
 * insnloop's instructions against their known count, and sessions sharing one counter where
 * direct ones multiplex. Every run is a child bperf stat with the check's own attr map, so
 * nothing of the user's is touched and the leaders go when the runs end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "check_run.h"
#include "util/common.h"

/* insnloop's rounds (6 instructions each on x86-64 and arm64) and the most sessions tried */
#define INSNLOOP_ROUNDS "1000000"
#define INSNLOOP_ROUND_INSNS 6
/* how far insnloop's count may be from its known count: ok up to 0.5%, warn up to 5% */
#define KNOWN_OK_PCT 0.5
#define KNOWN_WARN_PCT 5.0

struct pair {
	const char *event;	/* direct; shared is event:b, or eventb after a modifier */
	double tolerance_pct;	/* how far shared may be from direct */
};

static char *workload_path(const struct check_ctx *ctx, const char *name)
{
	return xasprintf("%s/%s", ctx->workloads, name);
}

static void shared_name(const char *event, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", event, strchr(event, ':') ? "b" : ":b");
}

/* The pairs' verdicts from one run of "-e E,E:b,..." of the workload. */
static void check_pairs(struct check_ctx *ctx, const struct pair *pairs, int nr,
			const char *workload, const char *arg, const struct stat_rows *rows)
{
	for (int i = 0; i < nr; i++) {
		const struct stat_row *d, *s;
		char name[96], shared[80];
		double gap;

		snprintf(name, sizeof(name), "shared-%s", pairs[i].event);
		shared_name(pairs[i].event, shared, sizeof(shared));
		d = stat_row_find(rows, pairs[i].event);
		s = stat_row_find(rows, shared);
		if (!d || !s || !d->counted || !s->counted || !d->count) {
			check_add(&ctx->report, name, CHECK_FAIL, "%s %s: %s not counted", workload,
				  arg, !d || !d->counted || !d->count ? "direct" : "shared");
			continue;
		}
		gap = 100.0 * ((double)s->count - (double)d->count) / (double)d->count;
		check_add(&ctx->report, name, fabs(gap) <= pairs[i].tolerance_pct ? CHECK_OK :
			  CHECK_FAIL, "%s %s: direct %llu, shared %llu (%+.4f%%, within %g%%)",
			  workload, arg, d->count, s->count, gap, pairs[i].tolerance_pct);
	}
}

/* One run of the pairs' events, direct and shared, over `workload arg`. */
static void run_pairs(struct check_ctx *ctx, const struct pair *pairs, int nr,
		      const char *workload, const char *arg, struct stat_rows *rows)
{
	char events[256] = "", shared[80];
	char *path = workload_path(ctx, workload);
	const char *args[] = { "-e", events, "--", path, arg, NULL };
	unsigned long long start = now_ns();

	stat_rows_free(rows);
	if (*ctx->stop) {
		free(path);
		return;
	}
	for (int i = 0; i < nr; i++) {
		shared_name(pairs[i].event, shared, sizeof(shared));
		snprintf(events + strlen(events), sizeof(events) - strlen(events), "%s%s,%s",
			 i ? "," : "", pairs[i].event, shared);
	}
	if (stat_run(ctx->self, ctx->tmpdir, workload, ctx->private_map, args, rows))
		check_add(&ctx->report, "shared-run", CHECK_FAIL, "bperf stat -e %s -- %s %s: %s",
			  events, workload, arg, rows->why);
	else
		check_pairs(ctx, pairs, nr, workload, arg, rows);
	if (!ctx->machine.startup_ns)
		ctx->machine.startup_ns = now_ns() - start;
	free(path);
}

/* instructions:u of insnloop 2N less that of insnloop N (from the pairs' run) against 6 N. */
static void check_known_count(struct check_ctx *ctx, const struct stat_rows *first)
{
#if defined(__x86_64__) || defined(__aarch64__)
	const struct stat_row *n1 = stat_row_find(first, "instructions:u"), *n2;
	char *path = workload_path(ctx, "insnloop"), twice[32];
	const char *args[] = { "-e", "instructions:u", "--", path, twice, NULL };
	unsigned long long rounds = strtoull(INSNLOOP_ROUNDS, NULL, 10);
	double want = (double)rounds * INSNLOOP_ROUND_INSNS, got, off;
	struct stat_rows rows = { 0 };

	snprintf(twice, sizeof(twice), "%llu", 2 * rounds);
	if (stat_run(ctx->self, ctx->tmpdir, "insnloop2", ctx->private_map, args, &rows) ||
	    !(n2 = stat_row_find(&rows, "instructions:u")) || !n1 || !n1->counted ||
	    !n2->counted) {
		check_add(&ctx->report, "insnloop-instructions", CHECK_FAIL,
			  "instructions:u of insnloop not counted %s", rows.why);
		stat_rows_free(&rows);
		free(path);
		return;
	}
	got = (double)n2->count - (double)n1->count;
	off = 100.0 * (got - want) / want;
	check_add(&ctx->report, "insnloop-instructions",
		  fabs(off) <= KNOWN_OK_PCT ? CHECK_OK :
		  fabs(off) <= KNOWN_WARN_PCT ? CHECK_WARN : CHECK_FAIL,
		  "insnloop %s less insnloop %s: %.0f instructions:u, known %.0f (%+.4f%%)", twice,
		  INSNLOOP_ROUNDS, got, want, off);
	stat_rows_free(&rows);
	free(path);
#else
	check_add(&ctx->report, "insnloop-instructions", CHECK_SKIP,
		  "insnloop's count is known on x86-64 and arm64 only");
#endif
}

/* A direct-only run of insnloop N, where shared counting is not for this user. */
static void direct_insnloop(struct check_ctx *ctx, struct stat_rows *rows)
{
	char *path = workload_path(ctx, "insnloop");
	const char *args[] = { "-e", "instructions:u", "--", path, INSNLOOP_ROUNDS, NULL };

	if (stat_run(ctx->self, ctx->tmpdir, "insnloop1", ctx->private_map, args, rows))
		check_add(&ctx->report, "insnloop-run", CHECK_FAIL, "%s", rows->why);
	free(path);
}

void check_measure(struct check_ctx *ctx)
{
	static const struct pair software[] = {
		{ "page-faults", 0 },
	};
	static const struct pair switches[] = {
		{ "context-switches", 0 },
	};
	static const struct pair hardware[] = {
		{ "instructions:u", 0.05 },
		{ "cycles:u", 2.0 },
	};
	struct stat_rows rows = { 0 };

	if (!ctx->workloads) {
		check_add(&ctx->report, "measure", CHECK_SKIP,
			  "no workloads (insnloop, pagetouch, pingpong): --workloads DIR");
		return;
	}
	if (!ctx->machine.shared) {
		check_add(&ctx->report, "shared-pairs", CHECK_SKIP,
			  "shared counting is not for this user (count-shared above)");
	} else {
		run_pairs(ctx, software, ARRAY_SIZE(software), "pagetouch", "2000", &rows);
		run_pairs(ctx, switches, ARRAY_SIZE(switches), "pingpong", "1000", &rows);
	}
	if (!ctx->machine.core_pmu || !ctx->machine.direct_user) {
		check_add(&ctx->report, "hardware-counts", CHECK_SKIP,
			  ctx->machine.core_pmu ? "this user may not count" : "no core PMU");
		stat_rows_free(&rows);
		return;
	}
	if (ctx->machine.shared)
		run_pairs(ctx, hardware, ARRAY_SIZE(hardware), "insnloop", INSNLOOP_ROUNDS, &rows);
	else
		direct_insnloop(ctx, &rows);
	if (!*ctx->stop)
		check_known_count(ctx, &rows);
	stat_rows_free(&rows);
	if (!*ctx->stop)
		check_sessions(ctx);
}
