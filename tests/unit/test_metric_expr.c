// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metric expressions over synthetic counts: the evaluator's arithmetic, precedence, escapes,
 * functions, `if else`, errors, the ids an expression uses, and every built-in -M metric
 * evaluated through metric_instance_eval with exact expected values.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "stat/metric_expr.h"
#include "stat/metric_set.h"
#include "stat/metric_table.h"

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
	{ "a/b", 7.0 },			/* written a@b in expressions */
};

static int lookup(void *ctx, const char *id, double *value)
{
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!strcmp(counts[i].name, id)) {
			*value = counts[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

static void check_value(const char *expr, double expected)
{
	double got = NAN;
	int err = metric_expr_eval(expr, lookup, NULL, &got);

	if (CHECK_OK(expr, err))
		CHECK_NEAR(expr, expected, got, 1e-9 * fmax(1.0, fabs(expected)));
}

static void check_error(const char *expr, int expected)
{
	double got = 0;
	int err = metric_expr_eval(expr, lookup, NULL, &got);

	CHECK_MSG(expr, err == expected, "expected error %d, got %d (value %g)", expected, err,
		  got);
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

static void test_arithmetic(void)
{
	check_value("1 + 2 * 3", 7);
	check_value("(1 + 2) * 3", 9);
	check_value("10 - 4 - 3", 3);		/* left-associative */
	check_value("100 / 10 / 5", 2);
	check_value("7 % 4", 3);
	check_value("-3 + 5", 2);
	check_value("--3", 3);
	check_value("2 * -3", -6);
	check_value("1e3 / 4", 250);
	check_value(".5 * 4", 2);
	check_value("3 > 2", 1);
	check_value("3 < 2", 0);
	check_value("1 + 2 > 2", 1);		/* comparison binds looser than + */
	check_value("min(3, 2)", 2);
	check_value("max(3, 2 + 5)", 7);
	check_value("d_ratio(1, zero)", 0);
	check_value("d_ratio(3, 4)", 0.75);
	check_value("5 if 1 > 0 else 6", 5);
	check_value("5 if 1 < 0 else 6", 6);
	check_value("1 if zero > 0 else 2 if 1 > 0 else 3", 2);
	/* the branch not taken may divide by zero */
	check_value("instructions / zero if zero > 0 else 0", 0);
	check_value("instructions / cycles", 2);
	check_value("branch\\-misses / branches * 100", 0.25);
	check_value("a@b * 2", 14);
	check_value("  cycles/instructions  ", 0.5);
}

static void test_errors(void)
{
	check_error("", -EINVAL);
	check_error("1 +", -EINVAL);
	check_error("(1 + 2", -EINVAL);
	check_error("1 2", -EINVAL);
	check_error("min(1)", -EINVAL);
	check_error("1 if 2", -EINVAL);
	check_error("3 $ 4", -EINVAL);
	check_error("instructions / zero", -EDOM);
	check_error("5 % zero", -EDOM);
	check_error("no\\-such\\-event + 1", -ENOENT);
	check_error("1 / zero + (2", -EINVAL);	/* syntax wins over the division */
}

static void test_ids(void)
{
	check_ids("instructions / cycles", "instructions cycles");
	check_ids("cycles / instructions + cycles", "cycles instructions");
	check_ids("branch\\-misses / branches", "branch-misses branches");
	check_ids("min(a@b, d_ratio(x, 2)) if y > 0 else 1", "a/b x y");
	check_ids("task\\-clock / (duration_time / 1e6)", "task-clock duration_time");
	check_ids("2 * 3", "");
	CHECK_EQ("ids of a bad expression", -EINVAL, metric_expr_ids("1 +", &(char **){ NULL }));
}

static int builtin_value(void *ctx, int ev, double *v)
{
	const struct metric_instance *m = ctx;

	return lookup(NULL, m->ids[ev], v);
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
				m.def = &metric_table[k];
		if (!CHECK_MSG(expected[i].name, m.def, "expected a built-in metric, got none"))
			continue;
		n = metric_expr_ids(m.def->expr, &m.ids);
		for (k = 0; k < n; k++)
			evs[k] = k;
		m.evs = evs;
		m.scale = m.def->scale_unit ? 100 : 1;
		if (CHECK_OK(expected[i].name, metric_instance_eval(&m, builtin_value, &m, &got)))
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

int main(void)
{
	test_arithmetic();
	test_errors();
	test_ids();
	test_builtin_metrics();
	test_matching();
	return check_exit("test_metric_expr");
}
