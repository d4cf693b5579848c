// SPDX-License-Identifier: GPL-2.0-only
#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "proc.h"

#define MAX_CPU_NUMBER 4096

bool cpu_map_has(const struct cpu_map *map, int cpu)
{
	for (int i = 0; i < map->nr; i++)
		if (map->cpus[i] == cpu)
			return true;
	return false;
}

static void cpu_map_add(struct cpu_map *map, int cpu)
{
	if (cpu_map_has(map, cpu))
		return;
	map->cpus = xrealloc(map->cpus, (map->nr + 1) * sizeof(*map->cpus));
	map->cpus[map->nr++] = cpu;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/*
 * perf's rules: ranges and single CPUs separated by commas, sorted and
 * deduplicated; parsing stops quietly at a word that does not start with a
 * digit after a comma, but a list with no CPU at all is an error.
 */
int cpu_map_parse(struct cpu_map *map, const char *list)
{
	const char *p = list;

	map->nr = 0;
	map->cpus = NULL;
	while (isdigit((unsigned char)*p)) {
		char *end;
		long start = strtol(p, &end, 10), last = start;

		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				goto invalid;
			last = strtol(p, &end, 10);
		}
		if (*end != '\0' && *end != ',')
			goto invalid;
		if (last < start || last >= MAX_CPU_NUMBER)
			goto invalid;
		for (; start <= last; start++)
			cpu_map_add(map, (int)start);
		if (*end == '\0')
			break;
		p = end + 1;
	}
	if (!map->nr)
		goto invalid;
	qsort(map->cpus, map->nr, sizeof(*map->cpus), cmp_int);
	return 0;
invalid:
	cpu_map_free(map);
	return -EINVAL;
}

int cpu_map_read(struct cpu_map *map, const char *path)
{
	char buf[4096];
	int err;

	map->nr = 0;
	map->cpus = NULL;
	err = read_text_file(path, buf, sizeof(buf));
	return err ? err : cpu_map_parse(map, buf);
}

int cpu_map_online(struct cpu_map *map)
{
	return cpu_map_read(map, "/sys/devices/system/cpu/online");
}

int cpu_list_read_ids(const char *path, int *ids, int max)
{
	struct cpu_map map;
	int nr, err = cpu_map_read(&map, path);

	if (err)
		return err;
	nr = map.nr < max ? map.nr : max;
	memcpy(ids, map.cpus, nr * sizeof(*ids));
	cpu_map_free(&map);
	return nr;
}

void cpu_map_any(struct cpu_map *map)
{
	map->nr = 1;
	map->cpus = xzalloc(sizeof(int));
	map->cpus[0] = -1;
}

void cpu_map_free(struct cpu_map *map)
{
	free(map->cpus);
	map->cpus = NULL;
	map->nr = 0;
}

char *cpu_map_to_string(const struct cpu_map *map)
{
	char *s = xzalloc(map->nr * 12 + 1);
	size_t len = 0;
	int i, j;

	for (i = 0; i < map->nr; i = j) {
		for (j = i + 1; j < map->nr && map->cpus[j] == map->cpus[j - 1] + 1; j++)
			;
		len += sprintf(s + len, "%s%d", i ? "," : "", map->cpus[i]);
		if (j - 1 > i)
			len += sprintf(s + len, "-%d", map->cpus[j - 1]);
	}
	return s;
}

static void thread_map_add(struct thread_map *map, pid_t tid)
{
	map->tids = xrealloc(map->tids, (map->nr + 1) * sizeof(*map->tids));
	map->comms = xrealloc(map->comms, (map->nr + 1) * sizeof(*map->comms));
	map->tids[map->nr] = tid;
	map->comms[map->nr][0] = '\0';
	map->nr++;
}

static int cmp_pid(const void *a, const void *b)
{
	return *(const pid_t *)a - *(const pid_t *)b;
}

/* Calls add(map, id) for each number of a comma list; -EINVAL on anything else. */
static int for_each_id(struct thread_map *map, const char *list,
		       int (*add)(struct thread_map *map, pid_t id))
{
	char *copy = xstrdup(list), *tok, *save = NULL;
	int err = 0;

	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long id = strtol(tok, &end, 10);

		if (*end || id <= 0 || id > 0x7fffffff) {
			err = -EINVAL;
			break;
		}
		err = add(map, (pid_t)id);
		if (err)
			break;
	}
	free(copy);
	if (!err && !map->nr)
		err = -EINVAL;
	return err;
}

static int add_one_thread(pid_t tid, void *map)
{
	thread_map_add(map, tid);
	return 0;
}

static int add_process_threads(struct thread_map *map, pid_t pid)
{
	int first = map->nr;

	proc_for_each_thread(pid, add_one_thread, map);
	if (map->nr == first)
		return -ESRCH;
	qsort(map->tids + first, map->nr - first, sizeof(*map->tids), cmp_pid);
	return 0;
}

static int add_thread(struct thread_map *map, pid_t tid)
{
	thread_map_add(map, tid);
	return 0;
}

int thread_map_from_pids(struct thread_map *map, const char *list)
{
	int err = for_each_id(map, list, add_process_threads);

	if (err)
		thread_map_free(map);
	else
		thread_map_read_comms(map);
	return err;
}

int thread_map_from_tids(struct thread_map *map, const char *list)
{
	int err = for_each_id(map, list, add_thread);

	if (err)
		thread_map_free(map);
	else
		thread_map_read_comms(map);
	return err;
}

int thread_map_all(struct thread_map *map)
{
	struct dirent *de;
	DIR *proc;

	proc = opendir("/proc");
	if (!proc)
		return -errno;
	while ((de = readdir(proc))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		/* A process that exits meanwhile simply contributes no thread. */
		add_process_threads(map, (pid_t)atoi(de->d_name));
	}
	closedir(proc);
	if (!map->nr)
		return -ESRCH;
	thread_map_read_comms(map);
	return 0;
}

void thread_map_single(struct thread_map *map, pid_t tid)
{
	thread_map_free(map);
	thread_map_add(map, tid);
}

void thread_map_free(struct thread_map *map)
{
	free(map->tids);
	free(map->comms);
	map->tids = NULL;
	map->comms = NULL;
	map->nr = 0;
}

void thread_map_read_comms(struct thread_map *map)
{
	char path[64];
	int i;

	for (i = 0; i < map->nr; i++) {
		if (map->tids[i] <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", map->tids[i]);
		if (read_text_file(path, map->comms[i], sizeof(map->comms[i])))
			snprintf(map->comms[i], sizeof(map->comms[i]), "%s", "<unknown>");
	}
}

void target_free(struct target *target)
{
	cpu_map_free(&target->cpus);
	thread_map_free(&target->threads);
}
