// SPDX-License-Identifier: GPL-2.0-only
/* Session slots in a leader's table, and reading a slot's sums. Callers hold the attr map lock. */
#include <bpf/bpf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "../util/common.h"
#include "leader.h"
#include "leader_cgroups.h"
#include "leader_maps.h"
#include "sync_lock.h"

/*
 * Fields 3 (state), 9 (flags) and 22 (start time) of /proc/PID/stat; false if the process is
 * gone. The start time and the pid name one process for good.
 */
static bool process_stat(pid_t pid, char *state, unsigned int *flags, __u64 *start)
{
	char path[64], buf[1024], *p;
	unsigned long long start_time;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text_file(path, buf, sizeof(buf)))
		return false;
	/* after "pid (comm)": state ppid pgrp session tty tpgid flags, 6 %lu, 6 %ld, start */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			 "%*d %*d %*d %llu", state, flags, &start_time) != 3)
		return false;
	*start = start_time;
	return true;
}

static __u64 process_start_time(pid_t pid)
{
	unsigned int flags;
	__u64 start;
	char state;

	return process_stat(pid, &state, &flags, &start) ? start : 0;
}

#define PROC_PF_EXITING 0x4	/* the kernel's PF_EXITING, in the stat flags */

/* A session killed by a signal is dead as soon as it exits: a zombie holds no leader fds. */
static bool owner_alive(const struct leader_session *s)
{
	unsigned int flags;
	__u64 start;
	char state;

	return s->owner_pid && process_stat(s->owner_pid, &state, &flags, &start) &&
	       start == s->owner_start && state != 'Z' && state != 'X' &&
	       !(flags & PROC_PF_EXITING);
}

/*
 * A thread slot's inner maps (its sums in accum, its threads in filter) are made the first time
 * the slot counts threads and kept for its next sessions: each change to a map of maps makes the
 * kernel wait for an RCU grace period (leader_maps.c).
 */

/* Deletes every thread of a slot's filter (a session's end, or its slot's next claim). */
static void clear_filter(int fd)
{
	__u32 *keys = NULL, key, n = 0, room = 0, i;
	void *prev = NULL;

	for (; !bpf_map_get_next_key(fd, prev, &key); prev = &keys[n++]) {
		if (n == room) {
			room = room ? 2 * room : 256;
			keys = xrealloc(keys, room * sizeof(*keys));
		}
		keys[n] = key;
	}
	for (i = 0; i < n; i++)
		bpf_map_delete_elem(fd, &keys[i]);
	free(keys);
}

static void forget_threads(struct leader_handle *h, __u32 slot)
{
	int fd = leader_inner_fd(h, INNER_FILTER, slot);

	if (fd >= 0) {
		clear_filter(fd);
		close(fd);
	}
}

/* The filter of a thread session of nr_ids threads: room for its children (leader.h) */
static __u32 filter_entries(int nr_ids)
{
	__u32 n = LEADER_FILTER_MIN;

	while (n < LEADER_FILTER_MAX && n < 2 * (__u32)nr_ids)
		n *= 2;
	return n;
}

/* The slot's filter, emptied, or a new one where it is missing or too small: an fd or -errno. */
static int slot_filter(struct leader_handle *h, __u32 slot, __u32 entries)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = leader_inner_fd(h, INNER_FILTER, slot), bigger, err;

	if (fd == -ENOENT)
		return leader_inner_create(h, INNER_FILTER, slot, entries);
	if (fd < 0)
		return fd;
	if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.max_entries >= entries) {
		clear_filter(fd);
		return fd;
	}
	/* a replacement: the single update waits until no leader run uses the old one */
	bigger = leader_inner_new(INNER_FILTER, 0, entries);
	if (bigger >= 0) {
		err = leader_inner_replace(h, INNER_FILTER, slot, bigger);
		if (err) {
			close(bigger);
			bigger = err;
		}
	}
	leader_inner_release(&fd, 1);
	return bigger;
}

/* The slot's sums, zero on every CPU: an fd or -errno. */
static int slot_sums(struct leader_handle *h, __u32 slot)
{
	struct bpf_perf_event_value *zeros = xzalloc(h->nr_cpus * sizeof(*zeros));
	int fd = leader_inner_fd(h, INNER_ACCUM, slot);
	__u32 m;

	if (fd == -ENOENT)
		fd = leader_inner_create(h, INNER_ACCUM, slot, 0);
	for (m = 0; m < h->nr_members && fd >= 0; m++) {
		if (bpf_map_update_elem(fd, &m, zeros, BPF_ANY)) {
			close(fd);
			fd = -errno;
		}
	}
	free(zeros);
	return fd;
}

/*
 * A thread slot's sums (zero) and filter (the spec's threads); the sums' fd stays in h for
 * leader_read().
 */
