// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf 6.1's pmu-events tables as bperf carries them: the CPU id formats and perf's matching of
 * ids to mapfile rows (the first row that matches wins; x86 needs full ids for rows that name a
 * stepping and prints perf's "Invalid CPUID" line otherwise), and entries whose strings jevents.py
 * builds in particular ways (ExtSel, MSR terms, description suffixes, Unit text, the fixed
 * encodings, architecture-standard events). The expected strings are those of perf's own
 * generated tables (jevents.py output); tests/shell/pmu_tables_vs_jevents.sh compares every
 * entry of every table with it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "events/pmu_tables.h"

/* Runs fn(arg) with stderr captured into buf. */
static void capture_stderr(const struct pmu_table *(*fn)(const char *), const char *arg,
			   const struct pmu_table **ret, char *buf, size_t size)
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	*ret = fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, size - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

static const char *table_for(const char *cpuid, const char *expect_stderr)
{
	const struct pmu_table *t;
	char err[1024], name[96];

	capture_stderr(pmu_table_for_cpuid, cpuid, &t, err, sizeof(err));
	snprintf(name, sizeof(name), "messages for %s", cpuid);
	CHECK_STR(name, expect_stderr, err);
	return t ? pmu_table_name(t) : NULL;
}

static void test_formats(void)
{
	char buf[64];

	/* CPUID leaf 1 EAX: stepping 3:0, model 7:4, family 11:8, ext. model 19:16, ext. family */
	pmu_cpuid_format_x86(buf, sizeof(buf), "GenuineIntel", 0x50654);
	CHECK_STR("skylake-x id", "GenuineIntel-6-55-4", buf);
	pmu_cpuid_format_x86(buf, sizeof(buf), "GenuineIntel", 0x806f8);
	CHECK_STR("sapphire rapids id", "GenuineIntel-6-8F-8", buf);
	pmu_cpuid_format_x86(buf, sizeof(buf), "AuthenticAMD", 0xa10f11);
	CHECK_STR("zen 4 id", "AuthenticAMD-25-11-1", buf);
	pmu_cpuid_format_x86(buf, sizeof(buf), "AuthenticAMD", 0xb00f21);
	CHECK_STR("zen 5 id", "AuthenticAMD-26-2-1", buf);
	/* family < 6: the extended model is not added */
	pmu_cpuid_format_x86(buf, sizeof(buf), "GenuineIntel", 0x50543);
	CHECK_STR("family 5 id", "GenuineIntel-5-4-3", buf);
	pmu_cpuid_format_midr(buf, sizeof(buf), 0x414fd0c1);
	CHECK_STR("midr without variant and revision", "0x00000000410fd0c0", buf);
}

/* The id of this machine, from /proc/cpuinfo: the second way to the same numbers. */
static void test_own_cpuid(void)
{
#if defined(__x86_64__) || defined(__i386__)
	char line[256], vendor[64] = "", expect[128], *id;
	unsigned int family = 0, model = 0, stepping = 0, found = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f) {
		CHECK("/proc/cpuinfo readable", f);
		return;
	}
	while (fgets(line, sizeof(line), f) && found < 4) {
		found += sscanf(line, "vendor_id : %63s", vendor) == 1;
		found += sscanf(line, "cpu family : %u", &family) == 1;
		found += sscanf(line, "model : %u", &model) == 1;
		found += sscanf(line, "stepping : %u", &stepping) == 1;
	}
	fclose(f);
	snprintf(expect, sizeof(expect), "%s-%u-%X-%X", vendor, family, model, stepping);
	unsetenv("PERF_CPUID");
	CHECK_STR("this CPU's id as /proc/cpuinfo's", expect, pmu_cpuid(0));
	CHECK("the table for this CPU is its id's",
	      pmu_table_for_cpu(0) == (pmu_cpuid(0) ? pmu_table_for_cpuid(pmu_cpuid(0)) : NULL));
	id = pmu_cpuid_for_cpus("0");
	CHECK_STR("a PMU's id: every x86 CPU's", expect, id);
	free(id);
	setenv("PERF_CPUID", "testcpu", 1);
	id = pmu_cpuid_for_cpus("0");
	CHECK_STR("a PMU's id: PERF_CPUID first", "testcpu", id);
	free(id);
	unsetenv("PERF_CPUID");
#endif
}

