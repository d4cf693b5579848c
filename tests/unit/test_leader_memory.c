// SPDX-License-Identifier: GPL-2.0-only
/*
 * A leader's kernel memory grows with what is registered, not with its maxima (bpf/leader.h):
 * the daemon's leader (cpu-clock, context-switches, page-faults: one group of 3) with one -a
 * slot, then two thread slots, then 10, 1,000 and 5,000 cgroups registered (more than the old
 * cap of 4,096). Each time the sum of bytes_memlock (/proc/self/fdinfo) of the leader's maps and
 * of every inner map its inner_ids names is checked against the layout's formula, in terms of
 * possible CPUs P, members N and the indices its chunks of 64 hold (64, 128, 256, ...: the
 * power of 2 from 64 up that holds the cgroups): at least the per-CPU sums that must be there
 * (24 N bytes x P per index: what the kernel allocates for a per-CPU array), at most those plus
 * each map's bookkeeping; released thread slots keep their maps for the next sessions, which add
 * nothing. A thread slot's filter is preallocated where the kernel wants it so (before 6.1): its
 * 4,096 elements of 64 bytes are counted in. Prints the figures. Needs root and bpffs (exit 77 =
 * skipped otherwise).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "attr_map_remove.h"
#include "check.h"
#include "src/counters/attr_map.h"
#include "src/counters/kernel_features.h"
#include "src/counters/leader.h"
#include "src/counters/leader_cgroups.h"

#define NAME "test_leader_memory"
#define FAKE_ID 0x7100000000000000ull	/* no cgroup has such an id */
#define NR_MEMBERS 3
#define PAGE 4096ull
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* bytes_memlock of a map, as bpftool shows it (fdinfo's memlock) */
static __u64 memlock(int fd)
{
	char path[64], line[128];
	unsigned long long bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

static __u64 map_bytes(__u32 id)
{
	int fd = bpf_map_get_fd_by_id(id);
	__u64 bytes;

	if (fd < 0)
		return 0;
	bytes = memlock(fd);
	close(fd);
	return bytes;
}

/* Every map of the leader, and every inner map its inner_ids names. */
static __u64 leader_bytes(const struct leader_handle *h)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info), ids[32], i, id;
	__u64 sum = 0;

	info.nr_map_ids = 32;
	info.map_ids = (unsigned long)ids;
	if (bpf_obj_get_info_by_fd(h->prog_fd, &info, &len))
		return 0;
	for (i = 0; i < info.nr_map_ids && i < 32; i++)
		sum += map_bytes(ids[i]);
	for (i = 0; i < LEADER_NR_INNER_IDS; i++)
		if (!bpf_map_lookup_elem(h->inner_ids_fd, &i, &id) && id)
			sum += map_bytes(id);
	return sum;
}

/* a per-CPU array's values: what the kernel allocates for it (rounded to 8 bytes each) */
static __u64 percpu(__u64 entries, __u64 value, __u64 cpus)
{
	return entries * ((value + 7) & ~7ull) * cpus;
}

/*
 * What does not depend on registrations, at most: each CPU's slice, paths, readings and
 * pending set (under 1,600 bytes and 32 per member), the tables, and a page or two of
 * bookkeeping per map.
 */
static __u64 base_max(__u64 cpus)
{
	return cpus * (1600 + 32 * NR_MEMBERS) + 256 * 1024;
}

/*
 * The indices the chunks hold with n cgroups: the power of 2 from 64 up that holds them (the
 * chunks of 64 are made in batches that double their number)
 */
static __u64 held(__u64 n)
{
	__u64 size = LEADER_CG_CHUNK;

	while (size < n)
		size *= 2;
	return size;
}

/* their sums (cg_accum) and users (cg_users) */
static __u64 chunks_min(__u64 n, __u64 cpus)
{
	return percpu(held(n), 24 * NR_MEMBERS, cpus);
}

static __u64 chunks_max(__u64 n, __u64 cpus)
{
	return chunks_min(n, cpus) + held(n) * (8 * cpus + 64) + held(n) / LEADER_CG_CHUNK * 4 * PAGE;
}

/* cg_index's hash of n cgroups: the power of 2 from 1024 up that holds them, 112 bytes each */
static __u64 index_max(__u64 n, __u64 cpus)
{
	__u64 size = LEADER_CG_INDEX_MIN;

	while (size < n)
		size *= 2;
	return size * 112 + cpus * 128 + 2 * PAGE;
}

/* Registers cgroups up to n in all; checks the leader's bytes against the formula. */
static bool grow_to(struct leader_handle *h, __u32 slot, __u32 *have, __u32 n, __u64 base)
{
	__u64 cpus = h->nr_cpus, bytes, lo, hi;
	char name[64];
	__u32 idx;

	for (; *have < n; (*have)++)
		if (!CHECK_OK("leader_cg_get", leader_cg_get(h, slot, FAKE_ID + *have, &idx)))
			return false;
	bytes = leader_bytes(h);
	lo = base + chunks_min(n, cpus);
	hi = base + chunks_max(n, cpus) + index_max(n, cpus);
	printf("%5u cgroups: %10llu bytes (%llu indices held, formula %llu to %llu)\n", n,
	       (unsigned long long)bytes, (unsigned long long)held(n), (unsigned long long)lo,
	       (unsigned long long)hi);
	snprintf(name, sizeof(name), "bytes with %u cgroups", n);
	return CHECK_MSG(name, bytes >= lo && bytes <= hi, "expected %llu to %llu, got %llu",
			 (unsigned long long)lo, (unsigned long long)hi,
			 (unsigned long long)bytes);
}

