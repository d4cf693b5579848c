// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metric expressions as perf 6.1 reads them: values (precedence, every operator, | & ^ % on
 * longs, division by zero failing the whole expression, NaN ids, d_ratio, min, max), the
 * scanner (numbers, escapes, `?`, skipped characters), #literals from injected values and
 * from a fake sysfs/cpuinfo/CPUID, the ids an expression needs with perf's pruning, the id
 * set's order, and every built-in -M metric evaluated through metric_instance_eval.
 *
 * `test_metric_expr ids [-a] [-C CPUS] NAME` (tests/shell/metric_expr_vs_perf.sh) prints, one a
 * line, the events metric NAME needs in perf's order, from "NAME<tab>EXPR" lines on stdin (the
 * metric and those it refers to), resolving references as perf's metricgroup.c does;
 * `test_metric_expr value -c COUNTS ... NAME` prints its value from the counts perf printed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "metrics/metric_expr.h"
#include "metrics/metric_ids.h"
#include "metrics/metric_literals.h"
#include "metrics/metric_refs.h"
#include "metrics/metric_set.h"
#include "metrics/metric_table.h"

struct count {
	const char *name;
	double value;
};

/* synthetic counts: instructions 3e9 over 1.5e9 cycles, task-clock in msec as perf scales it */
static const struct count counts[] = {
	{ "instructions", 3000000000.0 },
	{ "cycles", 1500000000.0 },
	{ "branches", 400000.0 },
	{ "branch-misses", 1000.0 },
	{ "cache-references", 2000.0 },
	{ "cache-misses", 500.0 },
	{ "L1-dcache-loads", 8000.0 },
	{ "L1-dcache-load-misses", 80.0 },
	{ "L1-icache-loads", 5000.0 },
	{ "L1-icache-load-misses", 50.0 },
	{ "LLC-loads", 1000.0 },
	{ "LLC-load-misses", 250.0 },
	{ "dTLB-loads", 4000.0 },
	{ "dTLB-load-misses", 4.0 },
	{ "iTLB-loads", 3000.0 },
	{ "iTLB-load-misses", 3.0 },
	{ "stalled-cycles-frontend", 300000000.0 },
	{ "stalled-cycles-backend", 750000000.0 },
	{ "task-clock", 750.0 },		/* msec */
	{ "duration_time", 500000000.0 },	/* ns */
	{ "context-switches", 1500.0 },
	{ "page-faults", 1200.0 },
	{ "minor-faults", 900.0 },
	{ "zero", 0.0 },
	{ "a@b", 7.0 },
	{ "a,b=c", 11.0 },
	{ "x0y", 5.0 },			/* written x?y: `?` is the runtime number */
	{ "x3y", 6.0 },
	{ "2x", 13.0 },
	{ "1e", 17.0 },
	{ "big", 1e300 },
};

