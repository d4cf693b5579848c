// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared-counter leader. See leader.h for the maps. Everything here runs on one CPU with
 * preemption off: per-CPU maps need no locking, and the session table is only read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "leader.h"

/* Set by user space before load. */
const volatile __u32 nr_members = 1;
const volatile __u32 nr_cpus = 1;
/*
 * Members that count context switches (bit per member): that event is incremented after the
 * sched_switch tracepoint, for the task switched out, so its slice belongs to the task
 * switched out the time before.
 */
const volatile __u32 prev_owner_members;
/* The attr map key this leader counts: a session never adopts a leader of another event. */
const volatile __u8 attr_key[LEADER_KEY_SIZE];
/*
 * The attr of each member: a session of one event that finds the leader under the event's
 * member key (a group the daemon made) shares it only if member m is that very event.
 */
const volatile __u8 member_attrs[LEADER_MAX_MEMBERS][LEADER_KEY_SIZE];
/*
 * The kernel has bpf_get_current_task_btf() (Linux 5.11): set by user space from its probe.
 * Without it the current task's fields are probe reads; the verifier drops the branch not taken
 * before it looks at the helper.
 */
const volatile __u32 have_task_btf;	/* a __u32: .rodata's size stays sizeof its struct */

/*
 * Set by the first test run without a context: upstream perf's, whose followers add
 * diff_readings at every switch from then on, so every switch must read.
 */
__u32 foreign_syncs;

/* Sizes, not __type: the kernel takes no BTF for a perf event array (libbpf leaves it out). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
	__uint(max_entries, LEADER_MAX_MEMBERS);
} prev_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
	__uint(max_entries, 1);
} diff_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct leader_session);
	__uint(max_entries, LEADER_MAX_SESSIONS);
} sessions SEC(".maps");

/*
 * The maps in maps below: user space makes their inner maps as they are needed (leader_maps.c,
 * whose templates replace these definitions before load; these are what a leader of one member
 * gets without them, as test_leader_load loads it). Sizes, not __type: user space makes the
 * inner maps without BTF, and clang would leave the types out.
 */
struct accum_sums {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);	/* nr_members */
};

/* one inner map per thread slot: its sums, key member */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_MAX_SESSIONS);
	__array(values, struct accum_sums);
} accum SEC(".maps");

struct filter_set {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u8));
	__uint(max_entries, LEADER_FILTER_MIN);
	__uint(map_flags, BPF_F_NO_PREALLOC);
};

/* one inner map per thread slot: the tids it counts */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_MAX_SESSIONS);
	__array(values, struct filter_set);
} filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, struct leader_state);
	__uint(max_entries, 1);
} leader_state SEC(".maps");

/*
 * Two generations of the filters (and of the slot table's FILTER_TID slots): BPF adds one to
 * LEADER_GEN_BPF after each change it makes, user space writes a fresh value to LEADER_GEN_USER
 * after each of its own. A cached set of slots is good while both are what they were before it
 * was computed. And LEADER_GEN_CG, which user space writes after each change to cg_index: a
 * cached path is good while it is what it was before the walk.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u64);
	__uint(max_entries, LEADER_NR_GENS);
} filter_gen SEC(".maps");

/* The registered cgroups: kernfs id -> index in cg_accum, in the one inner map at key 0. */
struct cg_index_hash {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, sizeof(struct leader_cg));
	__uint(max_entries, LEADER_CG_INDEX_MIN);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, 1);
	__array(values, struct cg_index_hash);
} cg_index SEC(".maps");

/*
 * A chunk of LEADER_CG_CHUNK cgroups' sums. value_size set by user space: nr_members struct
 * bpf_perf_event_value, so that a slice takes one lookup per cgroup. Sizes, not __type: the BTF
 * type would not match.
 */
struct cg_accum_chunk {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, LEADER_CG_CHUNK);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_CG_CHUNKS);
	__array(values, struct cg_accum_chunk);
} cg_accum SEC(".maps");