static void test_matchers(void)
{
	CHECK_EQ("x86 stepping range", 0,
		 pmu_cpuid_match_x86("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-4"));
	CHECK_EQ("x86 stepping outside the range", 1,
		 pmu_cpuid_match_x86("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55-7"));
	CHECK_EQ("x86 pattern without stepping", 0,
		 pmu_cpuid_match_x86("GenuineIntel-6-(97|9A)", "GenuineIntel-6-9A-3"));
	/* the match must cover the whole id (less its stepping): 31 is not zen 1's */
	CHECK_EQ("x86 partial match", 1,
		 pmu_cpuid_match_x86("AuthenticAMD-23-([12][0-9A-F]|[0-9A-F])",
				     "AuthenticAMD-23-31-0"));
	CHECK_EQ("x86 short id, short pattern", 0, pmu_cpuid_match_x86("testcpu", "testcpu"));
	CHECK_EQ("x86 id without stepping, pattern with", PMU_CPUID_NEEDS_FULL,
		 pmu_cpuid_match_x86("GenuineIntel-6-55-[01234]", "GenuineIntel-6-55"));
	CHECK_EQ("generic exact", 0,
		 pmu_cpuid_match_generic("0x00000000410fd0c0", "0x00000000410fd0c0"));
	CHECK_EQ("generic longer id", 1,
		 pmu_cpuid_match_generic("0x00000000410fd0c0", "0x00000000410fd0c00"));
	CHECK_EQ("generic: no stepping rule", 1,
		 pmu_cpuid_match_generic("GenuineIntel-6-(97|9A)", "GenuineIntel-6-9A-3"));
}

static bool find_event(const struct pmu_table *t, const char *name, struct pmu_table_entry *e)
{
	for (size_t i = 0; t && i < pmu_table_size(t); i++) {
		pmu_table_entry(t, i, e);
		if (e->name && !strcmp(e->name, name))
			return true;
	}
	memset(e, 0, sizeof(*e));
	return false;
}

/* fields of one event, NULL = absent */
static void check_event(const char *cpuid, const char *name, const char *event, const char *desc,
			const char *pmu)
{
	const struct pmu_table *t = pmu_table_for_cpuid(cpuid);
	struct pmu_table_entry e;
	char what[160];

	snprintf(what, sizeof(what), "%s of %s", name, cpuid);
	if (!CHECK_MSG(what, find_event(t, name, &e), "expected %s, not found", name))
		return;
	snprintf(what, sizeof(what), "%s of %s: event", name, cpuid);
	CHECK_STR(what, event, e.event);
	snprintf(what, sizeof(what), "%s of %s: desc", name, cpuid);
	CHECK_STR(what, desc, e.desc);
	snprintf(what, sizeof(what), "%s of %s: pmu", name, cpuid);
	CHECK_STR(what, pmu, e.pmu);
}

static int count_entry(const struct pmu_table_entry *e, void *data)
{
	(*(int *)data)++;
	return 0;
}

/* perf's test table, in every build */
static void test_test_tables(void)
{
	const struct pmu_table *t;
	struct pmu_table_entry e;
	int n = 0;

	CHECK_STR("testcpu", "pme_test_soc_cpu", table_for("testcpu", ""));
	t = pmu_table_for_cpuid("testcpu");
	if (!t)
		return;
	CHECK_EQ("test table entries", 28, pmu_table_size(t));
	/* perf's order: entries without a description (here metrics) first, by topic and name */
	pmu_table_entry(t, 0, &e);
	CHECK_STR("first entry", "CPI", e.metric_name);
	pmu_table_entry(t, 15, &e);
	CHECK_STR("first event with a description", "bp_l1_btb_correct", e.name);
	pmu_table_entry(t, 27, &e);
	CHECK_STR("last entry", "uncore_imc_free_running.cache_miss", e.name);
	CHECK_EQ("for_each visits all", 0, pmu_table_for_each(t, count_entry, &n));
	CHECK_EQ("for_each count", 28, n);
	/* ArchStdEvent from test/arch-std-events.json: its event and descriptions */
	check_event("testcpu", "l3_cache_rd", "event=0x40", "L3 cache access, read", NULL);
	find_event(t, "l3_cache_rd", &e);
	CHECK_STR("std long desc", "Attributable Level 3 cache access, read", e.long_desc);
	/* "0x00" is not "0": the umask term stays */
	check_event("testcpu", "event-hyphen", "event=0xe0,umask=0x00",
		    "UNC_CBO_HYPHEN. Unit: uncore_cbox ", "uncore_cbox");
	CHECK_OK("metric IPC", pmu_table_find_metric(t, "ipc", &e));
	CHECK_STR("metric IPC expr", "inst_retired.any / cpu_clk_unhalted.thread", e.metric_expr);
	CHECK_STR("metric IPC group", "group1", e.metric_group);
	CHECK_STR("metric topic", "metrics", e.topic);
	/* JSON's "l1d\\-loads" is l1d\-loads at run time, as in perf */
	CHECK_OK("metric dcache_miss_cpi", pmu_table_find_metric(t, "dcache_miss_cpi", &e));
	CHECK_STR("escaped expr", "l1d\\-loads\\-misses / inst_retired.any", e.metric_expr);
	CHECK_EQ("no such metric", -ENOENT, pmu_table_find_metric(t, "no_such_metric", &e));

	/* the test sys table: ConfigCode, compat */
	n = 0;
	CHECK_EQ("sys v8", 0, pmu_tables_for_each_sys("v8", count_entry, &n));
	CHECK_EQ("sys entries of compat v8", 1, n);
	n = 0;
	CHECK_EQ("sys all", 0, pmu_tables_for_each_sys(NULL, count_entry, &n));
	CHECK("sys entries", n >= 2);
	for (size_t i = 0; i < pmu_tables_sys_size(); i++) {
		t = pmu_tables_sys_table(i);
		if (strcmp(pmu_table_name(t), "pme_test_soc_sys"))
			continue;
		CHECK("sys_ccn_pmu.read_cycles", find_event(t, "sys_ccn_pmu.read_cycles", &e));
		CHECK_STR("ConfigCode", "config=0x2c", e.event);
		CHECK_STR("compat", "0x01", e.compat);
		CHECK_STR("sys pmu", "uncore_sys_ccn_pmu", e.pmu);
	}
}