/* source_count(ID): 2 sources for every id, so that it differs from the value */
static int lookup(void *priv, const char *id, bool source_count, double *value)
{
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!strcmp(counts[i].name, id)) {
			*value = source_count ? 2 : counts[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/* injected #literals; fail_tsc makes #system_tsc_freq fail as a missing /proc/cpuinfo does */
struct test_literals {
	struct metric_literals base;
	double values[METRIC_LIT__NR];
	bool fail_tsc;
};

static int test_literal(struct metric_literals *base, enum metric_literal which, double *value)
{
	struct test_literals *t = (struct test_literals *)base;

	if (which == METRIC_LIT_SYSTEM_TSC_FREQ && t->fail_tsc)
		return -EIO;
	*value = t->values[which];
	return 0;
}

static struct test_literals literals = {
	.base.value = test_literal,
	.values = {
		[METRIC_LIT_NUM_CPUS] = 8, [METRIC_LIT_SYSTEM_TSC_FREQ] = 2.5e9,
		[METRIC_LIT_SMT_ON] = 1, [METRIC_LIT_CORE_WIDE] = 0,
		[METRIC_LIT_NUM_PACKAGES] = 2, [METRIC_LIT_NUM_DIES] = 4,
		[METRIC_LIT_NUM_CORES] = 6,
	},
};

static struct metric_expr_ctx expr_ctx = {
	.lookup = lookup, .literals = &literals.base,
};

static void check_value(const char *expr, double expected)
{
	double got = -12345;
	int err = metric_expr_eval(expr, &expr_ctx, &got);

	if (!CHECK_OK(expr, err))
		return;
	if (isnan(expected))
		CHECK_MSG(expr, isnan(got), "expected NaN, got %g", got);
	else if (isinf(expected))
		CHECK_MSG(expr, got == expected, "expected %g, got %g", expected, got);
	else
		CHECK_NEAR(expr, expected, got, 1e-9 * fmax(1.0, fabs(expected)));
}

static void check_error(const char *expr, int expected)
{
	double got = 0;
	int err = metric_expr_eval(expr, &expr_ctx, &got);

	CHECK_MSG(expr, err == expected, "expected error %d, got %d (value %g)", expected, err,
		  got);
}

/* ids joined by spaces, in the set's iteration order */
static void join_ids(const struct metric_ids *ids, char *buf, size_t size)
{
	struct metric_ids_iter it;
	const char *id;
	size_t len = 0;

	buf[0] = '\0';
	metric_ids_for_each(ids, it, id)
		len += snprintf(buf + len, size - len, "%s%s", len ? " " : "", id);
}

/* The ids perf's expr__find_ids() would collect; expected NULL: the expression fails. */
static void check_find_ids(const char *expr, const char *expected)
{
	struct metric_ids *ids = NULL;
	char joined[1024], name[256];
	int err = metric_expr_find_ids(expr, &expr_ctx, &ids);

	snprintf(name, sizeof(name), "find_ids(%s)", expr);
	if (!expected) {
		CHECK_MSG(name, err < 0, "expected an error, got %d", err);
	} else if (CHECK_OK(name, err)) {
		join_ids(ids, joined, sizeof(joined));
		CHECK_STR(name, expected, joined);
	}
	metric_ids_free(ids);
}

static void check_ids(const char *expr, const char *expected)
{
	char **ids = NULL, joined[256] = "", name[128];
	int n = metric_expr_ids(expr, &ids);

	for (int i = 0; n > 0 && ids[i]; i++) {
		if (i)
			strcat(joined, " ");
		strcat(joined, ids[i]);
	}
	snprintf(name, sizeof(name), "ids of %s", expr);
	if (CHECK_OK(name, n < 0 ? n : 0))
		CHECK_STR(name, expected, joined);
	metric_expr_ids_free(ids);
}

static void test_precedence(void)
{
	check_value("1 + 2 * 3", 7);
	check_value("(1 + 2) * 3", 9);
	check_value("10 - 4 - 3", 3);		/* left-associative */
	check_value("100 / 10 / 5", 2);
	check_value("2 * 7 % 4", 2);		/* (2 * 7) % 4 */
	check_value("-3 + 5", 2);
	check_value("--3", 3);
	check_value("2 * -3", -6);
	check_value("-2 * 3 + 1", -5);		/* unary minus binds tightest */
	check_value("1 + 2 > 2", 1);		/* < > bind looser than + */
	check_value("1 < 2 < 3", 1);		/* (1 < 2) < 3 */
	check_value("3 > 2 > 1", 0);		/* (3 > 2) > 1 */
	check_value("6 & 3 < 5", 6 & 1);	/* & looser than < */
	check_value("1 ^ 3 & 2", 1 ^ (3 & 2));
	check_value("4 | 5 ^ 1", 4 | (5 ^ 1));
	check_value("1 | 2 + 4", 1 | 6);
	check_value("2 | 1 if 0 else 8 | 1", 9);	/* if is loosest */
	check_value("5 if 1 > 0 else 6", 5);
	check_value("5 if 1 < 0 else 6", 6);
	check_value("1 if zero > 0 else 2 if 1 > 0 else 3", 2);
	check_value("(1 if 0 else 2) * 3", 6);
	check_value("min(3, 2)", 2);
	check_value("max(3, 2 + 5)", 7);
	check_value("min(-1, 1) * max(2, 3)", -3);
}

static void test_operators(void)
{
	/* | & ^ % cut their operands to long first */
	check_value("5.9 | 2.2", 7);
	check_value("6.5 & 3.9", 2);
	check_value("5 ^ 1.99", 4);
	check_value("7.9 % 4.1", 3);
	check_value("-7 % 3", -1);		/* C's remainder */
	check_value("7 % -1", 0);
	check_value("instructions & 1023", 3000000000L & 1023);
	check_value("instructions / cycles", 2);
	check_value("7 / 2", 3.5);
	check_value("1 - 1.5", -0.5);
	check_value("3 > 2", 1);
	check_value("3 < 2", 0);
	check_value("1 > 1", 0);
	check_value("1 >= 1", 0);		/* `=` is skipped: 1 > 1 */
	check_value("d_ratio(3, 4)", 0.75);
	check_value("d_ratio(1, zero)", 0);
	check_value("d_ratio(nosuch, 0)", 0);
	check_value("source_count(instructions)", 2);
	check_value("source_count(nosuch)", NAN);
	check_value("big * big", INFINITY);
}

static void test_division_by_zero(void)
{
	/* perf computes both branches: a division by zero anywhere fails the metric */
	check_error("instructions / zero", -EDOM);
	check_error("1 if 1 else 1 / zero", -EDOM);
	check_error("instructions / zero if zero > 0 else 0", -EDOM);
	check_error("5 % zero", -EDOM);
	check_error("5 % 0.5", -EDOM);		/* 0 as a long (a SIGFPE in perf) */
	check_error("min(1, 2 / (1 - 1))", -EDOM);
	check_error("1 / -0", -EDOM);
	check_value("1 / nosuch", NAN);		/* NaN is not 0 */
}

static void test_nan(void)
{
	check_value("nosuch + 1", NAN);
	check_value("1 if nosuch else 2", 1);	/* a NaN condition is true */
	check_value("min(nosuch, 1)", 1);	/* perf's a < b ? a : b */
	check_value("min(1, nosuch)", NAN);
	check_value("max(nosuch, 1)", 1);
	check_value("nosuch > 1", 0);
	check_value("d_ratio(1, nosuch)", NAN);
}

static void test_scanner(void)
{
	check_value("1e3 / 4", 250);
	check_value("1e-3 * 1000", 1);
	check_value(".5 * 4", 2);
	check_value("5. * 2", 10);
	check_value("1e+3", 17 + 3);		/* no e+: the id 1e, then + 3 */
	check_value("2x", 13);			/* an id may start with a digit */
	check_value("0x10", NAN);		/* no hex: an id */
	check_value("inf", NAN);
	check_error("1e-400", -EINVAL);		/* out of range, perf's lexer error */
	check_value("branch\\-misses / branches * 100", 0.25);
	check_value("a@b * 2", 14);
	check_value("a\\,b\\=c", 11);
	check_value("x?y", 5);
	check_value("  cycles/instructions  ", 0.5);
	/* characters no rule matches are skipped */
	check_value("1 $ + ~2", 3);
	check_value("1 \\+ 2;", 3);
	check_value("[1] + {2} + \"3\" + '4' + !5", 15);
	check_value("ifx", NAN);			/* keywords only as whole tokens */
	check_value("min_x + 1", NAN);
	check_value("minimum", NAN);
	check_value("1\tif\n1\relse 2", 1);

	struct metric_expr_ctx rt = expr_ctx;
	double got = 0;

	rt.runtime = 3;
	if (CHECK_OK("x?y with runtime 3", metric_expr_eval("x?y", &rt, &got)))
		CHECK_NEAR("x?y with runtime 3", 6, got, 0);
}

static void test_syntax_errors(void)
{
	check_error("", -EINVAL);
	check_error("1 +", -EINVAL);
	check_error("(1 + 2", -EINVAL);
	check_error("1 2", -EINVAL);
	check_error("3 == 3", -EINVAL);		/* `=` skipped: 3 3 */
	check_error("min(1)", -EINVAL);
	check_error("1 if 2", -EINVAL);
	check_error("1 if 2 if 3 else 4 else 5", -EINVAL);
	check_error("min(1 if 1 else 2, 3)", -EINVAL);	/* if only at the top or in ( ) */
	check_error("d_ratio(1, 2 if 1 else 3)", -EINVAL);
	check_error("source_count(1)", -EINVAL);
	check_error("a\\x", -EINVAL);		/* `\` alone is skipped: a x */
	check_error("1 / zero + (2", -EDOM);	/* perf aborts at the division first */
}

static void test_literals(void)
{
	check_value("#num_cpus", 8);
	check_value("#system_tsc_freq / 1e9", 2.5);
	check_value("#SYSTEM_TSC_FREQ / 1e9", 2.5);	/* any case for this one and #smt_on */
	check_value("#SMT_on", 1);
	check_value("#smt_on", 1);
	check_value("#core_wide", 0);
	check_value("#num_packages + #num_dies + #num_cores", 12);
	check_value("1 if #SMT_on else 2", 1);
	check_error("#Core_Wide", -EINVAL);	/* the others exactly */
	check_error("#NUM_CPUS", -EINVAL);
	check_error("#num_cpus_online", -EINVAL);	/* not in 6.1 */
	check_error("#foo + 1", -EINVAL);
	literals.fail_tsc = true;
	check_error("#system_tsc_freq", -EINVAL);
	literals.fail_tsc = false;

	struct metric_expr_ctx none = { .lookup = lookup };
	double v;

	CHECK_EQ("literal without a provider", -EINVAL, metric_expr_eval("#smt_on", &none, &v));
}

/* perf's compute-ids mode: constants and literals prune what is not needed */
static void test_find_ids(void)
{
	check_find_ids("instructions", "instructions");
	check_find_ids("2 * 3", "");
	check_find_ids("x / 0", NULL);
	check_find_ids("x / (1 - 1)", NULL);
	check_find_ids("x % 0", NULL);
	check_find_ids("d_ratio(x, 0)", "");
	check_find_ids("d_ratio(x, 1 - 1) + y", "y");
	check_find_ids("x * 0", "x");				/* x may be anything: kept */
	check_find_ids("a if #SMT_on else b", "a");		/* #SMT_on is 1 here */
	check_find_ids("a if #core_wide else b", "b");		/* #core_wide is 0 */
	check_find_ids("a if #core_wide < 1 else b", "a");
	check_find_ids("a if 2 > 1 else b", "a");
	check_find_ids("a if 1 - 1 else b", "b");
	check_find_ids("1 if c else 1", "");			/* the same constant both ways */
	check_find_ids("1 if c else 2", "c");
	check_find_ids("min(1, 2) + x", "x");
	check_find_ids("source_count(u@cas@)", "u@cas@");
	check_find_ids("cpu@X\\,cmask\\=1@", "cpu@X,cmask=1@");
	check_find_ids("x?y", "x0y");
	check_find_ids("#foo * x", NULL);
	check_find_ids("x +", NULL);
}

/* `ids` mode and test_id_order(): metrics given as name and expression pairs */
struct ids_tool {
	char **names, **exprs;
	int nr;
	struct metric_expr_ctx ctx;
};

static int find_def(const struct ids_tool *t, const char *name)
{
	for (int i = 0; i < t->nr; i++)
		if (!strcasecmp(t->names[i], name))
			return i;
	return -1;
}

static int find_metric(void *priv, const char *id, const char **name, const char **expr)
{
	const struct ids_tool *t = priv;
	int i = find_def(t, id);

	if (i < 0)
		return -ENOENT;
	*name = t->names[i];
	*expr = t->exprs[i];
	return 0;
}

/* metric_root_ids() of metric def */
static int add_metric(struct ids_tool *t, int def, struct metric_ids **ids)
{
	struct metric_refs refs = { 0 };
	int err = metric_root_ids(t->names[def], t->exprs[def], find_metric, t, &t->ctx, ids,
				  &refs);

	metric_refs_free(&refs);
	return err;
}

static bool is_tool_event(const char *id)
{
	return !strcmp(id, "duration_time") || !strcmp(id, "user_time") ||
	       !strcmp(id, "system_time");
}

/* The events of metric root in perf's order, tools left out, joined by spaces. */
static int metric_events(struct ids_tool *t, const char *root, char *buf, size_t size)
{
	struct metric_ids *ids = NULL;
	struct metric_ids_iter it;
	const char *id;
	size_t len = 0;
	int err;

	err = add_metric(t, find_def(t, root), &ids);
	buf[0] = '\0';
	metric_ids_for_each(ids, it, id)
		if (!is_tool_event(id))
			len += snprintf(buf + len, size - len, "%s%s", len ? " " : "", id);
	metric_ids_free(ids);
	return err;
}

/*
 * The id set's iteration order replays perf's hash map. Metrics of skylakex and the event
 * order perf 6.1.192 printed for them (perf stat -v -M NAME true, fake cpu PMU, no SMT, not
 * -a): its "metric expr" and "Parsing metric events" lines. tests/shell/metric_expr_vs_perf.sh
 * checks many more against the perf on the machine.
 */
static void test_id_order(void)
{
	static const char *const defs[][2] = {
		{ "Page_Walks_Utilization", "(ITLB_MISSES.WALK_PENDING + "
		  "DTLB_LOAD_MISSES.WALK_PENDING + DTLB_STORE_MISSES.WALK_PENDING + "
		  "EPT.WALK_PENDING) / (2 * CORE_CLKS)" },
		{ "CORE_CLKS", "((CPU_CLK_UNHALTED.THREAD / 2) * (1 + "
		  "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE / CPU_CLK_UNHALTED.REF_XCLK)) if #core_wide "
		  "< 1 else (CPU_CLK_UNHALTED.THREAD_ANY / 2) if #SMT_on else CLKS" },
		{ "CLKS", "CPU_CLK_UNHALTED.THREAD" },
		{ "tma_icache_misses", "(ICACHE_16B.IFDATA_STALL + 2 * "
		  "cpu@ICACHE_16B.IFDATA_STALL\\,cmask\\=1\\,edge@) / CLKS" },
		{ "DRAM_BW_Use", "(64 * (uncore_imc@cas_count_read@ + uncore_imc@cas_count_write@) "
		  "/ 1000000000) / duration_time" },
		{ "tma_frontend_bound", "IDQ_UOPS_NOT_DELIVERED.CORE / SLOTS" },
		{ "SLOTS", "4 * CORE_CLKS" },
		{ "IPC", "INST_RETIRED.ANY / CLKS" },
	};
	static const char *const expected[][2] = {
		{ "Page_Walks_Utilization", "EPT.WALK_PENDING CPU_CLK_UNHALTED.REF_XCLK "
		  "DTLB_LOAD_MISSES.WALK_PENDING CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE "
		  "ITLB_MISSES.WALK_PENDING CPU_CLK_UNHALTED.THREAD DTLB_STORE_MISSES.WALK_PENDING" },
		{ "tma_icache_misses", "cpu@ICACHE_16B.IFDATA_STALL,cmask=1,edge@ "
		  "ICACHE_16B.IFDATA_STALL CPU_CLK_UNHALTED.THREAD" },
		{ "DRAM_BW_Use", "uncore_imc@cas_count_write@ uncore_imc@cas_count_read@" },
		{ "tma_frontend_bound", "CPU_CLK_UNHALTED.REF_XCLK IDQ_UOPS_NOT_DELIVERED.CORE "
		  "CPU_CLK_UNHALTED.ONE_THREAD_ACTIVE CPU_CLK_UNHALTED.THREAD" },
		{ "IPC", "INST_RETIRED.ANY CPU_CLK_UNHALTED.THREAD" },
	};
	struct ids_tool t = { .ctx = expr_ctx, .nr = ARRAY_SIZE(defs) };
	char got[1024];

	t.names = xzalloc(t.nr * sizeof(char *));
	t.exprs = xzalloc(t.nr * sizeof(char *));
	for (int i = 0; i < t.nr; i++) {
		t.names[i] = (char *)defs[i][0];
		t.exprs[i] = (char *)defs[i][1];
	}
	for (size_t i = 0; i < ARRAY_SIZE(expected); i++)
		if (CHECK_OK(expected[i][0], metric_events(&t, expected[i][0], got, sizeof(got))))
			CHECK_STR(expected[i][0], expected[i][1], got);
	free(t.names);
	free(t.exprs);
}

/* References: each referenced metric added once, names out of the set, loops refused. */
static void test_refs(void)
{
	static const char *const defs[][2] = {
		{ "A", "B + C + x" }, { "B", "c * y" }, { "C", "z" },
		{ "L1", "L2 + 1" }, { "L2", "l1 * 2" }, { "S", "S + 1" },
	};
	struct ids_tool t = { .ctx = expr_ctx, .nr = ARRAY_SIZE(defs) };
	struct metric_refs refs = { 0 };
	struct metric_ids *ids = NULL;
	int err;

	t.names = xzalloc(t.nr * sizeof(char *));
	t.exprs = xzalloc(t.nr * sizeof(char *));
	for (int i = 0; i < t.nr; i++) {
		t.names[i] = (char *)defs[i][0];
		t.exprs[i] = (char *)defs[i][1];
	}
	err = metric_root_ids("A", "B + C + x", find_metric, &t, &t.ctx, &ids, &refs);
	if (CHECK_OK("refs of A", err)) {
		CHECK_EQ("ids of A", 3, metric_ids_size(ids));
		CHECK("ids of A", metric_ids_has(ids, "x") && metric_ids_has(ids, "y") &&
		      metric_ids_has(ids, "z"));
		/* c (B's spelling) names C: it leaves the set too */
		CHECK("no metric names", !metric_ids_has(ids, "B") && !metric_ids_has(ids, "c"));
		CHECK_EQ("refs of A", 2, refs.nr);
		CHECK("refs of A are B and C", refs.nr == 2 &&
		      strcmp(refs.names[0], refs.names[1]) && strchr("BC", refs.names[0][0]) &&
		      strchr("BC", refs.names[1][0]));
	}
	metric_ids_free(ids);
	metric_refs_free(&refs);
	ids = NULL;
	CHECK_EQ("a loop", -ELOOP,
		 metric_root_ids("L1", "L2 + 1", find_metric, &t, &t.ctx, &ids, &refs));
	metric_ids_free(ids);
	metric_refs_free(&refs);
	ids = NULL;
	CHECK_EQ("a metric naming itself", -ELOOP,
		 metric_root_ids("S", "S + 1", find_metric, &t, &t.ctx, &ids, &refs));
	metric_ids_free(ids);
	metric_refs_free(&refs);
	ids = NULL;
	CHECK_EQ("a broken reference", -EINVAL,
		 metric_root_ids("D", "C + (", find_metric, &t, &t.ctx, &ids, &refs));
	metric_ids_free(ids);
	metric_refs_free(&refs);
	free(t.names);
	free(t.exprs);
}

/* A root metric's value: references evaluated through metric_refs_value(), as perf's refs. */
struct ref_eval {
	const struct metric_refs *refs;
	struct metric_expr_ctx ctx;
};

static int ref_lookup(void *priv, const char *id, bool source_count, double *value)
{
	struct ref_eval *r = priv;
	int err = metric_refs_value(r->refs, id, &r->ctx, value);

	return err == -ENOENT ? lookup(NULL, id, source_count, value) : err;
}

static double root_value(struct ids_tool *t, const char *name)
{
	struct metric_refs refs = { 0 };
	struct metric_ids *ids = NULL;
	struct ref_eval r = { .refs = &refs, .ctx = expr_ctx };
	int def = find_def(t, name);
	double v = -1;

	r.ctx.lookup = ref_lookup;
	r.ctx.priv = &r;
	if (!metric_root_ids(t->names[def], t->exprs[def], find_metric, t, &t->ctx, &ids, &refs) &&
	    metric_expr_eval(t->exprs[def], &r.ctx, &v))
		v = -2;
	metric_ids_free(ids);
	metric_refs_free(&refs);
	return v;
}

static void test_ref_values(void)
{
	static const char *const defs[][2] = {
		{ "Top", "Mid * 2 + Low" }, { "Mid", "instructions / Low" },
		{ "Low", "cycles / 1e9" }, { "Broken", "Div + 1" }, { "Div", "cycles / zero" },
		{ "Case", "low + 1" },
	};
	struct ids_tool t = { .ctx = expr_ctx, .nr = ARRAY_SIZE(defs) };

	t.names = xzalloc(t.nr * sizeof(char *));
	t.exprs = xzalloc(t.nr * sizeof(char *));
	for (int i = 0; i < t.nr; i++) {
		t.names[i] = (char *)defs[i][0];
		t.exprs[i] = (char *)defs[i][1];
	}
	/* Low = 1.5, Mid = 3e9 / 1.5 = 2e9, Top = 4e9 + 1.5 */
	CHECK_NEAR("Top", 4e9 + 1.5, root_value(&t, "Top"), 1e-3);
	CHECK_NEAR("Low", 1.5, root_value(&t, "Low"), 1e-12);
	/* a reference that cannot be computed is NaN in its user, not a failure (perf's) */
	CHECK_MSG("Broken", isnan(root_value(&t, "Broken")), "expected NaN");
	/* perf keys references by the table's name: another case finds no value */
	CHECK_MSG("Case", isnan(root_value(&t, "Case")), "expected NaN");
	free(t.names);
	free(t.exprs);
}

/* The set's own rules: a present id keeps its place, delete, union into the larger set. */
static void test_id_set(void)
{
	struct metric_ids *ids = metric_ids_new(), *small = metric_ids_new(), *u;
	char joined[512], from_array[512] = "";
	char **array;

	metric_ids_insert(ids, "EPT.WALK_PENDING");
	CHECK("insert of a present id", !metric_ids_insert(ids, "EPT.WALK_PENDING"));
	CHECK_EQ("size", 1, metric_ids_size(ids));
	metric_ids_insert(ids, "DTLB_LOAD_MISSES.WALK_PENDING");
	metric_ids_insert(ids, "ITLB_MISSES.WALK_PENDING");
	CHECK("has", metric_ids_has(ids, "ITLB_MISSES.WALK_PENDING"));
	CHECK("delete", metric_ids_delete(ids, "ITLB_MISSES.WALK_PENDING"));
	CHECK("deleted", !metric_ids_has(ids, "ITLB_MISSES.WALK_PENDING"));
	CHECK("delete of an absent id", !metric_ids_delete(ids, "nosuch"));
	CHECK_EQ("size after delete", 2, metric_ids_size(ids));
	metric_ids_insert(small, "x");
	u = metric_ids_union(small, ids);
	CHECK("union keeps the larger set", u == ids);
	CHECK_EQ("union size", 3, metric_ids_size(u));
	CHECK("union has x", metric_ids_has(u, "x"));
	CHECK("union with NULL", metric_ids_union(NULL, u) == u && metric_ids_union(u, NULL) == u);
	join_ids(u, joined, sizeof(joined));
	array = metric_ids_to_array(u);
	for (char **p = array; *p; p++) {
		snprintf(from_array + strlen(from_array), sizeof(from_array) - strlen(from_array),
			 "%s%s", p == array ? "" : " ", *p);
		free(*p);
	}
	free(array);
	CHECK_STR("array in iteration order", joined, from_array);
	metric_ids_free(u);
	CHECK_EQ("size of NULL", 0, metric_ids_size(NULL));
}

static void test_legacy_ids(void)
{
	check_ids("instructions / cycles", "instructions cycles");
	check_ids("cycles / instructions + cycles", "cycles instructions");
	check_ids("branch\\-misses / branches", "branch-misses branches");
	check_ids("min(a@b, d_ratio(x, 2)) if y > 0 else 1", "a@b x y");
	check_ids("task\\-clock / (duration_time / 1e6)", "task-clock duration_time");
	check_ids("2 * 3", "");
	CHECK_EQ("ids of a bad expression", -EINVAL, metric_expr_ids("1 +", &(char **){ NULL }));
}

/* A fake machine: 4 CPUs, 2 cores of 2 threads (0,2 and 1,3), one package and die. */
static char *fake_sysfs(const char *smt_active)
{
	char dir[] = "/tmp/bperf-literals-XXXXXX", *root = xstrdup(mkdtemp(dir) ?: "/nonexistent");
	static const char *const core[] = { "0,2", "1,3", "0,2", "1,3" };
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/smt", root);
	if (system(path))
		return root;
	for (int cpu = 0; cpu < 4; cpu++) {
		snprintf(path, sizeof(path), "mkdir -p %s/devices/system/cpu/cpu%d/topology", root,
			 cpu);
		if (system(path))
			return root;
		static const char *const names[] = { "package_cpus_list", "die_cpus_list",
						     "core_cpus_list" };
		for (int k = 0; k < 3; k++) {
			snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/%s", root,
				 cpu, names[k]);
			f = fopen(path, "w");
			if (f) {
				fprintf(f, "%s\n", k == 2 ? core[cpu] : "0-3");
				fclose(f);
			}
		}
	}
	static const char *const files[][2] = {
		{ "present", "0-3" }, { "online", "0-3" }, { "smt/active", NULL },
	};
	for (size_t i = 0; i < 3; i++) {
		const char *text = files[i][1] ?: smt_active;

		if (!text)
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/%s", root, files[i][0]);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s\n", text);
			fclose(f);
		}
	}
	return root;
}

