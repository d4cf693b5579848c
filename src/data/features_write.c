// SPDX-License-Identifier: GPL-2.0-only
/*
 * The feature sections `perf stat record` writes, built from /proc and /sys as perf 6.1's
 * header.c builds them. A feature whose source cannot be read is dropped, as perf drops it.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/target.h"
#include "swap.h"
#include "writer.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"
#define MAX_CPUS 4096

/* The value of the first "key : value" line of /proc/cpuinfo, blanks squeezed. */
static bool cpuinfo_value(const char *key, char *out, size_t size)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *src, *dst;

		if (!colon || strncmp(line, key, strlen(key)) ||
		    (line[strlen(key)] != '\t' && line[strlen(key)] != ' '))
			continue;
		src = colon + 1;
		while (*src == ' ')
			src++;
		for (dst = out; *src && *src != '\n' && dst < out + size - 1; src++) {
			if (isspace((unsigned char)*src) && dst > out && dst[-1] == ' ')
				continue;
			*dst++ = isspace((unsigned char)*src) ? ' ' : *src;
		}
		*dst = '\0';
		found = true;
	}
	fclose(f);
	return found;
}

static __u64 meminfo_kb(const char *path, const char *key)
{
	FILE *f = fopen(path, "r");
	char line[256];
	__u64 v = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, key);

		if (p) {
			v = strtoull(p + strlen(key), NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int read_int_file(const char *path, int dflt)
{
	char buf[64];

	if (read_text_file(path, buf, sizeof(buf)))
		return dflt;
	return atoi(buf);
}

/* Highest CPU number in a sysfs list such as "0-3,7", plus one. */
static int cpu_list_end(const char *path)
{
	struct cpu_map map;
	int end;

	if (cpu_map_read(&map, path))
		return 0;
	end = map.cpus[map.nr - 1] + 1;
	cpu_map_free(&map);
	return end;
}

/* The ids listed in a sysfs "online" file ("0-1,3" style), at most max of them. */
static int read_online_list(const char *path, int *ids, int max)
{
	int nr = cpu_list_read_ids(path, ids, max);

	return nr > 0 ? nr : 0;
}

static int online_cpus(int *cpus, int max)
{
	return read_online_list(SYS_CPU "/online", cpus, max);
}

static void put_unique_strings(struct byte_buf *b, char **list, int nr)
{
	int i, j, n = 0;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < i && (!list[i] || !list[j] || strcmp(list[i], list[j])); j++)
			;
		if (list[i] && j == i)
			n++;
	}
	buf_put_u32(b, n);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < i && (!list[i] || !list[j] || strcmp(list[i], list[j])); j++)
			;
		if (list[i] && j == i)
			buf_put_string(b, list[i]);
	}
}

static char *topology_string(int cpu, const char *name, const char *fallback)
{
	char path[256], buf[4096];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	if (read_text_file(path, buf, sizeof(buf))) {
		snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, fallback);
		if (read_text_file(path, buf, sizeof(buf)))
			return NULL;
	}
	return xstrdup(buf);
}

static int topology_id(int cpu, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/topology/%s", cpu, name);
	return read_int_file(path, -1);
}

static bool write_cpu_topology(struct byte_buf *b)
{
	int cpus[MAX_CPUS], nr = online_cpus(cpus, MAX_CPUS);
	int avail = cpu_list_end(SYS_CPU "/present");
	char **pkg = xzalloc(nr * sizeof(char *)), **thr = xzalloc(nr * sizeof(char *));
	char **die = xzalloc(nr * sizeof(char *));
	int i;

	for (i = 0; i < nr; i++) {
		pkg[i] = topology_string(cpus[i], "package_cpus_list", "core_siblings_list");
		thr[i] = topology_string(cpus[i], "core_cpus_list", "thread_siblings_list");
		die[i] = topology_string(cpus[i], "die_cpus_list", "package_cpus_list");
	}
	put_unique_strings(b, pkg, nr);
	put_unique_strings(b, thr, nr);
	for (i = 0; i < avail; i++) {
		buf_put_u32(b, (__u32)topology_id(i, "core_id"));
		buf_put_u32(b, (__u32)topology_id(i, "physical_package_id"));
	}
	put_unique_strings(b, die, nr);
	for (i = 0; i < avail; i++) {
		int id = topology_id(i, "die_id");

		buf_put_u32(b, (__u32)(id < 0 ? 0 : id));
	}
	for (i = 0; i < nr; i++) {
		free(pkg[i]);
		free(thr[i]);
		free(die[i]);
	}
	free(pkg);
	free(thr);
	free(die);
	return nr > 0;
}

