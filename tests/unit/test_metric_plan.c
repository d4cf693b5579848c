// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf 6.1's -M planning (src/metrics/metric_plan.c): metric-id encoding, evsel names, the order
 * of the metric list and the event strings, sharing, constraints.
 *
 * `test_metric_plan plan [-a] [-C LIST] [-g] [-m] [-w] METRICS` is a tool for
 * tests/shell/json_metrics_vs_perf.sh: it plans METRICS for this CPU's table (PERF_CPUID
 * honoured) as `bperf stat -M METRICS` would (-a system-wide, -C cpus, -g --metric-no-group,
 * -m --metric-no-merge, -w the NMI watchdog on) and prints perf's -v lines
 * ("Parsing metric events '...'", "Events in '%s' fully contained within '%s'") in perf's
 * order, or perf's error; exit 1 on error.
 */
#include <errno.h>
#include <getopt.h>
#include <locale.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "metrics/metric_plan.h"
#include "metrics/metric_set.h"

static void test_encode(void)
{
	char *s = metric_id_encode("cpu@X,cmask=1@");

	CHECK_STR("encode", "cpu!3X!0cmask!21!3", s);
	free(s);
	s = metric_id_encode("branch-misses");
	CHECK_STR("encode dash", "branch!1misses", s);
	free(s);
	s = metric_id_evsel_name("cpu@ICACHE_16B.IFDATA_STALL,cmask=1,edge@", NULL);
	CHECK_STR("evsel name @", "cpu/ICACHE_16B.IFDATA_STALL,cmask=1,edge/", s);
	free(s);
	s = metric_id_evsel_name("INST_RETIRED.ANY", "u");
	CHECK_STR("evsel name mod", "INST_RETIRED.ANY:u", s);
	free(s);
	s = metric_id_evsel_name("CPU_CLK_UNHALTED.THREAD_P:k", "u");
	CHECK_STR("evsel name mod after mod", "CPU_CLK_UNHALTED.THREAD_P:ku", s);
	free(s);
	CHECK("tool", metric_id_is_tool("duration_time") && !metric_id_is_tool("cycles"));
}

/* The generic metrics (no table): perf's list, sort, sharing and strings rules on them. */
static void test_generic_plan(void)
{
	struct metric_plan_opts o = { .table = NULL };
	struct metric_plan p;

	/* items spliced at the head: CPI before IPC; IPC's ids are CPI's: shared */
	if (!CHECK_OK("IPC,CPI", metric_plan_build(&p, "IPC,CPI", &o)))
		return;
	CHECK_EQ("two metrics", 2, p.nr);
	CHECK_STR("CPI first", "CPI", p.metrics[0].def.name);
	CHECK_EQ("one string", 1, p.nr_events);
	CHECK_EQ("IPC shares CPI's", 0, p.metrics[1].shares);
	CHECK("grouped", p.nr_events && p.events[0].str[0] == '{' &&
	      strstr(p.events[0].str, "}:W") && strstr(p.events[0].str,
						    "cycles/metric-id=cycles/"));
	metric_plan_free(&p);
	/* duplicates kept; a metric with duration_time puts it into every string */
	if (!CHECK_OK("dup", metric_plan_build(&p, "Minor_Fault_Ratio,CPUs_utilized,ipc:u", &o)))
		return;
	CHECK_EQ("three metrics", 3, p.nr);
	CHECK_EQ("three strings (u differs)", 3, p.nr_events);
	for (int i = 0; i < p.nr_events; i++)
		CHECK("duration_time everywhere", strstr(p.events[i].str, "}:W,duration_time") ||
		      strstr(p.events[i].str, ",duration_time"));
	for (int i = 0; i < p.nr_events; i++)
		if (strstr(p.events[i].str, "instructions"))
			CHECK("modifier", strstr(p.events[i].str,
						 "instructions/metric-id=instructions/u"));
	metric_plan_free(&p);
	/* --metric-no-group: constrained, one combined ungrouped string */
	o.no_group = true;
	if (CHECK_OK("no group", metric_plan_build(&p, "IPC,Branch_Miss_Rate", &o))) {
		CHECK_EQ("combined", 1, p.nr_events);
		CHECK("no braces", p.nr_events && !strchr(p.events[0].str, '{'));
		metric_plan_free(&p);
	}
	o.no_group = false;
	CHECK_EQ("unknown", -EINVAL, metric_plan_build(&p, "IPC,nothing", &o));
}

/* ScaleUnits are read in the C locale, as perf's perf_pmu__convert_scale() */
static void test_scale_unit(void)
{
	const char *unit;
	double scale;

	metric_scale_unit("100%", &scale, &unit);
	CHECK("100%", scale == 100 && !strcmp(unit, "%"));
	metric_scale_unit("1per_instr", &scale, &unit);
	CHECK("1per_instr", scale == 1 && !strcmp(unit, "per_instr"));
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "de_DE.utf8")) {
		printf("test_metric_plan: no de_DE locale, the locale case is not checked\n");
		return;
	}
	metric_scale_unit("9.765625e-4KB", &scale, &unit);
	CHECK("9.765625e-4KB under de_DE", fabs(scale - 9.765625e-4) < 1e-12 &&
	      !strcmp(unit, "KB"));
	metric_scale_unit("6.103515625E-5MB/sec", &scale, &unit);
	CHECK("E-5 under de_DE", fabs(scale - 6.103515625e-5) < 1e-15 && !strcmp(unit, "MB/sec"));
	setlocale(LC_NUMERIC, "C");
}

static int tool(int argc, char **argv)
{
	struct metric_sys_literals lit;
	struct metric_plan_opts o = { .verbose = 0 };
	bool system_wide = false;
	const char *cpus = NULL;
	struct metric_plan p;
	int opt;

	while ((opt = getopt(argc, argv, "aC:gmw")) != -1) {
		switch (opt) {
		case 'a': system_wide = true; break;
		case 'C': cpus = optarg; break;
		case 'g': o.no_group = true; break;
		case 'm': o.no_merge = true; break;
		case 'w': o.nmi_watchdog = true; break;
		default: return 2;
		}
	}
	if (optind != argc - 1)
		return 2;
	metric_sys_literals_init(&lit, system_wide, cpus);
	o.literals = &lit.base;
	o.table = metric_table_model();
	if (metric_plan_build(&p, argv[optind], &o)) {
		metric_sys_literals_free(&lit);
		return 1;
	}
	/* perf's parse_groups(): the combined string, then each metric's own or shared one */
	bool combined = p.nr_events > 0;

	for (int i = 0; i < p.nr; i++)
		combined &= p.metrics[i].own_events != 0;
	if (combined)
		printf("Parsing metric events '%s'\n", p.events[0].str);
	for (int i = 0; i < p.nr; i++) {
		const struct metric_plan_metric *m = &p.metrics[i];

		if (m->shares >= 0)
			printf("Events in '%s' fully contained within '%s'\n", m->def.name,
			       p.metrics[m->shares].def.name);
		if (m->own_events >= 0)
			printf("Parsing metric events '%s'\n", p.events[m->own_events].str);
	}
	metric_plan_free(&p);
	metric_sys_literals_free(&lit);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "plan"))
		return tool(argc - 1, argv + 1);
	test_encode();
	test_generic_plan();
	test_scale_unit();
	return check_exit("test_metric_plan");
}