static void remove_tree(const char *root)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", root);
}

static unsigned int fake_leaf0_eax, fake_leaf15[3];
static const char *fake_vendor;

static bool fake_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int r[4])
{
	memset(r, 0, 4 * sizeof(*r));
	if (leaf == 0) {
		r[0] = fake_leaf0_eax;
		memcpy(&r[1], fake_vendor, 4);
		memcpy(&r[3], fake_vendor + 4, 4);
		memcpy(&r[2], fake_vendor + 8, 4);
	} else if (leaf == 0x15) {
		memcpy(r, fake_leaf15, sizeof(fake_leaf15));
	}
	return true;
}

static double sys_literal(struct metric_sys_literals *lit, const char *expr)
{
	struct metric_expr_ctx ctx = { .literals = &lit->base };
	double v = -1;

	if (metric_expr_eval(expr, &ctx, &v))
		return -2;
	return v;
}

static char *write_cpuinfo(const char *model)
{
	char path[] = "/tmp/bperf-cpuinfo-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (f) {
		fprintf(f, "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: %s\n\n",
			model);
		fclose(f);
	}
	return xstrdup(path);
}

static double tsc_with(const char *vendor, unsigned int max_leaf, unsigned int a,
		       unsigned int b, unsigned int c, const char *cpuinfo)
{
	struct metric_sys_literals lit;
	double v;

	metric_sys_literals_init(&lit, false, NULL);
	lit.cpuid = fake_cpuid;
	lit.cpuinfo = cpuinfo;
	fake_vendor = vendor;
	fake_leaf0_eax = max_leaf;
	fake_leaf15[0] = a;
	fake_leaf15[1] = b;
	fake_leaf15[2] = c;
	v = sys_literal(&lit, "#system_tsc_freq");
	metric_sys_literals_free(&lit);
	return v;
}