struct cg_users_chunk {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct leader_cg_users));
	__uint(max_entries, LEADER_CG_CHUNK);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__type(key, __u32);
	__uint(max_entries, LEADER_CG_CHUNKS);
	__array(values, struct cg_users_chunk);
} cg_users SEC(".maps");

/*
 * Where BPF links of perf events are missing (before Linux 5.15), the exit kprobe's event, which
 * holds on_exit_task attached: the map keeps the event, and so the attachment, while on_switch,
 * which names the map, lives (an attachment by ioctl would die with the fd of whoever made it).
 * Named by on_switch only: a map the probe's own program named would keep itself alive.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(max_entries, 1);
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} exit_probe_hold SEC(".maps");

/* user space's: the ids of the inner maps (leader.h) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__type(key, __u32);
	__type(value, __u32);
	__uint(max_entries, LEADER_NR_INNER_IDS);
} inner_ids SEC(".maps");

/* Element idx of a chunked map (cg_accum, cg_users): chunk idx / LEADER_CG_CHUNK. */
static __always_inline void *chunk_elem(void *outer, __u32 idx)
{
	__u32 chunk = idx >> LEADER_CG_CHUNK_SHIFT, off = idx & (LEADER_CG_CHUNK - 1);
	void *inner = bpf_map_lookup_elem(outer, &chunk);

	return inner ? bpf_map_lookup_elem(inner, &off) : NULL;
}

/*
 * The sessions the pending context-switch increment on each CPU belongs to (prev_owner_members):
 * those that counted the task switched out last, as it was switched out. A set of slots rather
 * than a task: the task may run on, and exit, elsewhere before this CPU's next reading.
 */
struct pending {
	__u64 slots[LEADER_MAX_SESSIONS / 64];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct pending);
	__uint(max_entries, 1);
} pending_owner SEC(".maps");

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

/*
 * Per CPU, the registered cgroups (their cg_accum indices) on the paths of the last cgroups
 * slices ran in, so that a switch between cgroups it saw lately walks no path: the walk costs
 * up to three kernel reads and two lookups per level. A struct cgroup is known by its address and its
 * self.serial_nr (a cgroup made later at a freed one's address has another); a path is good
 * while filter_gen[LEADER_GEN_CG] holds the value it was walked at.
 */
struct cg_path {
	__u64 cgrp;	/* struct cgroup *; 0: never used */
	__u64 serial_nr;
	__u64 gen;
	__u32 nr;
	__u32 idx[LEADER_CG_MAX_LEVELS];
};

struct cg_paths {
	struct cg_path path[LEADER_CG_PATHS];
	__u32 next;	/* the entry the next miss replaces */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct cg_paths);
	__uint(max_entries, 1);
} cg_paths SEC(".maps");

/*
 * One slice of every member, and whom it belongs to, handed to the per-session loop. The time
 * (enabled, running) and most counts are the running task's (tid); the counts of
 * prev_owner_members go to the sessions in cnt_slots.
 */
struct slice {
	struct bpf_perf_event_value delta[LEADER_MAX_MEMBERS];
	struct pending cnt_slots;	/* who the pending increment was for */
	struct pending next_slots;	/* who the increment this switch makes is for */
	struct pending tid_slots;	/* the FILTER_TID sessions that count tid, if cached */
	__u32 tid;
	__u32 cpu;
	__u32 nr_slots;
	__u32 busy;	/* a reading is in progress on this CPU (see account()) */
	__u32 at_switch;	/* tid is being switched out (not a read) */
	__u32 use_set;	/* tid_slots is good: take it rather than filter */
	__u32 gone;	/* perf no longer counts the task going out (current_is_gone()) */
	/*
	 * The last reading was at a switch: its context-switch increment, made after the
	 * tracepoint and so in this slice's delta, was credited to the cgroups of the slice before.
	 */
	__u32 cg_pending;
	/*
	 * Kept from one reading to the next: the perf cgroup (struct cgroup *) the open slice runs
	 * in, that of the task switched in at the last reading (or running then). While cgroups
	 * are registered every switch that changes the perf cgroup reads, and so does a task
	 * moving itself, so the whole slice ran there: perf moves a task's counts to its new
	 * cgroup the moment it moves. And the cgroup's perf_event css, which a switch compares.
	 */
	__u64 start_cgroup;
	__u64 start_css;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct slice);
	__uint(max_entries, 1);
} slice_buf SEC(".maps");

