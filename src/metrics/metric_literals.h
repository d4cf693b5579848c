/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The `#literals` of perf 6.1's metric expressions (util/expr.c: expr__get_literal): facts
 * about the machine and the session that metrics branch on, e.g. `#SMT_on`, `#core_wide`.
 * Expressions ask a struct metric_literals for them: the machine's own (metric_sys_literals)
 * or, in tests, any other values.
 */
#ifndef BPERF_METRIC_LITERALS_H
#define BPERF_METRIC_LITERALS_H

#include <stdbool.h>

enum metric_literal {
	METRIC_LIT_NUM_CPUS,		/* #num_cpus: highest present CPU + 1 */
	METRIC_LIT_SYSTEM_TSC_FREQ,	/* #system_tsc_freq: TSC Hz on Intel, else 0 */
	METRIC_LIT_SMT_ON,		/* #smt_on: 1 if SMT is active */
	METRIC_LIT_CORE_WIDE,		/* #core_wide: every thread of the counted cores counted */
	METRIC_LIT_NUM_PACKAGES,	/* #num_packages */
	METRIC_LIT_NUM_DIES,		/* #num_dies */
	METRIC_LIT_NUM_CORES,		/* #num_cores */
	METRIC_LIT__NR,
};

/*
 * The literal a `#name` token names, with perf's case rules (#smt_on and #system_tsc_freq in
 * any case, the others exactly), or -ENOENT.
 */
int metric_literal_from_name(const char *name);

struct metric_literals {
	/* 0 with *value, or -errno after printing why, as perf does: the expression then fails. */
	int (*value)(struct metric_literals *lit, enum metric_literal which, double *value);
};

/*
 * The machine's literals, read as perf reads them on first use and kept: sysfs topology,
 * smt/active, CPUID leaves 0 and 0x15 and /proc/cpuinfo.
 */
struct metric_sys_literals {
	struct metric_literals base;
	bool system_wide;	/* perf's stat_config.system_wide: -a, or no target and no command */
	const char *cpu_list;	/* -C as typed, or NULL */
	const char *sysfs_root;	/* "/sys" */
	const char *cpuinfo;	/* "/proc/cpuinfo" */
	bool dies;		/* perf reads die_cpus_list on x86_64 and s390x only */
	/* CPUID (leaf, subleaf) into eax, ebx, ecx, edx; false where there is none */
	bool (*cpuid)(unsigned int leaf, unsigned int subleaf, unsigned int regs[4]);

	/* what was read: cached, as perf caches it */
	int max_cpu;		/* highest present CPU + 1; 0 until read */
	bool topo_read;
	int topo_err;
	char **lists[3];	/* distinct package, die and core CPU list strings */
	int nr_lists[3];
	int smt_on;		/* -1 until known */
	bool tsc_read;
	double tsc;
};

/* Sets lit up for this machine (sysfs_root from topology_sysfs_root()). */
void metric_sys_literals_init(struct metric_sys_literals *lit, bool system_wide,
			      const char *cpu_list);
void metric_sys_literals_free(struct metric_sys_literals *lit);

/* The CPU's CPUID on x86; false elsewhere. */
bool metric_cpuid(unsigned int leaf, unsigned int subleaf, unsigned int regs[4]);

#endif
