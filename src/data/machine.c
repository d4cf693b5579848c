// SPDX-License-Identifier: GPL-2.0-only
#include "machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../util/common.h"
#include "sample.h"

#define PID_HASH_SIZE 4096

void data_machine_init(struct data_machine *m)
{
	memset(m, 0, sizeof(*m));
	data_dsos_init(&m->dsos);
	m->hash_size = PID_HASH_SIZE;
	m->by_pid = xzalloc(m->hash_size * sizeof(*m->by_pid));
}

void data_machine_free(struct data_machine *m)
{
	size_t i;

	for (i = 0; i < m->nr_all; i++) {
		free(m->all[i]->maps);
		free(m->all[i]);
	}
	free(m->all);
	free(m->by_pid);
	free(m->tids);
	data_dsos_free(&m->dsos);
	memset(m, 0, sizeof(*m));
}

static struct data_process *lookup(struct data_machine *m, __u32 pid)
{
	struct data_process *p;

	for (p = m->by_pid[pid % m->hash_size]; p; p = p->hash_next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static void unhash(struct data_machine *m, struct data_process *dead)
{
	struct data_process **pp = &m->by_pid[dead->pid % m->hash_size];

	for (; *pp; pp = &(*pp)->hash_next)
		if (*pp == dead) {
			*pp = dead->hash_next;
			return;
		}
}

static struct data_process *new_process(struct data_machine *m, __u32 pid, __u32 ppid)
{
	struct data_process *p = xzalloc(sizeof(*p)), *old = lookup(m, pid);

	/* a pid used again: the old process stays listed, no longer findable */
	if (old)
		unhash(m, old);
	p->pid = pid;
	p->ppid = ppid;
	snprintf(p->comm, sizeof(p->comm), ":%u", pid);
	p->hash_next = m->by_pid[pid % m->hash_size];
	m->by_pid[pid % m->hash_size] = p;
	if (!(m->nr_all & (m->nr_all - 1)))
		m->all = xrealloc(m->all, (m->nr_all ? 2 * m->nr_all : 1) * sizeof(*m->all));
	m->all[m->nr_all++] = p;
	return p;
}

struct data_process *data_machine_process(struct data_machine *m, __u32 pid)
{
	struct data_process *p = lookup(m, pid);

	return p ? p : new_process(m, pid, pid);
}

void data_machine_fork(struct data_machine *m, __u32 pid, __u32 ppid, __u32 tid, __u64 time)
{
	struct data_process *parent, *child;

	if (pid == ppid && lookup(m, pid))
		return;		/* a new thread: it shares the process's maps */
	parent = lookup(m, ppid);
	child = new_process(m, pid, ppid);
	child->start_time = time;
	if (parent) {
		memcpy(child->comm, parent->comm, sizeof(child->comm));
		child->maps = xzalloc((parent->nr_maps + 1) * sizeof(*child->maps));
		/* a parent without maps has none to copy (and maps may be NULL) */
		if (parent->nr_maps)
			memcpy(child->maps, parent->maps, parent->nr_maps * sizeof(*child->maps));
		child->nr_maps = child->cap_maps = parent->nr_maps;
	}
}

void data_machine_exit(struct data_machine *m, __u32 pid, __u32 tid, __u64 time)
{
	struct data_process *p = lookup(m, pid);

	if (p && pid == tid) {
		p->exited = true;
		p->exit_time = time;
	}
}

void data_machine_comm(struct data_machine *m, __u32 pid, __u32 tid, const char *comm)
{
	struct data_process *p = data_machine_process(m, pid);

	/* the process is named after its main thread, as perf's per-process view */
	if (pid == tid || p->comm[0] == ':')
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
	data_machine_thread_seen(m, pid, tid);
}

void data_machine_thread_seen(struct data_machine *m, __u32 pid, __u32 tid)
{
	size_t lo = 0, hi = m->nr_tids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->tids[mid] == tid)
			return;
		if (m->tids[mid] < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (m->nr_tids == m->cap_tids) {
		m->cap_tids = m->cap_tids ? 2 * m->cap_tids : 256;
		m->tids = xrealloc(m->tids, m->cap_tids * sizeof(*m->tids));
	}
	memmove(m->tids + lo + 1, m->tids + lo, (m->nr_tids - lo) * sizeof(*m->tids));
	m->tids[lo] = tid;
	m->nr_tids++;
	data_machine_process(m, pid)->nr_threads++;
}

static void maps_reserve(struct data_process *p, size_t extra)
{
	if (p->nr_maps + extra <= p->cap_maps)
		return;
	p->cap_maps = 2 * (p->nr_maps + extra);
	p->maps = xrealloc(p->maps, p->cap_maps * sizeof(*p->maps));
}

/* Removes [start, end) from p's maps, keeping what sticks out on either side. */
static void maps_punch(struct data_process *p, __u64 start, __u64 end)
{
	size_t i = 0;

	while (i < p->nr_maps) {
		struct data_map *mp = &p->maps[i];

		if (mp->end <= start || mp->start >= end) {
			i++;
			continue;
		}
		if (mp->start < start && mp->end > end) {
			/* the new map splits this one in two */
			maps_reserve(p, 1);
			mp = &p->maps[i];
			memmove(mp + 1, mp, (p->nr_maps - i) * sizeof(*mp));
			p->nr_maps++;
			mp[0].end = start;
			mp[1].pgoff += end - mp[1].start;
			mp[1].start = end;
			return;
		}
		if (mp->start < start) {
			mp->end = start;
			i++;
		} else if (mp->end > end) {
			mp->pgoff += end - mp->start;
			mp->start = end;
			i++;
		} else {
			memmove(mp, mp + 1, (p->nr_maps - i - 1) * sizeof(*mp));
			p->nr_maps--;
		}
	}
}

/*
 * Memory without a file: perf keeps the ip as the address there, and when it is executable
 * (a JIT's code) names it after the JIT's /tmp/perf-PID.map.
 */
static bool is_anon(const char *name, __u32 flags)
{
	return !strcmp(name, "//anon") || !strncmp(name, "/dev/zero", 9) ||
	       !strncmp(name, "/anon_hugepage", 14) || flags & MAP_HUGETLB ||
	       !strncmp(name, "[stack", 6) || !strncmp(name, "/SYSV", 5) ||
	       !strcmp(name, "[heap]");
}

void data_machine_mmap(struct data_machine *m, const struct data_mmap *mm)
{
	struct data_process *p;
	struct data_dso *dso;
	bool anon;
	size_t i;

	/*
	 * The kernel's and its modules' (pid -1): kallsyms places kernel samples, moved by how far
	 * the kernel's _text (the kernel map's pgoff, as perf writes it) lay elsewhere then.
	 */
	if (mm->pid == (__u32)-1) {
		if (!strncmp(mm->filename, "[kernel.kallsyms]", 17))
			m->dsos.kernel_text = mm->pgoff;
		return;
	}
	if (!mm->len || mm->start + mm->len < mm->start)
		return;
	p = data_machine_process(m, mm->pid);
	anon = is_anon(mm->filename, mm->flags);
	/* perf's threads of pid 0 have no namespace to find a map file in */
	if (anon && mm->prot & PROT_EXEC && mm->pid)
		dso = data_dsos_get_jit(&m->dsos, mm->pid);
	else
		dso = data_dsos_get(&m->dsos, mm->filename);
	if (mm->build_id_size && !dso->build_id_size)
		data_dso_set_build_id(dso, mm->build_id, mm->build_id_size);
	maps_punch(p, mm->start, mm->start + mm->len);
	maps_reserve(p, 1);
	for (i = 0; i < p->nr_maps && p->maps[i].start < mm->start; i++)
		;
	memmove(p->maps + i + 1, p->maps + i, (p->nr_maps - i) * sizeof(*p->maps));
	p->maps[i] = (struct data_map){ .start = mm->start, .end = mm->start + mm->len,
					.pgoff = mm->pgoff, .dso = dso, .identity = anon };
	p->nr_maps++;
}

static const struct data_map *find_map(const struct data_process *p, __u64 ip)
{
	size_t lo = 0, hi = p->nr_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p->maps[mid].start <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

static char level_of(unsigned int cpumode)
{
	switch (cpumode) {
	case REC_MISC_KERNEL:
		return 'k';
	case REC_MISC_HYPERVISOR:
		return 'H';
	case REC_MISC_GUEST_KERNEL:
		return 'g';
	case REC_MISC_GUEST_USER:
		return 'u';
	default:
		return '.';
	}
}

void data_machine_resolve(struct data_machine *m, __u32 pid, unsigned int cpumode, __u64 ip,
			  struct data_location *loc)
{
	const struct data_process *p;
	const struct data_map *map;
	__u64 offset;

	memset(loc, 0, sizeof(*loc));
	loc->level = level_of(cpumode);
	loc->addr = ip;
	if (cpumode == REC_MISC_KERNEL) {
		loc->sym = data_dso_find(&m->dsos, m->dsos.kernel, ip);
		loc->dso = loc->sym && loc->sym->module ? loc->sym->module : m->dsos.kernel;
		return;
	}
	p = lookup(m, pid);
	map = p ? find_map(p, ip) : NULL;
	if (!map)
		return;
	loc->dso = map->dso;
	if (map->identity) {
		if (map->dso->jit)
			loc->sym = data_dso_find(&m->dsos, map->dso, ip);
		return;
	}
	offset = ip - map->start + map->pgoff;
	loc->addr = offset;
	/* [vdso]: its image is in perf's build-id cache */
	if (map->dso->name[0] != '/' && strcmp(map->dso->name, "[vdso]"))
		return;
	loc->sym = data_dso_find(&m->dsos, map->dso, offset);
}