/* The machine's provider on a fake sysfs, cpuinfo and CPUID. */
static void test_sys_literals(void)
{
	char *root = fake_sysfs(NULL), *root_smt0 = fake_sysfs("0");
	struct {
		const char *root, *expr, *cpus;
		bool system_wide;
		double expected;
	} cases[] = {
		{ root, "#num_cpus", NULL, false, 4 },
		{ root, "#num_packages", NULL, false, 1 },
		{ root, "#num_dies", NULL, false, 1 },
		{ root, "#num_cores", NULL, false, 2 },
		{ root, "#smt_on", NULL, false, 1 },	/* no smt/active: core lists "0,2" */
		{ root, "#core_wide", NULL, false, 0 },	/* not system-wide */
		{ root, "#core_wide", NULL, true, 1 },	/* -a: every CPU */
		{ root, "#core_wide", "0,2", true, 1 },	/* both threads of core 0 */
		{ root, "#core_wide", "0-3", true, 1 },
		{ root, "#core_wide", "0,1", true, 0 },	/* half of each core */
		{ root, "#core_wide", "2", true, 0 },
		{ root_smt0, "#smt_on", NULL, false, 0 },	/* smt/active says 0 */
		{ root_smt0, "#core_wide", "0,1", true, 1 },	/* no SMT: always core-wide */
		{ root_smt0, "#core_wide", NULL, false, 0 },
		{ "/nonexistent", "#num_cores", NULL, false, -2 },	/* no topology */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct metric_sys_literals lit;
		char name[128];

		metric_sys_literals_init(&lit, cases[i].system_wide, cases[i].cpus);
		lit.sysfs_root = cases[i].root;
		lit.dies = true;
		snprintf(name, sizeof(name), "%s -C %s%s (%s)", cases[i].expr,
			 cases[i].cpus ?: "-", cases[i].system_wide ? " -a" : "",
			 cases[i].root == root ? "smt from topology" : cases[i].root == root_smt0 ?
			 "smt/active 0" : "no sysfs");
		CHECK_NEAR(name, cases[i].expected, sys_literal(&lit, cases[i].expr), 0);
		metric_sys_literals_free(&lit);
	}
	remove_tree(root);
	remove_tree(root_smt0);
	free(root);
	free(root_smt0);

	char *with_ghz = write_cpuinfo("Intel(R) Xeon(R) Gold 6154 CPU @ 3.00GHz");
	char *without = write_cpuinfo("Intel(R) Core(TM) i7");

	CHECK_NEAR("tsc: AMD", 0, tsc_with("AuthenticAMD", 0x16, 2, 100, 24000000, with_ghz), 0);
	CHECK_NEAR("tsc: Intel, CPUID 0x15", 1.2e9,
		   tsc_with("GenuineIntel", 0x16, 2, 100, 24000000, with_ghz), 0);
	CHECK_NEAR("tsc: Intel, 0x15 not enumerated", 3e9,
		   tsc_with("GenuineIntel", 0x16, 0, 100, 24000000, with_ghz), 0);
	CHECK_NEAR("tsc: Intel, no leaf 0x15", 3e9,
		   tsc_with("GenuineIntel", 0x14, 2, 100, 24000000, with_ghz), 0);
	/* perf prints "Failed to find TSC frequency in /proc/cpuinfo" and uses 0 */
	CHECK_NEAR("tsc: Intel, no GHz in cpuinfo", 0,
		   tsc_with("GenuineIntel", 0x14, 0, 0, 0, without), 0);
	CHECK_NEAR("tsc: Intel, no cpuinfo", -2,
		   tsc_with("GenuineIntel", 0x14, 0, 0, 0, "/nonexistent"), 0);
	unlink(with_ghz);
	unlink(without);
	free(with_ghz);
	free(without);
}