/* Nodes listed in SYS_NODE/online. */
static int online_nodes(int *nodes, int max)
{
	return read_online_list(SYS_NODE "/online", nodes, max);
}

static bool write_numa_topology(struct byte_buf *b)
{
	int nodes[1024], nr = online_nodes(nodes, 1024), i;

	if (!nr)
		return false;
	buf_put_u32(b, nr);
	for (i = 0; i < nr; i++) {
		char path[256], cpus[4096] = "";

		snprintf(path, sizeof(path), SYS_NODE "/node%d/meminfo", nodes[i]);
		buf_put_u32(b, nodes[i]);
		buf_put_u64(b, meminfo_kb(path, "MemTotal:"));
		buf_put_u64(b, meminfo_kb(path, "MemFree:"));
		snprintf(path, sizeof(path), SYS_NODE "/node%d/cpulist", nodes[i]);
		read_text_file(path, cpus, sizeof(cpus));
		buf_put_string(b, cpus);
	}
	return true;
}

static bool write_pmu_mappings(struct byte_buf *b)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct byte_buf body = { .swap = b->swap };
	struct dirent *de;
	int nr = 0;

	if (!d)
		return false;
	while ((de = readdir(d))) {
		char path[512];
		int type;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", de->d_name);
		type = read_int_file(path, -1);
		if (type < 0)
			continue;
		buf_put_u32(&body, type);
		buf_put_string(&body, de->d_name);
		nr++;
	}
	closedir(d);
	buf_put_u32(b, nr);
	buf_put(b, body.data ? body.data : "", body.len);
	buf_free(&body);
	return true;
}

struct cache_level {
	__u32 level, line_size, sets, ways;
	char type[64], size[64], map[256];
};

static bool read_cache(int cpu, int idx, struct cache_level *c)
{
	char dir[128], path[192];

	snprintf(dir, sizeof(dir), SYS_CPU "/cpu%d/cache/index%d", cpu, idx);
#define CACHE_FILE(name) (snprintf(path, sizeof(path), "%s/%s", dir, name), path)
	if (access(dir, F_OK))
		return false;
	c->level = read_int_file(CACHE_FILE("level"), 0);
	c->line_size = read_int_file(CACHE_FILE("coherency_line_size"), 0);
	c->sets = read_int_file(CACHE_FILE("number_of_sets"), 0);
	c->ways = read_int_file(CACHE_FILE("ways_of_associativity"), 0);
	if (read_text_file(CACHE_FILE("type"), c->type, sizeof(c->type)) ||
	    read_text_file(CACHE_FILE("size"), c->size, sizeof(c->size)) ||
	    read_text_file(CACHE_FILE("shared_cpu_list"), c->map, sizeof(c->map)))
		return false;
#undef CACHE_FILE
	return true;
}

