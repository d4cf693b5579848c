// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which of perf 6.1's tables fits this CPU: perf's CPU id string (util/pmu.c
 * perf_pmu__getcpuid, arch/x86/util/header.c, arch/arm64/util/header.c), its matching of the id
 * against the map rows' regular expressions, first match wins. Both are found once, when first
 * asked for: `bperf stat -e task-clock` never gets here.
 */
#include "events/pmu_tables.h"

#include <dirent.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define PMU_CPUID_X86 1
#endif

#include "util/common.h"
#include "util/target.h"

/* What this process found, once. */
static struct {
	bool cpuid_done, table_done;
	char *cpuid;
	const struct pmu_table *table;
} cpu_cache;

void pmu_cpuid_format_x86(char *buf, size_t size, const char *vendor, uint32_t leaf1_eax)
{
	unsigned int family = (leaf1_eax >> 8) & 0xf, model = (leaf1_eax >> 4) & 0xf;

	if (family == 0xf)
		family += (leaf1_eax >> 20) & 0xff;
	if (family >= 6)
		model += ((leaf1_eax >> 16) & 0xf) << 4;
	snprintf(buf, size, "%s-%u-%X-%X", vendor, family, model, leaf1_eax & 0xf);
}

void pmu_cpuid_format_midr(char *buf, size_t size, uint64_t midr)
{
	/* the variant (bits 23:20) and revision (3:0) do not choose a table */
	snprintf(buf, size, "0x%016" PRIx64, midr & ~(uint64_t)0xf0000f);
}

#ifdef PMU_CPUID_X86
/* every CPU of an x86 machine has the one id: cpuid on this one */
static char *cpuid_of_cpus(const char *cpus)
{
	unsigned int lvl, a, b, c, d;
	char vendor[13], buf[128];

	if (!__get_cpuid(0, &lvl, &b, &c, &d))
		return NULL;
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = '\0';
	if (lvl < 1 || !__get_cpuid(1, &a, &b, &c, &d))
		return NULL;
	pmu_cpuid_format_x86(buf, sizeof(buf), vendor, a);
	return xstrdup(buf);
}

static char *cpuid_read(void)
{
	return cpuid_of_cpus(NULL);
}
#else
/* The MIDR of the first CPU of list (sysfs "0-3,5") whose midr_el1 can be read; 0 if none. */
static uint64_t midr_of_cpus(const char *list)
{
	struct cpu_map map;
	uint64_t midr = 0;
	char path[96], text[32];

	if (cpu_map_parse(&map, list))
		return 0;
	for (int i = 0; i < map.nr; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/%s", map.cpus[i],
			 "regs/identification/midr_el1");
		/* as perf: the first file read decides, whatever it holds */
		if (!read_text_file(path, text, sizeof(text))) {
			midr = strtoull(text, NULL, 16);
			break;
		}
	}
	cpu_map_free(&map);
	return midr;
}

static char *cpuid_of_cpus(const char *cpus)
{
	uint64_t midr = cpus ? midr_of_cpus(cpus) : 0;
	char buf[32];

	if (!midr)
		return NULL;
	pmu_cpuid_format_midr(buf, sizeof(buf), midr);
	return xstrdup(buf);
}

/* perf reads the MIDR through a core PMU's CPUs: the first PMU that has a `cpus` file. */
static char *cpuid_read(void)
{
	const char *root = "/sys/bus/event_source/devices";
	DIR *d = opendir(root);
	struct dirent *de;
	char *id = NULL;

	if (!d)
		return NULL;
	while (!id && (de = readdir(d))) {
		char *path, list[4096];

		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s/cpus", root, de->d_name);
		if (!read_text_file(path, list, sizeof(list)))
			id = cpuid_of_cpus(list);
		free(path);
	}
	closedir(d);
	return id;
}
#endif

char *pmu_cpuid_for_cpus(const char *cpus)
{
	const char *env = getenv("PERF_CPUID");

	return env ? xstrdup(env) : cpuid_of_cpus(cpus);
}

const char *pmu_cpuid(int verbose)
{
	const char *env;

	if (cpu_cache.cpuid_done)
		return cpu_cache.cpuid;
	cpu_cache.cpuid_done = true;
	env = getenv("PERF_CPUID");
	cpu_cache.cpuid = env ? xstrdup(env) : cpuid_read();
	if (cpu_cache.cpuid)
		pr_debug(verbose, 1, "Using CPUID %s", cpu_cache.cpuid);
	return cpu_cache.cpuid;
}

/* 0 when pattern matches a prefix of id of len bytes: regexec is not anchored, perf neither */
static int match_len(const char *pattern, const char *id, size_t len)
{
	regmatch_t m[1];
	regex_t re;
	int nomatch;

	if (regcomp(&re, pattern, REG_EXTENDED)) {
		pr_err("Invalid regular expression %s", pattern);
		return 1;
	}
	nomatch = regexec(&re, id, 1, m, 0);
	regfree(&re);
	return nomatch || (size_t)(m[0].rm_eo - m[0].rm_so) != len;
}

/* x86 ids are vendor-family-model-stepping: exactly three dashes */
static bool x86_id_is_full(const char *id)
{
	int dashes = 0;

	for (; *id; id++)
		dashes += *id == '-';
	return dashes == 3;
}

int pmu_cpuid_match_x86(const char *pattern, const char *id)
{
	bool full_pattern = x86_id_is_full(pattern), full_id = x86_id_is_full(id);

	if (full_pattern && !full_id)
		return PMU_CPUID_NEEDS_FULL;
	/* a pattern without a stepping matches any: the id's stepping is left out */
	return match_len(pattern, id, full_id && !full_pattern ? (size_t)(strrchr(id, '-') - id) :
					      strlen(id));
}

int pmu_cpuid_match_generic(const char *pattern, const char *id)
{
	return match_len(pattern, id, strlen(id));
}

const struct pmu_table *pmu_table_for_cpuid(const char *cpuid)
{
	bool needs_full = false;
	const char *pattern;
	int nomatch;

	for (size_t i = 0; i < pmu_tables_map_size(); i++) {
		const struct pmu_table *t = pmu_tables_map_row(i, NULL, &pattern);

#ifdef PMU_CPUID_X86
		nomatch = pmu_cpuid_match_x86(pattern, cpuid);
#else
		nomatch = pmu_cpuid_match_generic(pattern, cpuid);
#endif
		if (!nomatch)
			return t;
		needs_full |= nomatch == PMU_CPUID_NEEDS_FULL;
	}
	/* perf says so for every row that names a stepping, and again for every PMU: once is enough */
	if (needs_full)
		pr_err("Invalid CPUID %s. Full CPUID is required, %s", cpuid,
		       "vendor-family-model-stepping");
	return NULL;
}

const struct pmu_table *pmu_table_for_cpu(int verbose)
{
	const char *cpuid;

	if (cpu_cache.table_done)
		return cpu_cache.table;
	cpu_cache.table_done = true;
	cpuid = pmu_cpuid(verbose);
	cpu_cache.table = cpuid ? pmu_table_for_cpuid(cpuid) : NULL;
	return cpu_cache.table;
}