static int builtin_value(void *ctx, int ev, double *v)
{
	const struct metric_instance *m = ctx;

	return lookup(NULL, m->ids[ev], false, v);
}

/* Every built-in metric: its events mapped to themselves, evaluated with ScaleUnit applied. */
static void test_builtin_metrics(void)
{
	static const struct {
		const char *name;
		double expected;
	} expected[] = {
		{ "IPC", 2.0 },
		{ "CPI", 0.5 },
		{ "Branch_Miss_Rate", 0.25 },		/* 100% ScaleUnit: percent */
		{ "Cache_Miss_Rate", 25.0 },
		{ "L1D_Miss_Rate", 1.0 },
		{ "L1I_Miss_Rate", 1.0 },
		{ "LLC_Miss_Rate", 25.0 },
		{ "DTLB_Miss_Rate", 0.1 },
		{ "ITLB_Miss_Rate", 0.1 },
		{ "Frontend_Stall_Ratio", 20.0 },
		{ "Backend_Stall_Ratio", 50.0 },
		{ "CPUs_utilized", 1.5 },		/* 750 msec over 500 ms */
		{ "GHz", 2.0 },				/* 1.5e9 cycles in 750 msec */
		{ "CS_per_sec", 2000.0 },
		{ "Faults_per_sec", 1600.0 },
		{ "Minor_Fault_Ratio", 75.0 },
	};
	size_t i;
	int k;

	CHECK_EQ("built-in metrics", sizeof(expected) / sizeof(expected[0]), metric_table_size);
	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++) {
		struct metric_instance m = { 0 };
		int evs[16], n;
		double got = NAN;

		for (k = 0; k < metric_table_size; k++)
			if (metric_def_matches(&metric_table[k], expected[i].name) &&
			    !strcmp(metric_table[k].name, expected[i].name))
				m.def = metric_table[k];
		if (!CHECK_MSG(expected[i].name, m.def.name, "expected a built-in metric, got none"))
			continue;
		n = metric_expr_ids(m.def.expr, &m.ids);
		for (k = 0; k < n; k++)
			evs[k] = k;
		m.evs = evs;
		m.scale = m.def.scale_unit ? 100 : 1;
		if (CHECK_OK(expected[i].name, metric_instance_eval(&m, NULL, builtin_value, &m, &got)))
			CHECK_NEAR(expected[i].name, expected[i].expected, got,
				   1e-9 * fmax(1.0, expected[i].expected));
		metric_expr_ids_free(m.ids);
	}
}

