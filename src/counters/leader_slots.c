// SPDX-License-Identifier: GPL-2.0-only
/* Session slots in a leader's table, and reading a slot's sums. Callers hold the attr map lock. */
#include <bpf/bpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"
#include "leader.h"

/* Field 22 of /proc/PID/stat: with the pid it names one process for good. */
static __u64 process_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text_file(path, buf, sizeof(buf)))
		return 0;
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* after "pid (comm)" comes field 3 */
	for (field = 3, p++; *p && field < 22; p++)
		if (*p == ' ' && p[1] != ' ')
			field++;
	if (field == 22)
		sscanf(p, "%llu", &start);
	return start;
}

static bool owner_alive(const struct leader_session *s)
{
	return s->owner_pid && process_start_time(s->owner_pid) == s->owner_start;
}

static void delete_slot_filter(struct leader_handle *h, __u32 slot)
{
	struct leader_filter_key key, next;
	void *prev = NULL;

	while (!bpf_map_get_next_key(h->filter_fd, prev, &next)) {
		key = next;
		if (key.slot == slot && !bpf_map_delete_elem(h->filter_fd, &key)) {
			prev = NULL;
			continue;
		}
		prev = &key;
	}
}

static int zero_accum(struct leader_handle *h, __u32 slot)
{
	struct bpf_perf_event_value *zeros = xzalloc(h->nr_cpus * sizeof(*zeros));
	__u32 m, key;
	int err = 0;

	for (m = 0; m < LEADER_MAX_MEMBERS && !err; m++) {
		key = slot * LEADER_MAX_MEMBERS + m;
		if (bpf_map_update_elem(h->accum_fd, &key, zeros, BPF_ANY))
			err = -errno;
	}
	free(zeros);
	return err;
}

static int set_watermark(struct leader_handle *h, __u32 nr_slots)
{
	struct leader_state st;
	int err = 0;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(h->state_fd, &zero, &st))
		return -errno;
	st.nr_slots = nr_slots;
	if (bpf_map_update_elem(h->state_fd, &zero, &st, BPF_ANY))
		err = -errno;
	return err;
}

/* Frees the slots of sessions that died without cleaning up (SIGKILL). */
static void reclaim_dead(struct leader_handle *h, struct leader_session *table)
{
	__u32 i;

	for (i = 0; i < LEADER_MAX_SESSIONS; i++) {
		if (table[i].state != SLOT_ACTIVE || owner_alive(&table[i]))
			continue;
		table[i].state = SLOT_FREE;
		bpf_map_update_elem(h->sessions_fd, &i, &table[i], BPF_ANY);
		delete_slot_filter(h, i);
	}
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

int leader_slot_claim(struct leader_handle *h, const struct leader_session_spec *spec,
		      __u32 *slot_out)
{
	struct leader_session *table = xzalloc(LEADER_MAX_SESSIONS * sizeof(*table));
	struct leader_filter_value fval = { 0 };
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
	/* Sums first, then the filter, then the slot, then the loop bound: no half-made slot. */
	err = zero_accum(h, slot);
	if (err)
		goto out;
	delete_slot_filter(h, slot);
	for (i = 0; i < spec->nr_ids; i++) {
		struct leader_filter_key key = { .slot = slot, .id = spec->ids[i] };

		if (bpf_map_update_elem(h->filter_fd, &key, &fval, BPF_ANY)) {
			err = -errno;
			goto out;
		}
	}
	s.state = SLOT_ACTIVE;
	s.filter = spec->filter;
	s.enabled = spec->enabled && !spec->exec_tgid;
	s.inherit = spec->inherit;
	s.exec_tgid = spec->exec_tgid;
	s.owner_pid = getpid();
	s.owner_start = process_start_time(s.owner_pid);
	for (i = 0; i < spec->nr_cpus; i++)
		if (spec->cpus[i] >= 0 && spec->cpus[i] < LEADER_MAX_CPUS)
			s.cpus[spec->cpus[i] / 64] |= 1ull << (spec->cpus[i] % 64);
	if (bpf_map_update_elem(h->sessions_fd, &slot, &s, BPF_ANY)) {
		err = -errno;
		goto out;
	}
	table[slot] = s;
	err = set_watermark(h, highest_active(table));
	*slot_out = slot;
out:
	free(table);
	return err;
}

bool leader_slot_release(struct leader_handle *h, __u32 slot)
{
	struct leader_session *table = xzalloc(LEADER_MAX_SESSIONS * sizeof(*table));
	bool last = false;

	if (!read_table(h, table)) {
		table[slot].state = SLOT_FREE;
		table[slot].enabled = 0;
		bpf_map_update_elem(h->sessions_fd, &slot, &table[slot], BPF_ANY);
		delete_slot_filter(h, slot);
		reclaim_dead(h, table);
		set_watermark(h, highest_active(table));
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

int leader_sync(const struct leader_handle *h)
{
	__u32 cpu;

	for (cpu = 0; cpu < h->nr_cpus; cpu++) {
		__u64 args[3] = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
			    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		/* offline CPUs refuse (ENXIO): nothing ran there */
		if (bpf_prog_test_run_opts(h->prog_fd, &opts) && errno != ENXIO)
			return -errno;
	}
	return 0;
}

int leader_read(const struct leader_handle *h, __u32 slot, __u32 member,
		struct bpf_perf_event_value *per_cpu)
{
	__u32 key = slot * LEADER_MAX_MEMBERS + member;

	return bpf_map_lookup_elem(h->accum_fd, &key, per_cpu) ? -errno : 0;
}
