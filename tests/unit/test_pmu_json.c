// SPDX-License-Identifier: GPL-2.0-only
/*
 * Table events as PMU aliases (src/events/pmu_json.c), on a fake sysfs tree under a temporary
 * directory with PERF_CPUID naming perf's test table (pme_test_soc_cpu): perf's
 * pmu_uncore_alias_match cases (the arm64 `hisi_sccl,ddrc` lists among them, which the x86
 * shell tests cannot reach), core and uncore aliases attached by perf's rules, the merge of a
 * table entry into a sysfs alias (text, scale and value string from the table, terms from sysfs),
 * lazy terms, and the case-insensitive token class.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "events/lexer.h"
#include "events/pmu.h"
#include "events/pmu_tables.h"

static void test_uncore_match(void)
{
	static const struct {
		const char *pname, *name;
		bool match;
	} cases[] = {
		{ "uncore_imc", "uncore_imc_0", true },
		{ "uncore_imc", "uncore_imc", true },
		{ "uncore_imc", "uncore_imc0", true },
		{ "uncore_imc", "uncore_imc_free_running_0", false },
		{ "uncore_imc", "uncore_im", false },
		{ "hisi_sccl,ddrc", "hisi_sccl1_ddrc0", true },
		{ "hisi_sccl,ddrc", "hisi_sccl1_ddrc", true },
		{ "hisi_sccl,ddrc", "hisi_sccl1_hha0", false },
		{ "hisi_sccl,l3c", "hisi_sccl3_l3c7", true },
		{ "amd_df", "amd_df", true },
		{ "cpu", "cpu_core", false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char name[128];

		snprintf(name, sizeof(name), "uncore match %s %s", cases[i].pname, cases[i].name);
		CHECK_EQ(name, cases[i].match,
			 pmu_uncore_alias_match(cases[i].pname, cases[i].name));
	}
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "w");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(path);
}

static char *make_pmu(const char *root, const char *name, const char *type, bool uncore)
{
	char *dir = xasprintf("%s/bus/event_source/devices/%s", root, name);
	char *sub = xasprintf("mkdir -p %s/format %s/events", dir, dir);

	if (system(sub))
		fprintf(stderr, "mkdir failed\n");
	free(sub);
	write_file(dir, "type", type);
	sub = xasprintf("%s/format", dir);
	write_file(sub, "event", "config:0-7\n");
	write_file(sub, "umask", "config:8-15\n");
	free(sub);
	if (uncore)
		write_file(dir, "cpumask", "0\n");
	return dir;
}

static const struct pmu_alias *find(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_aliases; i++)
		if (!strcmp(pmu->aliases[i].name, name))
			return &pmu->aliases[i];
	return NULL;
}

static void test_aliases(const char *root)
{
	struct pmu_set *set = pmu_set_new(root);
	char *cpu = make_pmu(root, "cpu", "4", false);
	char *events = xasprintf("%s/events", cpu);
	struct pmu *pmu;
	struct pmu_alias *a;
	char *imc = make_pmu(root, "uncore_imc_4", "12", true);

	/* perf's test table has bp_l1_btb_correct (core) and uncore_imc_4's uncore_imc.cache_hits */
	write_file(events, "BP_L1_BTB_CORRECT", "event=0x8a,umask=0x3\n");
	write_file(events, "cycles-t", "event=0x3c\n");
	pmu = pmu_find(set, "cpu");
	if (!CHECK_MSG("cpu PMU", pmu != NULL, "not found"))
		goto out;
	CHECK_EQ("sysfs aliases before the tables", 2, pmu->nr_aliases);
	pmu_load_table_aliases(set, pmu);
	CHECK_MSG("table aliases added", pmu->nr_aliases > 2, "%d aliases", pmu->nr_aliases);
	a = (struct pmu_alias *)find(pmu, "BP_L1_BTB_CORRECT");
	if (CHECK_MSG("merged alias", a != NULL, "missing")) {
		/* the table's text and value string; the sysfs terms (umask 3, not the table's) */
		CHECK_STR("merged desc", "L1 BTB Correction", a->desc);
		CHECK_STR("merged value", "event=0x8a", a->str);
		CHECK_EQ("merged terms", 2, a->terms.nr);
	}
	CHECK_MSG("no second bp_l1_btb_correct", !find(pmu, "bp_l1_btb_correct"), "duplicated");
	a = (struct pmu_alias *)find(pmu, "segment_reg_loads.any");
	if (CHECK_MSG("table alias", a != NULL, "missing")) {
		CHECK_MSG("lazy terms", a->event && !a->str, "parsed at load");
		CHECK_OK("terms parsed", pmu_alias_terms(a));
		CHECK_STR("value string", "event=0x6,period=0x30d40,umask=0x80", a->str);
	}
	CHECK_EQ("token class, upper case", T_KERNEL_PMU_EVENT,
		 pmu_alias_token_class("SEGMENT_REG_LOADS.ANY", set));
	CHECK_EQ("token class of cpu", T_NAME, pmu_alias_token_class("cpu", set));
	CHECK_EQ("token class, prefix", T_PMU_EVENT_PRE, pmu_alias_token_class("CYCLES", set));
	pmu = pmu_find(set, "uncore_imc_4");
	if (CHECK_MSG("uncore PMU", pmu != NULL, "not found")) {
		pmu_load_table_aliases(set, pmu);
		a = (struct pmu_alias *)find(pmu, "uncore_imc.cache_hits");
		if (CHECK_MSG("uncore alias", a != NULL, "missing"))
			CHECK_STR("uncore topic", "uncore", a->topic);
		CHECK_MSG("no core alias on an uncore PMU", !find(pmu, "segment_reg_loads.any"),
			  "attached");
	}
out:
	pmu_set_free(set);
	free(events);
	free(cpu);
	free(imc);
}

int main(void)
{
	char root[] = "/tmp/bperf-pmu-json-XXXXXX";
	char *rm;

	test_uncore_match();
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	setenv("PERF_CPUID", "testcpu", 1);
	test_aliases(root);
	rm = xasprintf("rm -rf %s", root);
	if (system(rm))
		fprintf(stderr, "cannot remove %s\n", root);
	free(rm);
	return check_exit("test_pmu_json");
}
