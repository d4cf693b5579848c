/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shared-counter leader's sessions: who counts a thread (filter, the per-CPU task_slots
 * cache) and how a slice is credited to each session's sums. leader.bpf.c includes it after
 * its maps: one compilation unit, one object and skeleton, a file per concern.
 */
#ifndef BPERF_LEADER_SLOTS_BPF_H
#define BPERF_LEADER_SLOTS_BPF_H

/*
 * Per CPU, the FILTER_TID slots that count a thread, so that a switch looks up one entry rather
 * than (slot, tid) in filter for every session. Direct-mapped by the tid's low bits: an array
 * costs less to look up than a hash and its memory stays small on machines with many CPUs (an
 * LRU hash of a few thousand tids per CPU would take megabytes per leader there). Valid for tid
 * while filter_gen holds the generations it was computed at; gen_user is never 0 once a session
 * has claimed a slot, so an entry never written (all zero) is never taken for a valid one.
 */
struct task_slots {
	__u32 tid;
	__u32 pad;
	__u64 gen_bpf;
	__u64 gen_user;
	struct pending slots;
};

_Static_assert(sizeof(struct task_slots) == LEADER_TASK_SLOTS_VALUE, "task_slots' value size");

struct task_slots_cache {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct task_slots));
	__uint(max_entries, LEADER_TASK_SLOTS_ENTRIES);
};

/* the cache, at key 0 while two thread slots or more are active (publish_slots()) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1);
	__array(values, struct task_slots_cache);
} task_slots SEC(".maps");

static bool in_filter(__u32 slot, __u32 tid)
{
	void *set = bpf_map_lookup_elem(&filter, &slot);

	return tid && set && bpf_map_lookup_elem(set, &tid);
}

_Static_assert(LEADER_MAX_SESSIONS == 128, "struct pending holds 128 slots");

/* The word of a slot in struct pending, masked so that the verifier sees it in bounds. */
static __u32 slot_word(__u32 slot)
{
	return (slot >> 6) & 1;
}

static bool slot_in(const struct pending *set, __u32 slot)
{
	return (set->slots[slot_word(slot)] >> (slot & 63)) & 1;
}

static void slot_add(struct pending *set, __u32 slot)
{
	set->slots[slot_word(slot)] |= 1ull << (slot & 63);
}

/* Whether the slice (the task now running on its CPU) belongs to the thread session in slot. */
static bool counts_slice(__u32 slot, struct slice *sl)
{
	return sl->use_set ? slot_in(&sl->tid_slots, slot) : in_filter(slot, sl->tid);
}

/* After each change BPF makes to filter: every CPU's cached sets are out of date. */
static void filter_changed(void)
{
	__u32 key = LEADER_GEN_BPF;
	__u64 *gen = bpf_map_lookup_elem(&filter_gen, &key);

	if (gen)
		__sync_fetch_and_add(gen, 1);
}

/* Adds slot to this CPU's sl->tid_slots if the thread session there counts tid. */
__noinline int collect_tid_slot(__u32 slot, __u32 tid)
{
	struct leader_session *s;
	struct slice *sl;
	__u32 zero = 0;

	if (slot >= LEADER_MAX_SESSIONS)
		return 0;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE || s->filter != FILTER_TID || !in_filter(slot, tid))
		return 0;
	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	if (sl)
		slot_add(&sl->tid_slots, slot);
	return 0;
}

/* The thread slots below nr_slots that count tid, into this CPU's sl->tid_slots. */
__noinline int collect_tid_slots(__u32 tid, __u32 nr_slots)
{
	__u32 slot;

	BOUNDED_FOR(slot, nr_slots, LEADER_MAX_SESSIONS)
		collect_tid_slot(slot, tid);
	return 0;
}

/*
 * Fills sl->tid_slots from this CPU's cache, or from filter when the cache has no valid entry
 * for the thread. The generations are read before filter is: a change made meanwhile leaves
 * the new entry out of date, never one that looks current. With one thread slot, one lookup in
 * filter costs less than the cache's (measured in the arm64 guest): sl->use_set stays 0.
 */