static bool write_cache(struct byte_buf *b)
{
	int cpus[MAX_CPUS], nr = online_cpus(cpus, MAX_CPUS), cnt = 0, i, idx, k;
	struct cache_level *caches = NULL, c;

	for (i = 0; i < nr; i++) {
		for (idx = 0; idx < 16; idx++) {
			memset(&c, 0, sizeof(c));
			if (!read_cache(cpus[i], idx, &c))
				break;
			for (k = 0; k < cnt && memcmp(&caches[k], &c, sizeof(c)); k++)
				;
			if (k < cnt)
				continue;
			caches = xrealloc(caches, (cnt + 1) * sizeof(*caches));
			caches[cnt++] = c;
		}
	}
	/*
	 * By level, in the order found within a level, as perf lists them. Without cache folders in
	 * sysfs (some VMs) perf still writes the section, with no levels.
	 */
	for (i = 1; i < cnt; i++) {
		c = caches[i];
		for (k = i; k > 0 && caches[k - 1].level > c.level; k--)
			caches[k] = caches[k - 1];
		caches[k] = c;
	}
	buf_put_u32(b, 1);
	buf_put_u32(b, cnt);
	for (i = 0; i < cnt; i++) {
		buf_put_u32(b, caches[i].level);
		buf_put_u32(b, caches[i].line_size);
		buf_put_u32(b, caches[i].sets);
		buf_put_u32(b, caches[i].ways);
		buf_put_string(b, caches[i].type);
		buf_put_string(b, caches[i].size);
		buf_put_string(b, caches[i].map);
	}
	free(caches);
	return true;
}

