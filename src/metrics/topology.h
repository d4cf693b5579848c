/* SPDX-License-Identifier: GPL-2.0-only */
/* CPU topology from sysfs: socket, die, core and NUMA node of each CPU. */
#ifndef BPERF_TOPOLOGY_H
#define BPERF_TOPOLOGY_H

#include "aggregate.h"

/*
 * The sysfs root to read topology and PMUs from: $BPERF_SYSFS_ROOT (for tests only: a fake
 * tree describing another machine) or "/sys".
 */
const char *topology_sysfs_root(void);

/*
 * Fills topo for CPUs 0..nr_cpus-1 from <sysfs_root>/devices/system/cpu/cpuN/topology and
 * <sysfs_root>/devices/system/node/nodeN/cpulist; ids that cannot be read are -1, but for a
 * missing die_id, which is 0 (perf's one die per socket where the kernel has no dies).
 */
void cpu_topology_read(struct cpu_topology *topo, const char *sysfs_root, int nr_cpus);
void cpu_topology_free(struct cpu_topology *topo);

#endif