/* task_struct.flags: the task has begun to exit (exit_signals()) */
#define PF_EXITING 0x00000004

/*
 * perf stops counting an exiting task in perf_event_exit_task(). Since Linux 6.16 (and the
 * stable kernels it went back to in 2025) that runs just before exit_mm(), which clears the
 * task's mm before it tears the address space down (switches there are frequent: a large mm
 * yields the CPU as it is freed); before, it ran after exit_mm() and the files, just before
 * exit_notify() sets exit_state. From the first switch past either point perf no longer counts
 * the task; on older kernels the switches in exit_mm() are perf's and not bperf's (README).
 * Asked of the task being switched out, the current one.
 */
static bool current_is_gone(void)
{
	struct task_struct *task;

	if (have_task_btf) {
		/* a trusted pointer: plain loads, not probe reads */
		task = bpf_get_current_task_btf();
		return task->exit_state != 0 || ((task->flags & PF_EXITING) && !task->mm);
	}
	task = (struct task_struct *)bpf_get_current_task();
	/* exit_signals() sets PF_EXITING before exit_notify() sets exit_state */
	if (!(BPF_CORE_READ(task, flags) & PF_EXITING))
		return false;
	return BPF_CORE_READ(task, exit_state) != 0 || !BPF_CORE_READ(task, mm);
}

static bool in_filter(__u32 slot, __u32 tid)
{
	void *set = bpf_map_lookup_elem(&filter, &slot);

	return tid && set && bpf_map_lookup_elem(set, &tid);
}

/*
 * The perf_event css of a task, as an address: that of the cgroup perf counts the task's events
 * in (perf_cgroup_from_task()), one read short of the cgroup itself, which is all a switch needs
 * to tell whether the cgroup changes.
 */
static __u64 task_perf_css(struct task_struct *task)
{
	int id = bpf_core_enum_value(enum cgroup_subsys_id, perf_event_cgrp_id);

	return (__u64)BPF_CORE_READ(task, cgroups, subsys[id]);
}

/*
 * The kernfs id of cgrp's ancestor at level (cgrp's own at its level); level <= cgrp's. Not
 * inlined: in a loop the compiler would hoist the relocation of the field this kernel lacks
 * above the test for it, and the verifier refuses that instruction.
 */