static void test_matching(void)
{
	const struct metric_def *ipc = NULL;

	for (int k = 0; k < metric_table_size; k++)
		if (!strcmp(metric_table[k].name, "IPC"))
			ipc = &metric_table[k];
	if (!CHECK_MSG("IPC", ipc, "expected a built-in metric, got none"))
		return;
	CHECK("IPC matches ipc", metric_def_matches(ipc, "ipc"));
	CHECK("IPC matches summary", metric_def_matches(ipc, "summary"));
	CHECK("IPC matches Pipeline", metric_def_matches(ipc, "Pipeline"));
	CHECK("IPC does not match Pipe", !metric_def_matches(ipc, "Pipe"));
	CHECK("IPC does not match CPI", !metric_def_matches(ipc, "CPI"));
}

/* counts perf printed (`value` mode): evsel name and count */
struct counts {
	char **names;
	double *values;
	int nr;
};

static int read_counts(const char *path, struct counts *c)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t len = 0;

	if (!f)
		return -errno;
	while (getline(&line, &len, f) > 0) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		c->names = xrealloc(c->names, (c->nr + 1) * sizeof(char *));
		c->values = xrealloc(c->values, (c->nr + 1) * sizeof(double));
		c->names[c->nr] = xstrdup(line);
		c->values[c->nr++] = strtod(tab + 1, NULL);
	}
	free(line);
	fclose(f);
	return 0;
}

