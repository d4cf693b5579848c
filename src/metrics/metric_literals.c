// SPDX-License-Identifier: GPL-2.0-only
/*
 * The machine's metric literals as perf 6.1 reads them: util/expr.c (expr__get_literal),
 * util/cputopo.c (distinct *_cpus_list strings of the online CPUs), util/smt.c and
 * arch/x86/util/tsc.c. perf's messages are kept (with a newline, which perf forgets).
 */
#include "metric_literals.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "../util/common.h"
#include "../util/target.h"
#include "topology.h"

enum { LIST_PACKAGE, LIST_DIE, LIST_CORE };

int metric_literal_from_name(const char *name)
{
	static const struct {
		const char *name;
		bool any_case;
	} names[METRIC_LIT__NR] = {
		[METRIC_LIT_NUM_CPUS] = { "#num_cpus", false },
		[METRIC_LIT_SYSTEM_TSC_FREQ] = { "#system_tsc_freq", true },
		[METRIC_LIT_SMT_ON] = { "#smt_on", true },
		[METRIC_LIT_CORE_WIDE] = { "#core_wide", false },
		[METRIC_LIT_NUM_PACKAGES] = { "#num_packages", false },
		[METRIC_LIT_NUM_DIES] = { "#num_dies", false },
		[METRIC_LIT_NUM_CORES] = { "#num_cores", false },
	};

	for (int i = 0; i < METRIC_LIT__NR; i++)
		if (names[i].any_case ? !strcasecmp(name, names[i].name) :
					!strcmp(name, names[i].name))
			return i;
	return -ENOENT;
}

bool metric_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int regs[4])
{
#if defined(__x86_64__) || defined(__i386__)
	__cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
	return true;
#else
	return false;
#endif
}

static char *sys_path(const struct metric_sys_literals *lit, const char *rel)
{
	return xasprintf("%s/%s", lit->sysfs_root, rel);
}

/* cpu__max_present_cpu(): the highest CPU of the present list + 1, 4096 if unreadable */
static int max_present_cpu(struct metric_sys_literals *lit)
{
	char *path, buf[4096];
	struct cpu_map map = { 0 };

	if (lit->max_cpu)
		return lit->max_cpu;
	path = sys_path(lit, "devices/system/cpu/present");
	lit->max_cpu = 4096;
	if (!read_text_file(path, buf, sizeof(buf)) && !cpu_map_parse(&map, buf))
		lit->max_cpu = map.cpus[map.nr - 1] + 1;
	else
		pr_err("Failed to read max cpus, using default of %d", lit->max_cpu);
	cpu_map_free(&map);
	free(path);
	return lit->max_cpu;
}

/* A topology file of cpu, or the older name where the newer is missing (perf's order). */
static int read_list(const struct metric_sys_literals *lit, int cpu, const char *name,
		     const char *old_name, char *buf, size_t size)
{
	char *path = xasprintf("%s/devices/system/cpu/cpu%d/topology/%s", lit->sysfs_root, cpu,
			       name);
	int err;

	if (old_name && access(path, F_OK)) {
		free(path);
		path = xasprintf("%s/devices/system/cpu/cpu%d/topology/%s", lit->sysfs_root, cpu,
				 old_name);
	}
	err = read_text_file(path, buf, size);
	free(path);
	return err;
}

static void add_distinct(struct metric_sys_literals *lit, int kind, const char *s)
{
	for (int i = 0; i < lit->nr_lists[kind]; i++)
		if (!strcmp(lit->lists[kind][i], s))
			return;
	lit->lists[kind] = xgrow(lit->lists[kind], lit->nr_lists[kind], sizeof(char *));
	lit->lists[kind][lit->nr_lists[kind]++] = xstrdup(s);
}

/* cpu_topology__new(): the distinct lists of the online CPUs below the present maximum */
static int read_topology(struct metric_sys_literals *lit)
{
	char *path = sys_path(lit, "devices/system/cpu/online"), buf[4096];
	struct cpu_map online = { 0 };
	int max = max_present_cpu(lit), err = -ENOENT, i;

	if (read_text_file(path, buf, sizeof(buf)) || cpu_map_parse(&online, buf)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		snprintf(buf, sizeof(buf), "0-%ld", n > 0 ? n - 1 : 0);
		cpu_map_parse(&online, buf);
	}
	free(path);
	for (i = 0; i < online.nr && online.cpus[i] < max; i++) {
		int cpu = online.cpus[i];
		bool any = false;

		if (!read_list(lit, cpu, "package_cpus_list", "core_siblings_list", buf,
			       sizeof(buf))) {
			add_distinct(lit, LIST_PACKAGE, buf);
			any = true;
		}
		if (lit->dies && !read_list(lit, cpu, "die_cpus_list", NULL, buf, sizeof(buf))) {
			add_distinct(lit, LIST_DIE, buf);
			any = true;
		}
		if (!read_list(lit, cpu, "core_cpus_list", "thread_siblings_list", buf,
			       sizeof(buf))) {
			add_distinct(lit, LIST_CORE, buf);
			any = true;
		}
		err = any ? 0 : -ENOENT;
		if (err)
			break;
	}
	cpu_map_free(&online);
	return err;
}

/* smt_on(): smt/active when the kernel has it, else a core list naming several CPUs */
static bool smt_on(struct metric_sys_literals *lit)
{
	char *path, buf[64];

	if (lit->smt_on >= 0)
		return lit->smt_on;
	path = sys_path(lit, "devices/system/cpu/smt/active");
	if (!read_text_file(path, buf, sizeof(buf))) {
		lit->smt_on = atoi(buf) == 1;
	} else {
		lit->smt_on = 0;
		for (int i = 0; i < lit->nr_lists[LIST_CORE]; i++)
			if (strpbrk(lit->lists[LIST_CORE][i], ",-"))
				lit->smt_on = 1;
	}
	free(path);
	return lit->smt_on;
}