static __noinline __u64 ancestor_id(struct cgroup *cgrp, __u32 level)
{
	struct cgroup *ancestor;

	if (bpf_core_field_exists(cgrp->ancestors)) {
		ancestor = BPF_CORE_READ(cgrp, ancestors[level]);
		return ancestor ? BPF_CORE_READ(ancestor, kn, id) : 0;
	}
	return BPF_CORE_READ((struct cgroup___ids *)cgrp, ancestor_ids[level]);
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

/*
 * The loops below run over slots, levels or members with a bound the verifier sees, each
 * iteration a call of a global function: the verifier checks a global function once, whatever
 * the number of iterations or calls, and a global function takes scalars only (pointers to
 * memory only since Linux 5.12), so each looks up the per-CPU state it works on. bpf_loop()
 * would need 5.17, and its callbacks make 5.10's verifier refuse the whole program.
 */

/*
 * for (i = 0; i < n; i++), with the constant bound max that the verifier needs (a bound
 * clamped into n is lost to it when the compiler compares a copy)
 */
#define BOUNDED_FOR(i, n, max) for (i = 0; i < (max) && i < (n); i++)

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

/*
 * A member's count for the cgroups of the slice. A context switch is counted for the task
 * switched out just after the tracepoint: a reading at a switch credits that increment to the
 * slice it ends at once, and the next reading takes it out of its own slice's delta.
 */
static __u64 cg_count(const struct slice *sl, __u32 m, __u32 at_switch)
{
	__u64 count = sl->delta[m & (LEADER_MAX_MEMBERS - 1)].counter;

	if (!(prev_owner_members & (1u << m)))
		return count;
	if (sl->cg_pending && count)
		count--;
	return count + at_switch;
}

/* This CPU's path p (of LEADER_CG_PATHS in cg_paths). */
static struct cg_path *cpu_path(__u32 p)
{
	struct cg_paths *paths;
	__u32 zero = 0;

	paths = bpf_map_lookup_elem(&cg_paths, &zero);
	return paths ? &paths->path[p & (LEADER_CG_PATHS - 1)] : NULL;
}

/* Adds cgrp's ancestor at level to path p if it is registered; 1 ends the walk. */
__noinline int collect_level(__u32 p, __u64 cgrp, __u32 level)
{
	struct cg_path *path = cpu_path(p);
	struct leader_cg_users *users;
	struct leader_cg *cg;
	__u32 idx, n, zero = 0;
	void *index;
	__u64 id;

	if (!path)
		return 1;
	n = path->nr;
	if (n >= LEADER_CG_MAX_LEVELS)
		return 1;
	index = bpf_map_lookup_elem(&cg_index, &zero);
	if (!index)
		return 1;
	id = ancestor_id((struct cgroup *)cgrp, level);
	cg = bpf_map_lookup_elem(index, &id);
	if (!cg)
		return 0;
	idx = cg->idx;
	/* an index being freed or reused meanwhile is not this cgroup's any more */
	users = chunk_elem(&cg_users, idx);
	if (!users || users->id != id)
		return 0;
	/*
	 * Checked again here, hidden from the compiler: 6.1's verifier loses the bound of the
	 * first check once n is spilled across the lookups.
	 */
	barrier_var(n);
	if (n >= LEADER_CG_MAX_LEVELS)
		return 1;
	path->idx[n] = idx;
	path->nr = n + 1;
	return 0;
}

/* The walk up from cgrp (at level) through its ancestors, into path p. */
__noinline int collect_levels(__u32 p, __u64 cgrp, __u32 level)
{
	__u32 i, nr = level + 1;

	BOUNDED_FOR(i, nr, LEADER_CG_MAX_LEVELS)
		if (collect_level(p, cgrp, level - i))
			break;
	return 0;
}

/* This CPU's path of cgrp: the one kept, or a fresh walk in place of the oldest; -1: none. */
static int find_path(struct cgroup *cgrp)
{
	__u32 zero = 0, key = LEADER_GEN_CG, i, p;
	struct cg_paths *paths;
	struct cg_path *path;
	__u64 serial, *gen;

	paths = bpf_map_lookup_elem(&cg_paths, &zero);
	gen = bpf_map_lookup_elem(&filter_gen, &key);
	if (!paths || !gen)
		return -1;
	serial = BPF_CORE_READ(cgrp, self.serial_nr);
	for (i = 0; i < LEADER_CG_PATHS; i++) {
		path = &paths->path[i];
		if (path->cgrp == (__u64)cgrp && path->serial_nr == serial && path->gen == *gen)
			return i;
	}
	p = paths->next & (LEADER_CG_PATHS - 1);
	path = &paths->path[p];
	paths->next++;
	/* the generation as read before cg_index: a change meanwhile leaves this path stale */
	path->cgrp = (__u64)cgrp;
	path->serial_nr = serial;
	path->gen = *gen;
	path->nr = 0;
	collect_levels(p, (__u64)cgrp, BPF_CORE_READ(cgrp, level));
	return p;
}

/* Every member's count of this CPU's slice, to path p's i-th registered cgroup: one lookup. */
__noinline int credit_index(__u32 p, __u32 i, __u32 at_switch)
{
	struct cg_path *path = cpu_path(p);
	struct bpf_perf_event_value *acc;
	__u32 m, idx, zero = 0;
	struct slice *sl;

	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	if (!path || !sl)
		return 0;
	/*
	 * Masked, not compared: after a comparison the compiler scales a copy of i, whose bound
	 * 5.10's verifier does not know (credit_path() keeps i below the path's length).
	 */
	idx = path->idx[i & (LEADER_CG_MAX_LEVELS - 1)];
	acc = chunk_elem(&cg_accum, idx);
	if (!acc)
		return 0;
	for (m = 0; m < LEADER_MAX_MEMBERS && m < nr_members; m++)
		add_slice(&acc[m], sl, m, cg_count(sl, m, at_switch), true);
	return 0;
}

__noinline int credit_path(__u32 p, __u32 nr, __u32 at_switch)
{
	__u32 i;

	BOUNDED_FOR(i, nr, LEADER_CG_MAX_LEVELS)
		credit_index(p, i, at_switch);
	return 0;
}

/*
 * The slice goes to the cgroup it ran in and to every registered ancestor, as perf's cgroup
 * events count their descendants, once however many sessions count them.
 */
static void credit_cgroups(struct slice *sl, bool at_switch)
{
	struct cgroup *cgrp = (struct cgroup *)sl->start_cgroup;
	struct cg_path *path;
	int p;

	if (!cgrp)
		return;
	p = find_path(cgrp);
	path = p < 0 ? NULL : cpu_path(p);
	if (path)
		credit_path(p, path->nr, at_switch);
}

/*
 * Reads every member on this CPU and credits the slice since the last reading to the sessions
 * that count tid and to the registered cgroups it ran in. at_switch: called at a real switch
 * (tid is being switched out, next_css is the perf_event css of the task switched in), rather
 * than to bring the counts up to date before a read.
 */
static int account_slice(__u32 tid, bool at_switch, bool gone, __u64 next_css)
{
	__u32 zero = 0, m, cpu = bpf_get_smp_processor_id();
	struct cgroup_subsys_state *css;
	struct leader_state *st;
	struct slice *sl;

	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!sl || !st)
		return 0;
	for (m = 0; m < LEADER_MAX_MEMBERS && m < nr_members; m++) {
		struct bpf_perf_event_value val, *prev;
		__u32 key = m;

		prev = bpf_map_lookup_elem(&prev_readings, &key);
		if (!prev)
			return 0;
		if (bpf_perf_event_read_value(&events, m * nr_cpus + cpu, &val, sizeof(val))) {
			__builtin_memset(&sl->delta[m], 0, sizeof(sl->delta[m]));
			continue;
		}
		sl->delta[m].counter = val.counter - prev->counter;
		sl->delta[m].enabled = val.enabled - prev->enabled;
		sl->delta[m].running = val.running - prev->running;
		*prev = val;
	}
	{
		struct bpf_perf_event_value *diff = bpf_map_lookup_elem(&diff_readings, &zero);

		if (diff)
			*diff = sl->delta[0];
	}
	sl->tid = tid;
	sl->cpu = cpu;
	if (st->nr_cgroups)
		credit_cgroups(sl, at_switch);
	/* the next slice runs in the cgroup of the task switched in, or of the one running on */
	css = (struct cgroup_subsys_state *)(at_switch ? next_css : task_perf_css(
					     (struct task_struct *)bpf_get_current_task()));
	sl->start_css = (__u64)css;
	sl->start_cgroup = (__u64)BPF_CORE_READ(css, cgroup);
	sl->cg_pending = at_switch;
	sl->at_switch = at_switch;
	sl->gone = gone;
	__builtin_memset(&sl->cnt_slots, 0, sizeof(sl->cnt_slots));
	__builtin_memset(&sl->next_slots, 0, sizeof(sl->next_slots));
	if (prev_owner_members) {
		struct pending *owner = bpf_map_lookup_elem(&pending_owner, &zero);

		if (!owner)
			return 0;
		sl->cnt_slots = *owner;
	}
	/* no thread session: nothing to credit per slot, and no task in filter to forget */
	sl->nr_slots = st->nr_switch_slots ? st->nr_slots : 0;
	if (sl->nr_slots > LEADER_MAX_SESSIONS)
		sl->nr_slots = LEADER_MAX_SESSIONS;
	find_tid_slots(sl, st);
	credit_sessions(sl->nr_slots);
	if (prev_owner_members) {
		struct pending *owner = bpf_map_lookup_elem(&pending_owner, &zero);

		/* A read consumes the pending increment; a switch makes a new one. */
		if (owner)
			*owner = sl->next_slots;
	}
	if (gone)
		forget_task(tid, sl->nr_slots);
	return 0;
}

