// SPDX-License-Identifier: GPL-2.0-only
/* bperf check: the kernel, the CPU, perf's table for it and the PMUs (check.h). */
#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "events/pmu_tables.h"

#define PMU_DEVICES "/sys/bus/event_source/devices"
/* PERF_TYPE_RAW: the type of x86's core PMU "cpu" (arm64's have dynamic types) */
#define CORE_PMU_TYPE 4

/* The value of the first "key<spaces>: value" line of /proc/cpuinfo, or "?" */
static void cpuinfo_field(const char *key, char *buf, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	size_t klen = strlen(key);
	char line[256];

	snprintf(buf, size, "?");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon || strncmp(line, key, klen) || !strchr(" \t", line[klen]))
			continue;
		snprintf(buf, size, "%s", colon + 1 + (colon[1] == ' '));
		buf[strcspn(buf, "\n")] = '\0';
		break;
	}
	fclose(f);
}

static void check_cpu(struct check_report *r)
{
	char vendor[64], family[16], model[16], stepping[16], midr[32];

	if (!read_text_file("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr,
			    sizeof(midr))) {
		uint64_t v = strtoull(midr, NULL, 16);

		check_add(r, "cpu", CHECK_INFO, "MIDR %s: implementer %#" PRIx64 ", part %#" PRIx64
			  ", variant %" PRIu64 ", revision %" PRIu64, midr, (v >> 24) & 0xff,
			  (v >> 4) & 0xfff, (v >> 20) & 0xf, v & 0xf);
		return;
	}
	cpuinfo_field("vendor_id", vendor, sizeof(vendor));
	cpuinfo_field("cpu family", family, sizeof(family));
	cpuinfo_field("model", model, sizeof(model));
	cpuinfo_field("stepping", stepping, sizeof(stepping));
	check_add(r, "cpu", CHECK_INFO, "%s family %s model %s (%#lx) stepping %s", vendor, family,
		  model, strtoul(model, NULL, 10), stepping);
}

static void check_perf_table(struct check_report *r)
{
	const char *cpuid = pmu_cpuid(0);
	const struct pmu_table *table = cpuid ? pmu_table_for_cpuid(cpuid) : NULL;

	if (!cpuid)
		check_add(r, "perf-table", CHECK_INFO, "none: no CPU id");
	else if (!table)
		check_add(r, "perf-table", CHECK_INFO,
			  "none for %s: only generic and sysfs events, no vendor metrics", cpuid);
	else
		check_add(r, "perf-table", CHECK_INFO, "%s for %s%s", pmu_table_name(table), cpuid,
			  getenv("PERF_CPUID") ? " ($PERF_CPUID)" : "");
}

/*
 * Whether the PMU is a core PMU: of type 4, or with a cpus file (arm64's armv8_pmuv3_*, hybrid
 * x86's cpu_core and cpu_atom), as perf tells them.
 */
static bool is_core_pmu(const char *name, int type)
{
	char path[512];

	snprintf(path, sizeof(path), PMU_DEVICES "/%s/cpus", name);
	return type == CORE_PMU_TYPE || !access(path, F_OK);
}

/* The PMUs as "name(type)" in sysfs order, and the first core PMU, if any. */
static void check_pmus(struct check_report *r)
{
	DIR *dir = opendir(PMU_DEVICES);
	struct dirent *de;
	char *list = xstrdup(""), *core = NULL;

	while (dir && (de = readdir(dir))) {
		char path[512], type[16], *grown;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PMU_DEVICES "/%s/type", de->d_name);
		if (read_text_file(path, type, sizeof(type)))
			continue;
		grown = xasprintf("%s%s%s(%s)", list, *list ? " " : "", de->d_name, type);
		free(list);
		list = grown;
		if (!core && is_core_pmu(de->d_name, atoi(type)))
			core = xstrdup(de->d_name);
	}
	if (dir)
		closedir(dir);
	check_add(r, "pmus", CHECK_INFO, "%s", *list ? list : "none");
	if (core)
		check_add(r, "core-pmu", CHECK_INFO, "%s", core);
	else
		check_add(r, "core-pmu", CHECK_WARN,
			  "none: hardware events are <not supported>, software events only");
	free(list);
	free(core);
}

void check_system(struct check_ctx *ctx)
{
	struct utsname u;

	if (!uname(&u))
		check_add(&ctx->report, "kernel", CHECK_INFO, "%s %s %s (%s)", u.sysname, u.release,
			  u.machine, u.version);
	check_cpu(&ctx->report);
	check_perf_table(&ctx->report);
	check_pmus(&ctx->report);
}