/* Two thread slots: a filter and sums each, and the per-CPU cache of the two. */
static void thread_slots(struct leader_handle *h, __u64 base)
{
	pid_t self = getpid();
	struct leader_session_spec spec = { .filter = FILTER_TID, .ids = &self, .nr_ids = 1,
					    .enabled = true };
	__u64 cpus = h->nr_cpus, one_min, one_max, bytes[2];
	__u32 slots[2];
	int i;

	one_min = percpu(NR_MEMBERS, 24, cpus);
	one_max = one_min + LEADER_FILTER_MIN * 32 + cpus * 512 + 4 * PAGE;
	/* a preallocated filter (kernel_features.h): its elements too, 64 bytes each */
	if (!kernel_features()->alloc_in_tracing) {
		one_min += LEADER_FILTER_MIN * 64;
		one_max += LEADER_FILTER_MIN * 64;
	}
	for (i = 0; i < 2; i++) {
		if (!CHECK_OK("thread slot", leader_slot_claim(h, &spec, &slots[i])))
			return;
		bytes[i] = leader_bytes(h) - base;
	}
	printf("thread slots: %llu bytes for one, %llu for two\n", (unsigned long long)bytes[0],
	       (unsigned long long)bytes[1]);
	CHECK_MSG("bytes of one thread slot", bytes[0] >= one_min && bytes[0] <= one_max,
		  "expected %llu to %llu, got %llu", (unsigned long long)one_min,
		  (unsigned long long)one_max, (unsigned long long)bytes[0]);
	/* the second brings task_slots: 256 entries of 40 bytes per CPU */
	CHECK_MSG("bytes of two thread slots",
		  bytes[1] >= 2 * one_min + percpu(LEADER_TASK_SLOTS_ENTRIES, 40, cpus) &&
			  bytes[1] <= 2 * one_max + percpu(LEADER_TASK_SLOTS_ENTRIES, 48, cpus),
		  "expected the two slots' and task_slots' bytes, got %llu",
		  (unsigned long long)bytes[1]);
	for (i = 0; i < 2; i++)
		leader_slot_release(h, slots[i]);
	/* kept for the next: two sessions again cost nothing more */
	for (i = 0; i < 2; i++)
		if (!CHECK_OK("thread slot again", leader_slot_claim(h, &spec, &slots[i])))
			return;
	CHECK_EQ("bytes of two thread slots again", base + bytes[1], leader_bytes(h));
	for (i = 0; i < 2; i++)
		leader_slot_release(h, slots[i]);
}

static void measure(struct leader_handle *h, __u32 slot)
{
	const __u32 steps[] = { 10, 1000, 5000 };
	__u64 base = leader_bytes(h), max = base_max(h->nr_cpus);
	__u32 have = 0, i;

	printf("%u possible CPUs, %d members; 0 cgroups: %llu bytes (at most %llu)\n",
	       h->nr_cpus, NR_MEMBERS, (unsigned long long)base, (unsigned long long)max);
	CHECK_MSG("bytes with no cgroup", base <= max, "expected at most %llu, got %llu",
		  (unsigned long long)max, (unsigned long long)base);
	thread_slots(h, base);
	base = leader_bytes(h);
	for (i = 0; i < ARRAY_SIZE(steps); i++)
		if (!grow_to(h, slot, &have, steps[i], base))
			break;
	CHECK_EQ("leader_state.nr_cgroups", have, steps[ARRAY_SIZE(steps) - 1]);
	for (i = 0; i < have; i++)
		leader_cg_put(h, slot, FAKE_ID + i);
}

int main(void)
{
	struct leader_session_spec spec = { .filter = FILTER_CPU, .enabled = true };
	const __u64 configs[NR_MEMBERS] = { PERF_COUNT_SW_CPU_CLOCK,
					    PERF_COUNT_SW_CONTEXT_SWITCHES,
					    PERF_COUNT_SW_PAGE_FAULTS };
	struct perf_event_attr attrs[NR_MEMBERS], key;
	struct leader_handle h;
	struct attr_map map;
	char map_path[64];
	__u32 slot;
	int m;

	if (geteuid() != 0 || access("/sys/fs/bpf", W_OK)) {
		printf("needs root and bpffs\n");
		return EXIT_SKIP;
	}
	for (m = 0; m < NR_MEMBERS; m++)
		attrs[m] = (struct perf_event_attr){ .type = PERF_TYPE_SOFTWARE,
						     .size = sizeof(attrs[m]),
						     .config = configs[m] };
	key = attrs[0];
	key.__reserved_2 = GROUP_KEY_MARK;
	snprintf(map_path, sizeof(map_path), "/sys/fs/bpf/bperf_test_leader_memory_%d", getpid());
	if (!CHECK_OK("attr map", attr_map_open_locked(&map, map_path)))
		return check_exit(NAME);
	if (!CHECK_OK("leader_get", leader_get(&map, &key, attrs, NR_MEMBERS, 0, &h)))
		goto out_map;
	if (CHECK_OK("leader_slot_claim", leader_slot_claim(&h, &spec, &slot))) {
		measure(&h, slot);
		leader_slot_release(&h, slot);
	}
	leader_drop_entries(&map, &key, &h);
	leader_put(&h);
out_map:
	attr_map_close(&map);
	attr_map_remove(map_path);
	return check_exit(NAME);
}