/*
 * on_exec's flush runs with interrupts on, so a test run's IPI (another session reading) can
 * interrupt it on the same CPU: the interrupting reading leaves the per-CPU state alone and
 * returns LEADER_SYNC_BUSY, and user space runs it again.
 *
 * Global (not static, not inlined): the verifier checks a global function once per program,
 * where it checks a static one again at each of its five calls. That halves what it goes
 * through to load a leader (about 0.75 s of guest time to 0.37 s per leader in the arm64 guest).
 */
__noinline int account(__u32 tid, __u32 at_switch, __u32 gone, __u64 next_css)
{
	struct slice *sl;
	__u32 zero = 0;
	int ret;

	sl = bpf_map_lookup_elem(&slice_buf, &zero);
	if (!sl)
		return 0;
	if (sl->busy)
		return LEADER_SYNC_BUSY;
	sl->busy = 1;
	ret = account_slice(tid, at_switch, gone, next_css);
	sl->busy = 0;
	return ret;
}

/*
 * Runs at each switch as the task going out, and by BPF_PROG_TEST_RUN on each CPU before a
 * session reads (then the slice so far belongs to whatever runs on that CPU now). The context
 * is read with bpf_probe_read_kernel(), never directly: a direct access would make the kernel
 * refuse upstream perf's test runs, which pass no context. While no session counts threads (and
 * no upstream follower may be attached) a switch reads only when it changes the perf cgroup
 * while cgroups are registered, as perf switches cgroup events only then; else not at all.
 */