/* Each core's CPUs all in the -C list or none of them (cpu_topology__core_wide()). */
static bool cores_whole(const struct metric_sys_literals *lit)
{
	struct cpu_map user = { 0 };
	bool whole = true;

	if (!lit->cpu_list)
		return true;
	cpu_map_parse(&user, lit->cpu_list);
	for (int i = 0; i < lit->nr_lists[LIST_CORE] && whole; i++) {
		struct cpu_map core = { 0 };
		bool first_in = false;

		cpu_map_parse(&core, lit->lists[LIST_CORE][i]);
		for (int c = 0; c < core.nr && whole; c++) {
			bool in = false;

			for (int u = 0; u < user.nr; u++)
				in |= user.cpus[u] == core.cpus[c];
			if (c == 0)
				first_in = in;
			else if (in != first_in)
				whole = false;
		}
		cpu_map_free(&core);
	}
	cpu_map_free(&user);
	return whole;
}

/* The GHz of the first "model name ... @ x.xxGHz" line; 0 after perf's message when none. */
static double cpuinfo_tsc_freq(const struct metric_sys_literals *lit)
{
	FILE *f = fopen(lit->cpuinfo, "r");
	char *line = NULL;
	size_t len = 0;
	double ghz = 0;

	if (!f) {
		pr_err("Failed to read /proc/cpuinfo for TSC frequency");
		return NAN;
	}
	while (getline(&line, &len, f) > 0) {
		char *at;

		if (strncmp(line, "model name", 10))
			continue;
		at = strstr(line + 11, " @ ");
		if (at && sscanf(at, " @ %lfGHz", &ghz) == 1) {
			ghz *= 1e9;
			break;
		}
	}
	if (ghz == 0)
		pr_err("Failed to find TSC frequency in /proc/cpuinfo");
	free(line);
	fclose(f);
	return ghz;
}

/* arch_get_tsc_freq(): 0 but on Intel, there CPUID 0x15's ratio or the model name's GHz */
static double tsc_freq(struct metric_sys_literals *lit)
{
	unsigned int r[4];
	char vendor[13];

	if (lit->tsc_read)
		return lit->tsc;
	lit->tsc_read = true;
	lit->tsc = 0;
	if (!lit->cpuid || !lit->cpuid(0, 0, r))
		return 0;
	memcpy(vendor, &r[1], 4);
	memcpy(vendor + 4, &r[3], 4);
	memcpy(vendor + 8, &r[2], 4);
	vendor[12] = '\0';
	if (!strstr(vendor, "Intel"))
		return 0;
	if (r[0] < 0x15 || !lit->cpuid(0x15, 0, r) || !r[0] || !r[1] || !r[2])
		lit->tsc = cpuinfo_tsc_freq(lit);
	else
		lit->tsc = (double)r[2] * (double)r[1] / (double)r[0];
	return lit->tsc;
}

static int sys_value(struct metric_literals *base, enum metric_literal which, double *value)
{
	struct metric_sys_literals *lit = (struct metric_sys_literals *)base;

	switch (which) {
	case METRIC_LIT_NUM_CPUS:
		*value = max_present_cpu(lit);
		return 0;
	case METRIC_LIT_SYSTEM_TSC_FREQ:
		*value = tsc_freq(lit);
		return isnan(*value) ? -EIO : 0;
	default:
		break;
	}
	if (!lit->topo_read) {
		lit->topo_read = true;
		lit->topo_err = read_topology(lit);
	}
	if (lit->topo_err) {
		pr_err("Error creating CPU topology");
		return lit->topo_err;
	}
	switch (which) {
	case METRIC_LIT_SMT_ON:
		*value = smt_on(lit);
		break;
	case METRIC_LIT_CORE_WIDE:
		*value = lit->system_wide && (!smt_on(lit) || cores_whole(lit));
		break;
	case METRIC_LIT_NUM_PACKAGES:
		*value = lit->nr_lists[LIST_PACKAGE];
		break;
	case METRIC_LIT_NUM_DIES:
		*value = lit->nr_lists[LIST_DIE];
		break;
	default:
		*value = lit->nr_lists[LIST_CORE];
		break;
	}
	return 0;
}

void metric_sys_literals_init(struct metric_sys_literals *lit, bool system_wide,
			      const char *cpu_list)
{
	char *path;

	memset(lit, 0, sizeof(*lit));
	lit->base.value = sys_value;
	lit->system_wide = system_wide;
	lit->cpu_list = cpu_list;
	lit->sysfs_root = topology_sysfs_root();
	lit->cpuinfo = "/proc/cpuinfo";
	lit->cpuid = metric_cpuid;
	lit->smt_on = -1;
#if defined(__x86_64__) || defined(__s390x__)
	path = xasprintf("%s/devices/system/cpu/cpu0/topology/die_cpus_list", lit->sysfs_root);
	lit->dies = !access(path, F_OK);
	free(path);
#else
	(void)path;
#endif
}

void metric_sys_literals_free(struct metric_sys_literals *lit)
{
	for (int k = 0; k < 3; k++) {
		for (int i = 0; i < lit->nr_lists[k]; i++)
			free(lit->lists[k][i]);
		free(lit->lists[k]);
		lit->lists[k] = NULL;
		lit->nr_lists[k] = 0;
	}
	lit->topo_read = false;
	lit->max_cpu = 0;
}