static void find_tid_slots(struct slice *sl, const struct leader_state *st)
{
	__u32 key_bpf = LEADER_GEN_BPF, key_user = LEADER_GEN_USER, tid = sl->tid, zero = 0;
	__u32 idx = tid & (LEADER_TASK_SLOTS_ENTRIES - 1);
	struct task_slots *cached;
	__u64 *gen_bpf, *gen_user;
	void *cache;

	__builtin_memset(&sl->tid_slots, 0, sizeof(sl->tid_slots));
	sl->use_set = 0;
	if (!tid || st->nr_switch_slots < 2)
		return;
	gen_bpf = bpf_map_lookup_elem(&filter_gen, &key_bpf);
	gen_user = bpf_map_lookup_elem(&filter_gen, &key_user);
	if (!gen_bpf || !gen_user)
		return;
	cache = bpf_map_lookup_elem(&task_slots, &zero);
	if (!cache)
		return;
	cached = bpf_map_lookup_elem(cache, &idx);
	if (!cached)
		return;
	sl->use_set = 1;
	if (cached->tid == tid && cached->gen_user && cached->gen_user == *gen_user &&
	    cached->gen_bpf == *gen_bpf) {
		sl->tid_slots = cached->slots;
		return;
	}
	/* the generations as read before filter: a change meanwhile makes this entry stale */
	cached->tid = tid;
	cached->gen_bpf = *gen_bpf;
	cached->gen_user = *gen_user;
	collect_tid_slots(tid, sl->nr_slots);
	cached->slots = sl->tid_slots;
}

/*
 * A member's count for a thread session of the slice: the delta while the session counts it.
 * The pending sessions' share of a context-switch member is the one switch they went out at.
 * More means switches this leader never saw: a kernel may run no tracepoint as some tasks
 * switch out (the Firecracker host's kernel, for its guest agent's threads), and those
 * increments are theirs, not the sessions'.
 */
static __u64 session_count(const struct slice *sl, __u32 m, bool time_ok, bool count_ok)
{
	__u64 count = sl->delta[m & (LEADER_MAX_MEMBERS - 1)].counter;

	if (!(prev_owner_members & (1u << m)))
		return time_ok ? count : 0;
	return count_ok && count ? 1 : 0;
}

/* Adds a member's count, and the slice's times where they count, to a session's or cgroup's sums */
static void add_slice(struct bpf_perf_event_value *acc, const struct slice *sl, __u32 m,
		      __u64 count, bool times)
{
	const struct bpf_perf_event_value *delta = &sl->delta[m & (LEADER_MAX_MEMBERS - 1)];

	acc->counter += count;
	if (times) {
		acc->enabled += delta->enabled;
		acc->running += delta->running;
	}
}

/* This CPU's slice to the thread session in slot, if it counts it. */
__noinline int credit_session(__u32 slot)
{
	struct leader_session *s;
	bool time_ok, count_ok;
	__u32 m, zero = 0;
	struct slice *sl;
	void *sums;

	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	if (!sl || slot >= LEADER_MAX_SESSIONS)
		return 0;
	s = bpf_map_lookup_elem(&sessions, &slot);
	/* -a/-C and -G sessions take differences of prev_readings and cg_accum themselves */
	if (!s || s->state != SLOT_ACTIVE || s->filter != FILTER_TID)
		return 0;
	time_ok = s->enabled && counts_slice(slot, sl);
	count_ok = prev_owner_members ? slot_in(&sl->cnt_slots, slot) : time_ok;
	if (prev_owner_members && time_ok && sl->at_switch && !sl->gone)
		slot_add(&sl->next_slots, slot);
	if (!time_ok && !count_ok)
		return 0;
	sums = bpf_map_lookup_elem(&accum, &slot);
	if (!sums)
		return 0;
	for (m = 0; m < LEADER_MAX_MEMBERS && m < nr_members; m++) {
		__u32 key = m;
		struct bpf_perf_event_value *acc = bpf_map_lookup_elem(sums, &key);

		if (acc)
			add_slice(acc, sl, m, session_count(sl, m, time_ok, count_ok), time_ok);
	}
	return 0;
}

__noinline int credit_sessions(__u32 nr_slots)
{
	__u32 slot;

	BOUNDED_FOR(slot, nr_slots, LEADER_MAX_SESSIONS)
		credit_session(slot);
	return 0;
}

/*
 * A task perf no longer counts leaves every filter as it switches out: its slice up to here is
 * credited first, but the context-switch increment this switch makes is not its any more.
 */
__noinline int forget_in_slot(__u32 slot, __u32 tid)
{
	void *set = bpf_map_lookup_elem(&filter, &slot);

	if (set && !bpf_map_delete_elem(set, &tid))
		filter_changed();
	return 0;
}

/*
 * The loops keep their counters out of the keys whose addresses the lookups take: 5.10's
 * verifier does not track a 32-bit value on the stack, and would take the loop for an endless
 * one.
 */
__noinline int forget_task(__u32 tid, __u32 nr_slots)
{
	__u32 slot;

	BOUNDED_FOR(slot, nr_slots, LEADER_MAX_SESSIONS)
		forget_in_slot(slot, tid);
	return 0;
}

#endif