SEC("raw_tp/sched_switch")
int on_switch(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 args[3] = { 0 };	/* preempt, prev, next */
	struct leader_state *st;
	__u64 next_css;
	struct slice *sl;
	__u32 zero = 0;

	if (bpf_probe_read_kernel(args, sizeof(args), ctx)) {
		foreign_syncs = 1;
		return account(tid, false, false, 0);
	}
	if (args[0] == LEADER_SYNC_MAGIC) {
		struct bpf_perf_event_value hits;

		/* a lookup that keeps inner_ids among this program's maps, where user space finds it */
		bpf_map_lookup_elem(&inner_ids, &zero);
		/* and a read of no consequence that keeps the exit probe's event */
		bpf_perf_event_read_value(&exit_probe_hold, 0, &hits, sizeof(hits));
		return account(tid, false, false, 0);
	}
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st || (!foreign_syncs && !st->nr_switch_slots && !st->nr_cgroups))
		return 0;
	next_css = task_perf_css((struct task_struct *)args[2]);
	if (!foreign_syncs && !st->nr_switch_slots) {
		sl = bpf_map_lookup_elem(&slice_buf, &zero);
		/* the open slice goes on in the same cgroup */
		if (!sl || sl->start_css == next_css)
			return 0;
	}
	return account(tid, true, current_is_gone(), next_css);
}

/*
 * A task moving itself to another cgroup (writing its pid to cgroup.procs, as cgexec and
 * systemd-run do): its slice so far belongs to the cgroup it leaves, as in perf, which switches
 * the CPU's cgroup at the move. Another task's move takes effect at its next switch.
 */
SEC("tp_btf/cgroup_attach_task")
int BPF_PROG(on_cgroup_move, struct cgroup *dst, const char *path, struct task_struct *task,
	     bool threadgroup)
{
	struct leader_state *st;
	__u32 zero = 0;

	if ((__u64)task != bpf_get_current_task())
		return 0;
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st || !st->nr_cgroups)
		return 0;
	account(task->pid, false, false, 0);
	return 0;
}

/*
 * perf stops counting a task in perf_event_exit_task(), early in do_exit() (and at an exec that
 * drops privileges): what the task runs after it, freeing its address space above all, is
 * nobody's count. Its slice up to here is credited, then it leaves every filter, so that the
 * rest, up to its last switch, is not (on_switch's current_is_gone() is the fallback where
 * neither program below can run, from the first switch past that point on). Only while thread
 * or cgroup sessions are active: a read (not at a switch) as far as the pending context-switch
 * increment goes.
 */
