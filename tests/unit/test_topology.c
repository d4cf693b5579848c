// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topology from a fake sysfs tree: a 2-socket machine with 2 dies per socket, 2 cores per die
 * and 2 threads per core (16 CPUs, sockets interleaved in the CPU numbering as many 2-socket
 * BIOSes do, NUMA node = socket). The aggregates of --per-socket, --per-die, --per-core and
 * --per-node over all 16 CPUs, with their CPU counts, are written from perf-stat(1)'s rules:
 * one aggregate per socket / (socket, die) / (socket, die, core) / node, sorted by those ids.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "metrics/aggregate.h"
#include "metrics/topology.h"

#define NR_CPUS 16

static void write_file(const char *root, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	char *cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
	FILE *f;

	if (system(cmd))
		exit(1);
	f = fopen(path, "w");
	if (!f)
		exit(1);
	fputs(text, f);
	fclose(f);
	free(cmd);
	free(path);
}

/* cpuN: socket N%2, die N/2%2, core N/4%2, thread N/8; node = socket */
static void make_tree(const char *root)
{
	char rel[128], val[32];
	int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/physical_package_id",
			 cpu);
		snprintf(val, sizeof(val), "%d\n", cpu % 2);
		write_file(root, rel, val);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/die_id", cpu);
		snprintf(val, sizeof(val), "%d\n", cpu / 2 % 2);
		write_file(root, rel, val);
		snprintf(rel, sizeof(rel), "devices/system/cpu/cpu%d/topology/core_id", cpu);
		snprintf(val, sizeof(val), "%d\n", cpu / 4 % 2);
		write_file(root, rel, val);
	}
	write_file(root, "devices/system/node/node0/cpulist", "0,2,4,6,8,10,12,14\n");
	write_file(root, "devices/system/node/node1/cpulist", "1,3,5,7,9,11,13,15\n");
	write_file(root, "devices/system/node/online", "0-1\n");
}

/* "label nr_cpus;" per aggregate, in perf's layout of the label */
static char *describe(enum aggr_mode mode, const struct cpu_topology *topo)
{
	int cpus[NR_CPUS], *cpu_aggr, nr, i, a;
	struct cpu_map map = { .nr = NR_CPUS, .cpus = cpus };
	struct aggr_id *ids;
	char *out = xstrdup(""), *next;

	for (i = 0; i < NR_CPUS; i++)
		cpus[i] = i;
	nr = aggr_ids_build_topology(mode, &map, topo, &ids, &cpu_aggr);
	for (a = 0; a < nr; a++) {
		int n = 0;

		for (i = 0; i < NR_CPUS; i++)
			n += cpu_aggr[i] == a;
		if (mode == AGGR_NODE)
			next = xasprintf("%sN%d %d;", out, ids[a].node, n);
		else if (mode == AGGR_SOCKET)
			next = xasprintf("%sS%d %d;", out, ids[a].socket, n);
		else if (mode == AGGR_DIE)
			next = xasprintf("%sS%d-D%d %d;", out, ids[a].socket, ids[a].die, n);
		else
			next = xasprintf("%sS%d-D%d-C%d %d;", out, ids[a].socket, ids[a].die,
					 ids[a].core, n);
		free(out);
		out = next;
	}
	free(ids);
	free(cpu_aggr);
	return out;
}

static void check_mode(const char *name, enum aggr_mode mode, const struct cpu_topology *topo,
		       const char *expected)
{
	char *got = describe(mode, topo);

	CHECK_STR(name, expected, got);
	free(got);
}

int main(void)
{
	char root[] = "/tmp/bperf-test-topology-XXXXXX";
	struct cpu_topology topo;
	char *cmd;

	if (!mkdtemp(root))
		return 1;
	make_tree(root);
	cpu_topology_read(&topo, root, NR_CPUS);

	check_mode("per-socket", AGGR_SOCKET, &topo, "S0 8;S1 8;");
	check_mode("per-die", AGGR_DIE, &topo, "S0-D0 4;S0-D1 4;S1-D0 4;S1-D1 4;");
	check_mode("per-core", AGGR_CORE, &topo,
		   "S0-D0-C0 2;S0-D0-C1 2;S0-D1-C0 2;S0-D1-C1 2;"
		   "S1-D0-C0 2;S1-D0-C1 2;S1-D1-C0 2;S1-D1-C1 2;");
	check_mode("per-node", AGGR_NODE, &topo, "N0 8;N1 8;");
	/* CPUs the tree does not describe have unknown (-1) ids */
	cpu_topology_free(&topo);
	cpu_topology_read(&topo, root, NR_CPUS + 2);
	CHECK_EQ("undescribed CPU: socket", -1, topo.socket[NR_CPUS]);
	CHECK_EQ("undescribed CPU: node", -1, topo.node[NR_CPUS + 1]);
	cpu_topology_free(&topo);

	cmd = xasprintf("rm -rf '%s'", root);
	CHECK_EQ("removing the fake tree", 0, system(cmd));
	free(cmd);
	return check_exit("test_topology");
}