#if defined(__x86_64__) || defined(__i386__)
static void test_x86(void)
{
	const char *invalid = "Invalid CPUID GenuineIntel-6-55. Full CPUID is required, "
			      "vendor-family-model-stepping\n";
	const struct pmu_table *t;
	struct pmu_table_entry e;

	CHECK_STR("6-55-4", "pme_skylakex", table_for("GenuineIntel-6-55-4", ""));
	CHECK_STR("6-55-7", "pme_cascadelakex", table_for("GenuineIntel-6-55-7", ""));
	CHECK_STR("6-97-2", "pme_alderlake", table_for("GenuineIntel-6-97-2", ""));
	CHECK_STR("6-8F-8", "pme_sapphirerapids", table_for("GenuineIntel-6-8F-8", ""));
	/* two rows name a stepping (cascadelakex, skylakex): one message (perf: one each), no table */
	CHECK_STR("6-55", NULL, table_for("GenuineIntel-6-55", invalid));
	CHECK_STR("23-1-2", "pme_amdzen1", table_for("AuthenticAMD-23-1-2", ""));
	CHECK_STR("23-31-0", "pme_amdzen2", table_for("AuthenticAMD-23-31-0", ""));
	CHECK_STR("25-1-1", "pme_amdzen3", table_for("AuthenticAMD-25-1-1", ""));
	CHECK_STR("25-11-1", "pme_amdzen3", table_for("AuthenticAMD-25-11-1", ""));
	CHECK_STR("26-2-1", NULL, table_for("AuthenticAMD-26-2-1", ""));

	/* MSR terms: offcore_rsp (0x1a6), ldlat (0x3f6), frontend (0x3f7) */
	check_event("GenuineIntel-6-55-4", "offcore_response.all_data_rd.l3_hit.any_snoop",
		    "event=0xb7,period=100003,umask=0x1,offcore_rsp=0x3F803C0491",
		    "Counts all demand & prefetch data reads that hit in the L3", NULL);
	check_event("GenuineIntel-6-55-4", "mem_trans_retired.load_latency_gt_4",
		    "event=0xcd,period=100003,umask=0x1,ldlat=0x4",
		    "Counts randomly selected loads when the latency from first dispatch to "
		    "completion is greater than 4 cycles  Supports address when precise (Must be "
		    "precise)", NULL);
	check_event("GenuineIntel-6-55-4", "frontend_retired.latency_ge_2",
		    "event=0xc6,period=100007,umask=0x1,frontend=0x400206",
		    "Retired instructions that are fetched after an interval where the front-end "
		    "delivered no uops for a period of 2 cycles which was not interrupted by a "
		    "back-end stall (Precise event)", NULL);
	/* Data_LA and PEBS 1 */
	check_event("GenuineIntel-6-55-4", "mem_inst_retired.all_loads",
		    "event=0xd0,period=2000003,umask=0x81",
		    "All retired load instructions  Supports address when precise (Precise event)",
		    NULL);
	/* fixed encodings */
	check_event("GenuineIntel-6-55-4", "inst_retired.any", "event=0xc0,period=2000003",
		    "Instructions retired from execution", NULL);
	check_event("GenuineIntel-6-3C-3", "cpu_clk_unhalted.thread_any",
		    "event=0x3c,any=1,period=2000003",
		    "Core cycles when at least one thread on the physical core is not in halt "
		    "state",
		    NULL);
	check_event("GenuineIntel-6-96-0", "cpu_clk_unhalted.ref",
		    "event=0x0,umask=0x03,period=2000003",
		    "Counts the number of unhalted reference clock cycles at TSC frequency", NULL);
	/* Errata, in desc and long_desc */
	check_event("GenuineIntel-6-3C-3", "l2_rqsts.all_demand_data_rd",
		    "event=0x24,period=200003,umask=0xe1",
		    "Demand Data Read requests  Spec update: HSD78, HSM80", NULL);
	t = pmu_table_for_cpuid("GenuineIntel-6-3C-3");
	find_event(t, "l2_rqsts.all_demand_data_rd", &e);
	CHECK_STR("errata in long_desc", "Counts any demand and L1 HW prefetch data load requests "
		  "to L2  Spec update: HSD78, HSM80", e.long_desc);
	/* ExtSel: event code bit 8 and up; Unit -> PMU name and desc text, PerPkg */
	check_event("GenuineIntel-6-4F-1", "unc_q_rxl_flits_g1.drs", "event=0x102,umask=0x18",
		    "Flits Received - Group 1; DRS Flits (both Header and Data). Unit: uncore_qpi ",
		    "uncore_qpi");
	check_event("GenuineIntel-6-55-4", "unc_m_cas_count.rd", "event=0x4,umask=0x3",
		    "All DRAM Read CAS Commands issued (including underfills). Unit: uncore_imc ",
		    "uncore_imc");
	find_event(pmu_table_for_cpuid("GenuineIntel-6-55-4"), "unc_m_cas_count.rd", &e);
	CHECK_STR("perpkg", "1", e.perpkg);
	/* no BriefDescription: the Unit text alone */
	check_event("AuthenticAMD-25-11-1", "dram_channel_data_controller_0",
		    "event=0x7,umask=0x38", "Unit: amd_df ", "amd_df");
	check_event("AuthenticAMD-23-1-2", "xi_sys_fill_latency", "event=0x90,umask=0x00",
		    "L3 Cache Miss Latency. Total cycles for all transactions divided by 16. "
		    "Ignores SliceMask and ThreadMask. Unit: amd_l3 ", "amd_l3");
	check_event("AuthenticAMD-25-11-1", "ex_ret_brn_misp", "event=0xc3",
		    "Retired Branch Instructions Mispredicted", NULL);

	t = pmu_table_for_cpuid("GenuineIntel-6-55-4");
	CHECK_EQ("skylakex entries", 3533, t ? pmu_table_size(t) : 0);
	CHECK_OK("skylakex IPC", t ? pmu_table_find_metric(t, "IPC", &e) : -ENOENT);
	CHECK_STR("skylakex IPC expr", "INST_RETIRED.ANY / CLKS", e.metric_expr);
	CHECK_STR("skylakex IPC group", "Ret;Summary", e.metric_group);
	CHECK_STR("skylakex IPC desc", "Instructions Per Cycle (per Logical Processor)", e.desc);
}
#endif