static int stop_counting_exiting(struct task_struct *task)
{
	struct leader_state *st;
	__u32 zero = 0;

	/* an untyped comparison: the compiler would read the pid through task otherwise */
	if ((__u64)task != bpf_get_current_task())
		return 0;
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st || !st->nr_switch_slots)
		return 0;
	account((__u32)bpf_get_current_pid_tgid(), false, true, 0);
	return 0;
}

/*
 * Attached by hand (leader_create.c), never by the skeleton: to perf_event_exit_task(), or where
 * that cannot be probed, to the return of taskstats_exit() right before it. Both run in the
 * exiting task.
 */
SEC("kprobe")
int BPF_KPROBE(on_exit_task)
{
	return stop_counting_exiting((struct task_struct *)bpf_get_current_task());
}

/*
 * Since Linux 6.16 this tracepoint fires right before perf_event_exit_task(), with nothing
 * between them (its event has group_dead); before, it came after exit_mm(), and the files were
 * closed before perf_event_exit_task(). leader_create.c loads it where it is exact, and where
 * no probe attaches (no kprobes).
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_process_exit, struct task_struct *task)
{
	return stop_counting_exiting(task);
}

/*
 * A session in slot waiting for process tgid's exec starts counting here, where perf's
 * enable_on_exec would. What ran before the exec belongs to the sessions already counting:
 * flushed says whether it has been credited. Returns flushed after this slot.
 */
__noinline int start_on_exec(__u32 slot, __u32 tgid, __u32 tid, __u32 flushed)
{
	struct leader_session *s;

	if (slot >= LEADER_MAX_SESSIONS)
		return flushed;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE || s->exec_tgid != tgid)
		return flushed;
	if (!flushed)
		account(tid, false, false, 0);
	s->exec_tgid = 0;
	s->enabled = 1;
	return 1;
}

__noinline int start_sessions_on_exec(__u32 tgid, __u32 tid, __u32 nr_slots)
{
	__u32 slot, flushed = 0;

	BOUNDED_FOR(slot, nr_slots, LEADER_MAX_SESSIONS)
		flushed = start_on_exec(slot, tgid, tid, flushed);
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_exec, struct task_struct *task, const char *comm)
{
	struct leader_state *st;
	__u32 zero = 0;

	/* the untyped comparison of stop_counting_exiting() */
	if ((__u64)task != bpf_get_current_task())
		return 0;
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st)
		return 0;
	start_sessions_on_exec(task->tgid, task->pid, st->nr_slots);
	return 0;
}

/* A new task joins the filter of the session in slot if it follows its parent's children. */
__noinline int follow_task(__u32 slot, __u32 parent, __u32 tid)
{
	struct leader_session *s;
	__u8 one = 1;
	void *set;

	if (slot >= LEADER_MAX_SESSIONS)
		return 0;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE || s->filter != FILTER_TID || !s->inherit)
		return 0;
	set = bpf_map_lookup_elem(&filter, &slot);
	if (!set || !parent || !bpf_map_lookup_elem(set, &parent))
		return 0;
	/* a full set leaves the child out: the session's limit (man bperf) */
	if (!bpf_map_update_elem(set, &tid, &one, BPF_NOEXIST))
		filter_changed();
	return 0;
}

__noinline int follow_in_sessions(__u32 parent, __u32 tid, __u32 nr_slots)
{
	__u32 slot;

	BOUNDED_FOR(slot, nr_slots, LEADER_MAX_SESSIONS)
		follow_task(slot, parent, tid);
	return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(on_newtask, struct task_struct *task, __u64 clone_flags)
{
	struct leader_state *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st)
		return 0;
	/* the parent is the current task */
	follow_in_sessions((__u32)bpf_get_current_pid_tgid(), task->pid, st->nr_slots);
	return 0;
}

/*
 * The SPDX line's license. The kernel wants a GPL-compatible one for the GPL-only helpers:
 * bpf_get_current_task(_btf)(), bpf_probe_read_kernel(), bpf_perf_event_read_value().
 */
char LICENSE[] SEC("license") = "GPL";
