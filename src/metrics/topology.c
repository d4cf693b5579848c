// SPDX-License-Identifier: GPL-2.0-only
#include "topology.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/target.h"

const char *topology_sysfs_root(void)
{
	const char *root = getenv("BPERF_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

static int read_cpu_id(const char *root, int cpu, const char *name)
{
	char *path = xasprintf("%s/devices/system/cpu/cpu%d/topology/%s", root, cpu, name);
	char buf[64];
	int err = read_text_file(path, buf, sizeof(buf));

	free(path);
	return err ? -1 : atoi(buf);
}

static int *ids_alloc(int nr)
{
	int *ids = xzalloc((nr + 1) * sizeof(*ids));

	memset(ids, 0xff, (nr + 1) * sizeof(*ids));	/* all -1: unknown */
	return ids;
}

/* nodeN/cpulist for every nodeN directory: a CPU listed there belongs to node N. */
static void read_nodes(int *node, const char *root, int nr_cpus)
{
	char *dir_path = xasprintf("%s/devices/system/node", root);
	DIR *dir = opendir(dir_path);
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		struct cpu_map cpus = { 0 };
		char buf[4096], *path;
		int n, i;

		if (strncmp(de->d_name, "node", 4) || sscanf(de->d_name + 4, "%d", &n) != 1)
			continue;
		path = xasprintf("%s/%s/cpulist", dir_path, de->d_name);
		if (!read_text_file(path, buf, sizeof(buf)) && !cpu_map_parse(&cpus, buf)) {
			for (i = 0; i < cpus.nr; i++)
				if (cpus.cpus[i] >= 0 && cpus.cpus[i] < nr_cpus)
					node[cpus.cpus[i]] = n;
			cpu_map_free(&cpus);
		}
		free(path);
	}
	if (dir)
		closedir(dir);
	free(dir_path);
}

void cpu_topology_read(struct cpu_topology *topo, const char *sysfs_root, int nr_cpus)
{
	int *socket = ids_alloc(nr_cpus), *die = ids_alloc(nr_cpus);
	int *core = ids_alloc(nr_cpus), *node = ids_alloc(nr_cpus);
	int cpu;

	for (cpu = 0; cpu < nr_cpus; cpu++) {
		socket[cpu] = read_cpu_id(sysfs_root, cpu, "physical_package_id");
		die[cpu] = read_cpu_id(sysfs_root, cpu, "die_id");
		/* no die_id (arm64, older kernels): one die per socket, S0-D0 as perf prints it */
		if (die[cpu] < 0)
			die[cpu] = 0;
		core[cpu] = read_cpu_id(sysfs_root, cpu, "core_id");
	}
	read_nodes(node, sysfs_root, nr_cpus);
	topo->nr = nr_cpus;
	topo->socket = socket;
	topo->die = die;
	topo->core = core;
	topo->node = node;
}

void cpu_topology_free(struct cpu_topology *topo)
{
	free((void *)topo->socket);
	free((void *)topo->die);
	free((void *)topo->core);
	free((void *)topo->node);
	memset(topo, 0, sizeof(*topo));
}