#ifdef __aarch64__
static void test_arm64(void)
{
	struct pmu_table_entry e;
	const struct pmu_table *t;

	CHECK_STR("neoverse-n1", "pme_arm_cortex_a76_n1", table_for("0x00000000410fd0c0", ""));
	CHECK_STR("hip08", "pme_hisilicon_hip08", table_for("0x00000000480fd010", ""));
	CHECK_STR("qemu max", NULL, table_for("0x00000000000f0510", ""));
	/* ArchStdEvent: the standard event's encoding and desc, the model's long desc */
	check_event("0x00000000410fd0c0", "inst_retired", "event=0x8",
		    "Instruction architecturally executed", NULL);
	find_event(pmu_table_for_cpuid("0x00000000410fd0c0"), "inst_retired", &e);
	CHECK_STR("std merge long desc", "This event counts all retired instructions, including "
		  "those that fail their condition check", e.long_desc);
	CHECK_STR("std merge topic", "instruction", e.topic);
	t = pmu_table_for_cpuid("0x00000000480fd010");
	CHECK_OK("hip08 retiring", t ? pmu_table_find_metric(t, "retiring", &e) : -ENOENT);
	CHECK_STR("hip08 retiring expr", "INST_RETIRED / (CPU_CYCLES * 4)", e.metric_expr);
}
#endif

int main(void)
{
	test_formats();
	test_own_cpuid();
	test_matchers();
	test_test_tables();
#if defined(__x86_64__) || defined(__i386__)
	test_x86();
#endif
#ifdef __aarch64__
	test_arm64();
#endif
	return check_exit("test_pmu_tables");
}