/* An id's value as perf's prepare_metric() takes it: its evsel's count, duration_time in s. */
static int count_of(const struct counts *c, const char *id, double *value)
{
	char *name = xstrdup(id);
	int err = -ENOENT;

	for (char *p = name; *p; p++)
		if (*p == '@')
			*p = '/';
	for (int i = 0; i < c->nr && err; i++) {
		if (!strcmp(c->names[i], name)) {
			*value = c->values[i] * (strcmp(id, "duration_time") ? 1 : 1e-9);
			err = 0;
		}
	}
	free(name);
	return err;
}

struct value_eval {
	const struct metric_refs *refs;
	const struct counts *counts;
	struct metric_expr_ctx ctx;
};

static int value_lookup(void *priv, const char *id, bool source_count, double *value)
{
	struct value_eval *v = priv;
	int err = metric_refs_value(v->refs, id, &v->ctx, value);

	if (err != -ENOENT)
		return err;
	err = count_of(v->counts, id, value);
	if (!err && source_count)
		*value = 1;	/* one PMU instance of each: nothing merged */
	return err;
}

/*
 * `ids`: the events metric NAME needs in perf's order, one a line. `value -c COUNTS`: its value
 * (%.17g) from the counts perf printed ("evsel<tab>count" lines), exit 3 if an event has none.
 */