static int make_slot_maps(struct leader_handle *h, __u32 slot,
			  const struct leader_session_spec *spec)
{
	int fd, i, err = 0;
	__u8 one = 1;

	fd = slot_filter(h, slot, filter_entries(spec->nr_ids));
	if (fd < 0)
		return fd;
	for (i = 0; i < spec->nr_ids && !err; i++) {
		__u32 tid = spec->ids[i];

		if (bpf_map_update_elem(fd, &tid, &one, BPF_ANY))
			err = -errno;
	}
	close(fd);
	if (err)
		return err;
	fd = slot_sums(h, slot);
	if (fd < 0)
		return fd;
	if (h->sums_fd >= 0)
		close(h->sums_fd);
	h->sums_fd = fd;
	h->sums_slot = slot;
	return 0;
}

/* The per-CPU cache of thread slots, made when two are first active (on_switch), then kept. */
static void make_task_slots(struct leader_handle *h)
{
	int fd = leader_inner_fd(h, INNER_TASK_SLOTS, 0);

	if (fd == -ENOENT)
		fd = leader_inner_create(h, INNER_TASK_SLOTS, 0, 0);
	if (fd >= 0)
		close(fd);
}

void leader_gen_bump(const struct leader_handle *h, __u32 gen)
{
	struct timespec ts;
	__u64 val;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	val = ((__u64)ts.tv_sec * 1000000000 + ts.tv_nsec) ^ ((__u64)getpid() << 48);
	if (!val)
		val = 1;
	bpf_map_update_elem(h->gen_fd, &gen, &val, BPF_ANY);
}

/* Frees the slots of sessions that died without cleaning up (SIGKILL), and their cgroups. */
static void reclaim_dead(struct leader_handle *h, struct leader_session *table)
{
	__u64 dead[LEADER_MAX_SESSIONS / 64] = { 0 };
	bool any = false;
	__u32 i;

	for (i = 0; i < LEADER_MAX_SESSIONS; i++) {
		if (table[i].state != SLOT_ACTIVE || owner_alive(&table[i]))
			continue;
		table[i].state = SLOT_FREE;
		bpf_map_update_elem(h->sessions_fd, &i, &table[i], BPF_ANY);
		if (table[i].filter == FILTER_TID)
			forget_threads(h, i);
		dead[i / 64] |= 1ull << (i % 64);
		any = true;
	}
	if (any)
		leader_cg_reclaim(h, dead);
}

static int read_table(struct leader_handle *h, struct leader_session *table)
{
	__u32 i;

	for (i = 0; i < LEADER_MAX_SESSIONS; i++)
		if (bpf_map_lookup_elem(h->sessions_fd, &i, &table[i]))
			return -errno;
	return 0;
}

static __u32 highest_active(const struct leader_session *table)
{
	__u32 n = LEADER_MAX_SESSIONS;

	while (n > 0 && table[n - 1].state != SLOT_ACTIVE)
		n--;
	return n;
}

/* Publishes the loop bound and how many slots need readings at a switch (the fast path). */
static int publish_slots(struct leader_handle *h, const struct leader_session *table)
{
	struct leader_state st;
	__u32 zero = 0, i;

	if (bpf_map_lookup_elem(h->state_fd, &zero, &st))
		return -errno;
	st.nr_slots = highest_active(table);
	st.nr_switch_slots = 0;
	for (i = 0; i < st.nr_slots; i++)
		if (table[i].state == SLOT_ACTIVE && table[i].filter == FILTER_TID)
			st.nr_switch_slots++;
	/* made before the count that uses it is out */
	if (st.nr_switch_slots >= 2)
		make_task_slots(h);
	return bpf_map_update_elem(h->state_fd, &zero, &st, BPF_ANY) ? -errno : 0;
}

/* Runs the leader on one CPU, again while it finds an on_exec flush there in progress. */
static int sync_cpu(const struct leader_handle *h, __u32 cpu)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		__u64 args[3] = { LEADER_SYNC_MAGIC };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		/* offline CPUs refuse (ENXIO): nothing ran there */
		if (bpf_prog_test_run_opts(h->prog_fd, &opts))
			return errno == ENXIO ? 0 : -errno;
		if (opts.retval != LEADER_SYNC_BUSY)
			return 0;
		sched_yield();
	}
	return 0;
}

int leader_sync_locked(const struct leader_handle *h)
{
	__u32 cpu;
	int err = 0;

	for (cpu = 0; cpu < h->nr_cpus && !err; cpu++)
		err = sync_cpu(h, cpu);
	return err;
}