/* Memory blocks per node: a bitmap of block numbers, as perf's memory_node__read(). */
static bool write_mem_topology(struct byte_buf *b)
{
	char buf[64];
	int nodes[1024], nr = online_nodes(nodes, 1024), i;
	__u64 block_size;

	if (!nr || read_text_file("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)))
		return false;
	block_size = strtoull(buf, NULL, 16);
	buf_put_u64(b, 1);
	buf_put_u64(b, block_size);
	buf_put_u64(b, nr);
	for (i = 0; i < nr; i++) {
		char path[128];
		DIR *d;
		struct dirent *de;
		__u64 *words = NULL, count = 0, nbits = 0;

		snprintf(path, sizeof(path), SYS_NODE "/node%d", nodes[i]);
		d = opendir(path);
		while (d && (de = readdir(d))) {
			unsigned long idx;
			char *end;

			if (strncmp(de->d_name, "memory", 6) ||
			    !isdigit((unsigned char)de->d_name[6]))
				continue;
			idx = strtoul(de->d_name + 6, &end, 10);
			if (*end || idx >= (1ul << 24))
				continue;
			if (idx + 1 > nbits) {
				size_t old = (nbits + 63) / 64, now = (idx + 64) / 64;

				words = xrealloc(words, now * sizeof(*words));
				memset(words + old, 0, (now - old) * sizeof(*words));
				nbits = idx + 1;
			}
			words[idx / 64] |= 1ull << (idx % 64);
			count++;
		}
		if (d)
			closedir(d);
		buf_put_u64(b, nodes[i]);
		buf_put_u64(b, count * block_size);
		buf_put_u64(b, nbits);
		for (__u64 w = 0; w < (nbits + 63) / 64; w++)
			buf_put_u64(b, words[w]);
		free(words);
	}
	return true;
}

static bool write_event_desc(struct byte_buf *b, const struct data_features *f)
{
	int i, k;

	buf_put_u32(b, f->nr_events);
	buf_put_u32(b, PERF_FILE_ATTR_SIZE);
	for (i = 0; i < f->nr_events; i++) {
		const struct data_event *e = &f->events[i];
		struct perf_event_attr attr = e->attr;

		attr.size = PERF_FILE_ATTR_SIZE;
		if (b->swap)
			swap_attr(&attr, PERF_FILE_ATTR_SIZE);
		buf_put(b, &attr, PERF_FILE_ATTR_SIZE);
		buf_put_u32(b, e->nr_ids);
		buf_put_string(b, e->name);
		for (k = 0; k < e->nr_ids; k++)
			buf_put_u64(b, e->ids[k]);
	}
	return true;
}

static bool write_group_desc(struct byte_buf *b, const struct data_features *f)
{
	int i, nr = 0;

	for (i = 0; i < f->nr_events; i++)
		nr += f->events[i].leader_idx == i && f->events[i].nr_members > 1;
	buf_put_u32(b, nr);
	for (i = 0; i < f->nr_events; i++) {
		const struct data_event *e = &f->events[i];

		if (e->leader_idx != i || e->nr_members <= 1)
			continue;
		buf_put_string(b, e->group_name ? e->group_name : "{anon_group}");
		buf_put_u32(b, i);
		buf_put_u32(b, e->nr_members);
	}
	return true;
}

static bool write_cmdline(struct byte_buf *b, const struct data_features *f)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i;

	exe[n > 0 ? n : 0] = '\0';
	buf_put_u32(b, f->argc + 1);
	buf_put_string(b, exe);
	for (i = 0; i < f->argc; i++)
		buf_put_string(b, f->argv[i]);
	return true;
}

static bool write_cpuid(struct byte_buf *b)
{
	char vendor[64], family[16], model[16], stepping[16], id[160];

	if (!cpuinfo_value("vendor_id", vendor, sizeof(vendor)) ||
	    !cpuinfo_value("cpu family", family, sizeof(family)) ||
	    !cpuinfo_value("model", model, sizeof(model)) ||
	    !cpuinfo_value("stepping", stepping, sizeof(stepping)))
		return false;
	snprintf(id, sizeof(id), "%s,%s,%s,%s", vendor, family, model, stepping);
	buf_put_string(b, id);
	return true;
}

bool feature_write(struct byte_buf *b, int feat, const struct data_features *f)
{
	struct utsname u;
	char text[256];

	uname(&u);
	switch (feat) {
	case FEAT_HOSTNAME:
		buf_put_string(b, u.nodename);
		return true;
	case FEAT_OSRELEASE:
		buf_put_string(b, u.release);
		return true;
	case FEAT_VERSION:
		buf_put_string(b, f->version);
		return true;
	case FEAT_ARCH:
		buf_put_string(b, u.machine);
		return true;
	case FEAT_NRCPUS: {
		int cpus[MAX_CPUS];

		buf_put_u32(b, cpu_list_end(SYS_CPU "/present"));
		buf_put_u32(b, online_cpus(cpus, MAX_CPUS));
		return true;
	}
	case FEAT_CPUDESC:
		if (!cpuinfo_value("model name", text, sizeof(text)))
			return false;
		buf_put_string(b, text);
		return true;
	case FEAT_CPUID:
		return write_cpuid(b);
	case FEAT_TOTAL_MEM:
		buf_put_u64(b, meminfo_kb("/proc/meminfo", "MemTotal:"));
		return true;
	case FEAT_CMDLINE:
		return write_cmdline(b, f);
	case FEAT_EVENT_DESC:
		return write_event_desc(b, f);
	case FEAT_CPU_TOPOLOGY:
		return write_cpu_topology(b);
	case FEAT_NUMA_TOPOLOGY:
		return write_numa_topology(b);
	case FEAT_PMU_MAPPINGS:
		return write_pmu_mappings(b);
	case FEAT_GROUP_DESC:
		return write_group_desc(b, f);
	case FEAT_STAT:
		return true;	/* an empty marker: the file holds counts */
	case FEAT_CACHE:
		return write_cache(b);
	case FEAT_SAMPLE_TIME:
		buf_put_u64(b, 0);
		buf_put_u64(b, 0);
		return true;
	case FEAT_MEM_TOPOLOGY:
		return write_mem_topology(b);
	case FEAT_CLOCKID:
		buf_put_u64(b, 0);
		return true;
	case FEAT_BPF_PROG_INFO:
	case FEAT_BPF_BTF:
	case FEAT_PMU_CAPS:
		buf_put_u32(b, 0);
		return true;
	case FEAT_COMPRESSED:
		for (int i = 0; i < 5; i++)
			buf_put_u32(b, 0);
		return true;
	case FEAT_CLOCK_DATA:
		buf_put_u32(b, 1);
		buf_put_u32(b, 0);
		buf_put_u64(b, 0);
		buf_put_u64(b, 0);
		return true;
	default:
		return false;	/* build ids, tracing data, aux trace...: not for counts */
	}
}