static int tool(int argc, char **argv, bool value)
{
	struct metric_sys_literals lit;
	struct ids_tool t = { 0 };
	struct metric_refs refs = { 0 };
	struct counts counts = { 0 };
	struct metric_ids *ids = NULL;
	struct metric_ids_iter it;
	const char *cpus = NULL, *id, *counts_path = NULL;
	bool system_wide = false;
	char *line = NULL;
	size_t len = 0;
	int opt, def, err;

	while ((opt = getopt(argc, argv, "aC:c:")) != -1) {
		if (opt == 'a')
			system_wide = true;
		else if (opt == 'C')
			cpus = optarg;
		else if (opt == 'c')
			counts_path = optarg;
		else
			return 2;
	}
	if (optind != argc - 1 || value != !!counts_path) {
		fprintf(stderr, "usage: test_metric_expr ids|value [-a] [-C CPUS] [-c COUNTS] NAME "
			"<defs\n");
		return 2;
	}
	while (getline(&line, &len, stdin) > 0) {
		char *tab = strchr(line, '\t');

		if (!tab)
			continue;
		*tab = '\0';
		tab[strcspn(tab + 1, "\n") + 1] = '\0';
		if (find_def(&t, line) >= 0)
			continue;
		t.names = xrealloc(t.names, (t.nr + 1) * sizeof(char *));
		t.exprs = xrealloc(t.exprs, (t.nr + 1) * sizeof(char *));
		t.names[t.nr] = xstrdup(line);
		t.exprs[t.nr++] = xstrdup(tab + 1);
	}
	free(line);
	def = find_def(&t, argv[optind]);
	if (def < 0) {
		fprintf(stderr, "no metric %s\n", argv[optind]);
		return 1;
	}
	metric_sys_literals_init(&lit, system_wide, cpus);
	t.ctx.literals = &lit.base;
	err = metric_root_ids(t.names[def], t.exprs[def], find_metric, &t, &t.ctx, &ids, &refs);
	if (!err && !value) {
		metric_ids_for_each(ids, it, id)
			if (!is_tool_event(id))
				printf("%s\n", id);
	} else if (!err) {
		struct value_eval v = { .refs = &refs, .counts = &counts, .ctx = t.ctx };
		double result, unused;

		v.ctx.lookup = value_lookup;
		v.ctx.priv = &v;
		err = read_counts(counts_path, &counts);
		metric_ids_for_each(ids, it, id)
			if (!err && count_of(&counts, id, &unused))
				err = 3;
		if (!err && !metric_expr_eval(t.exprs[def], &v.ctx, &result))
			printf("%.17g\n", result);
		else if (!err)
			printf("none\n");	/* perf prints no value either */
	}
	metric_ids_free(ids);
	metric_refs_free(&refs);
	metric_sys_literals_free(&lit);
	for (int i = 0; i < t.nr; i++) {
		free(t.names[i]);
		free(t.exprs[i]);
	}
	for (int i = 0; i < counts.nr; i++)
		free(counts.names[i]);
	free(counts.names);
	free(counts.values);
	free(t.names);
	free(t.exprs);
	return err == 3 ? 3 : err ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "ids") || !strcmp(argv[1], "value")))
		return tool(argc - 1, argv + 1, !strcmp(argv[1], "value"));
	test_precedence();
	test_operators();
	test_division_by_zero();
	test_nan();
	test_scanner();
	test_syntax_errors();
	test_literals();
	test_find_ids();
	test_id_order();
	test_id_set();
	test_refs();
	test_ref_values();
	test_legacy_ids();
	test_sys_literals();
	test_builtin_metrics();
	test_matching();
	return check_exit("test_metric_expr");
}