int leader_slot_claim(struct leader_handle *h, const struct leader_session_spec *spec,
		      __u32 *slot_out)
{
	struct leader_session *table = xzalloc(LEADER_MAX_SESSIONS * sizeof(*table));
	struct leader_session s = { 0 };
	__u32 slot;
	int i, err;

	err = read_table(h, table);
	if (err)
		goto out;
	reclaim_dead(h, table);
	for (slot = 0; slot < LEADER_MAX_SESSIONS; slot++)
		if (table[slot].state == SLOT_FREE)
			break;
	if (slot == LEADER_MAX_SESSIONS) {
		err = -ENOSPC;
		goto out;
	}
	/*
	 * A leader run that saw the slot's last session still active may be adding to its sums
	 * right now: a run on every CPU waits for those to end (a real switch runs with interrupts
	 * off, an on_exec flush makes the test run retry). The attr map lock, held here, is also
	 * leader_sync()'s: no test run can nest.
	 */
	err = leader_sync_locked(h);
	if (err)
		goto out;
	/* Sums and filter first (a thread slot's), then the slot, then the loop bound. */
	if (spec->filter == FILTER_TID) {
		err = make_slot_maps(h, slot, spec);
		if (err)
			goto out;
	}
	s.state = SLOT_ACTIVE;
	s.filter = spec->filter;
	s.enabled = spec->enabled && !spec->exec_tgid;
	s.inherit = spec->inherit;
	s.exec_tgid = spec->exec_tgid;
	s.owner_pid = getpid();
	s.owner_start = process_start_time(s.owner_pid);
	s.cgroup_id = spec->cgroup_id;
	for (i = 0; i < spec->nr_cpus; i++)
		if (spec->cpus[i] >= 0 && spec->cpus[i] < LEADER_MAX_CPUS)
			s.cpus[spec->cpus[i] / 64] |= 1ull << (spec->cpus[i] % 64);
	if (bpf_map_update_elem(h->sessions_fd, &slot, &s, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	table[slot] = s;
	err = publish_slots(h, table);
	*slot_out = slot;
out:
	/* last: the slot, its filter and the loop bound are in place (or a failure undone) */
	leader_gen_bump(h, LEADER_GEN_USER);
	free(table);
	return err;
}

bool leader_slot_release(struct leader_handle *h, __u32 slot)
{
	struct leader_session *table = xzalloc(LEADER_MAX_SESSIONS * sizeof(*table));
	bool last = false;

	if (!read_table(h, table)) {
		__u64 mine[LEADER_MAX_SESSIONS / 64] = { 0 };
		bool threads = table[slot].filter == FILTER_TID;

		table[slot].state = SLOT_FREE;
		table[slot].enabled = 0;
		bpf_map_update_elem(h->sessions_fd, &slot, &table[slot], BPF_ANY);
		if (threads)
			forget_threads(h, slot);
		/* the cgroups the session did not put (it failed half way) */
		mine[slot / 64] |= 1ull << (slot % 64);
		leader_cg_reclaim(h, mine);
		reclaim_dead(h, table);
		publish_slots(h, table);
		leader_gen_bump(h, LEADER_GEN_USER);
		last = highest_active(table) == 0;
	}
	free(table);
	return last;
}

int leader_slot_set_enabled(struct leader_handle *h, __u32 slot, bool enabled)
{
	struct leader_session s;

	if (bpf_map_lookup_elem(h->sessions_fd, &slot, &s))
		return -errno;
	s.enabled = enabled;
	return bpf_map_update_elem(h->sessions_fd, &slot, &s, BPF_ANY) ? -errno : 0;
}

/*
 * Test runs of a leader must never nest on one CPU: the kernel runs it on a per-CPU private
 * stack and, unlike at the tracepoint, without a recursion check, so a test run sent by IPI
 * into one running locally on that CPU wrecks it (a kernel oops, seen with 32 sessions). So
 * every session's test runs are serialized by bperf's lock, which the attr map's holders hold
 * too (sync_lock.h): never call this holding it.
 */
int leader_sync(const struct leader_handle *h)
{
	int err;

	if (h->lock_fd < 0)
		return -EBADF;
	err = sync_lock_take(h->lock_fd);
	if (err)
		return err;
	err = leader_sync_locked(h);
	sync_lock_drop(h->lock_fd);
	return err;
}

int leader_read(const struct leader_handle *h, __u32 slot, __u32 member,
		struct bpf_perf_event_value *per_cpu)
{
	bool own = h->sums_fd >= 0 && h->sums_slot == slot;
	int fd = own ? h->sums_fd : leader_inner_fd(h, INNER_ACCUM, slot), err;

	if (fd < 0)
		return fd;
	err = bpf_map_lookup_elem(fd, &member, per_cpu) ? -errno : 0;
	if (!own)
		close(fd);
	return err;
}

int leader_read_raw(const struct leader_handle *h, __u32 member,
		    struct bpf_perf_event_value *per_cpu)
{
	return bpf_map_lookup_elem(h->prev_fd, &member, per_cpu) ? -errno : 0;
}
