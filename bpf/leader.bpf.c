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
 * Set by the first test run without a context: upstream perf's, whose followers add
 * diff_readings at every switch from then on, so every switch must read.
 */
__u32 foreign_syncs;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
	__uint(map_flags, BPF_F_PRESERVE_ELEMS);
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, LEADER_MAX_MEMBERS);
} prev_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} diff_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct leader_session));
	__uint(max_entries, LEADER_MAX_SESSIONS);
} sessions SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, LEADER_MAX_SESSIONS * LEADER_MAX_MEMBERS);
} accum SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(struct leader_filter_key));
	__uint(value_size, sizeof(struct leader_filter_value));
	__uint(max_entries, LEADER_FILTER_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct leader_state));
	__uint(max_entries, 1);
} leader_state SEC(".maps");

/* The owner of the pending context-switch slice on each CPU (credit_previous_owner). */
struct owner {
	__u32 tid;
	__u32 tgid;
	__u64 when;	/* the switch that made the pending increment (bpf_ktime_get_ns) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct owner));
	__uint(max_entries, 1);
} last_owner SEC(".maps");

/*
 * When each slot's session started counting at its workload's exec. A pending increment on
 * another CPU from before the exec (the workload blocked there before exec, then ran elsewhere)
 * is not its: on_exec can only flush its own CPU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
	__uint(max_entries, LEADER_MAX_SESSIONS);
} exec_start SEC(".maps");

/*
 * One slice of every member, and whom it belongs to, handed to the per-session loop. The time
 * (enabled, running) is always the running task's; the counts of prev_owner_members are the
 * previous owner's (cnt_tid, cnt_tgid).
 */
struct slice {
	struct bpf_perf_event_value delta[LEADER_MAX_MEMBERS];
	__u32 cpu;
	__u32 tid;
	__u32 tgid;
	__u32 cnt_tid;
	__u32 cnt_tgid;
	__u32 nr_slots;
	__u64 cnt_when;	/* when the owner's switch was */
	__u32 busy;	/* a reading is in progress on this CPU (see account()) */
	__u32 dead;	/* perf no longer counts the task going out (task_is_gone()) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct slice));
	__uint(max_entries, 1);
} slice_buf SEC(".maps");

/*
 * perf stops counting an exiting task in perf_event_exit_task(), just before exit_notify() sets
 * exit_state: from the first switch with exit_state set the task is no longer counted, but at
 * the switches between its exit tracepoint and then (a task preempted while it exits) it still
 * is. So an exited task is forgotten there, not earlier.
 */
static bool task_is_gone(struct task_struct *task)
{
	return BPF_CORE_READ(task, exit_state) != 0;
}

static bool id_in_filter(__u32 slot, __u32 id, bool *exited)
{
	struct leader_filter_key key = { .slot = slot, .id = id };
	struct leader_filter_value *val;

	val = bpf_map_lookup_elem(&filter, &key);
	if (!val)
		return false;
	*exited = val->exited;
	return true;
}

static bool slice_is_for(struct leader_session *s, __u32 slot, __u32 cpu, __u32 tid, __u32 tgid,
			 bool *exited)
{
	__u32 word = cpu / 64;

	*exited = false;
	switch (s->filter) {
	case FILTER_GLOBAL:
		return true;
	case FILTER_CPU:
		if (word >= LEADER_MAX_CPUS / 64)
			return false;
		return s->cpus[word] & (1ull << (cpu % 64));
	case FILTER_TID:
		return tid && id_in_filter(slot, tid, exited);
	case FILTER_TGID:
		return tgid && id_in_filter(slot, tgid, exited);
	}
	return false;
}

static bool is_task_filter(__u32 filter)
{
	return filter == FILTER_TID || filter == FILTER_TGID;
}

/* bpf_loop wants its context on the stack: it carries the per-CPU slice. */
struct credit_ctx {
	struct slice *sl;
};

static long credit_session(__u32 slot, void *ctx)
{
	struct slice *sl = ((struct credit_ctx *)ctx)->sl;
	struct leader_session *s;
	bool exited, owner_exited, time_ok, count_ok;
	__u32 m;

	if (slot >= sl->nr_slots)
		return 1;
	s = bpf_map_lookup_elem(&sessions, &slot);
	/* -a/-C sessions take differences of prev_readings themselves */
	if (!s || s->state != SLOT_ACTIVE || !s->enabled || !is_task_filter(s->filter))
		return 0;
	time_ok = slice_is_for(s, slot, sl->cpu, sl->tid, sl->tgid, &exited);
	count_ok = time_ok;
	if (prev_owner_members) {
		__u64 *start = bpf_map_lookup_elem(&exec_start, &slot);

		count_ok = slice_is_for(s, slot, sl->cpu, sl->cnt_tid, sl->cnt_tgid, &owner_exited) &&
			   !(start && sl->cnt_when < *start);
	}
	if (!time_ok && !count_ok)
		return 0;
	for (m = 0; m < LEADER_MAX_MEMBERS && m < nr_members; m++) {
		__u32 key = slot * LEADER_MAX_MEMBERS + m;
		struct bpf_perf_event_value *acc = bpf_map_lookup_elem(&accum, &key);

		if (!acc)
			continue;
		if (prev_owner_members & (1u << m) ? count_ok : time_ok)
			acc->counter += sl->delta[m].counter;
		if (time_ok) {
			acc->enabled += sl->delta[m].enabled;
			acc->running += sl->delta[m].running;
		}
	}
	if (!time_ok)
		return 0;
	/* With prev_owner_members an exited task is forgotten in forget_exited(). */
	if (exited && sl->dead && !prev_owner_members) {
		struct leader_filter_key key = {
			.slot = slot,
			.id = s->filter == FILTER_TID ? sl->tid : sl->tgid,
		};

		bpf_map_delete_elem(&filter, &key);
	}
	return 0;
}

/*
 * A task's final switch comes after perf stops counting it (perf_event_exit_task), so with
 * prev_owner_members the increment that switch makes is not the task's: forget the task
 * as it switches out for the last time.
 */
struct forget_ctx {
	__u32 tid;
	__u32 tgid;
	__u32 nr_slots;
};

static long forget_exited(__u32 slot, void *ctx)
{
	struct forget_ctx *fc = ctx;
	struct leader_filter_key key = { .slot = slot };
	struct leader_filter_value *val;
	struct leader_session *s;

	if (slot >= fc->nr_slots)
		return 1;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE || !is_task_filter(s->filter))
		return 0;
	key.id = s->filter == FILTER_TID ? fc->tid : fc->tgid;
	val = bpf_map_lookup_elem(&filter, &key);
	if (val && val->exited)
		bpf_map_delete_elem(&filter, &key);
	return 0;
}

/*
 * Reads every member on this CPU and credits the slice since the last reading to the sessions
 * that count (tid, tgid). at_switch: called at a real switch (the task is being switched out),
 * rather than to bring the counts up to date before a read.
 */
static int account_slice(__u32 tid, __u32 tgid, bool at_switch, bool dead)
{
	__u32 zero = 0, m, cpu = bpf_get_smp_processor_id();
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
	sl->cpu = cpu;
	sl->dead = dead;
	sl->tid = sl->cnt_tid = tid;
	sl->tgid = sl->cnt_tgid = tgid;
	if (prev_owner_members) {
		struct owner *last = bpf_map_lookup_elem(&last_owner, &zero);

		if (!last)
			return 0;
		sl->cnt_tid = last->tid;
		sl->cnt_tgid = last->tgid;
		sl->cnt_when = last->when;
		last->when = bpf_ktime_get_ns();
		/* A read consumes the pending increment; a switch makes a new one. */
		last->tid = at_switch ? tid : 0;
		last->tgid = at_switch ? tgid : 0;
	}
	sl->nr_slots = st->nr_slots;
	if (sl->nr_slots > LEADER_MAX_SESSIONS)
		sl->nr_slots = LEADER_MAX_SESSIONS;
	{
		struct credit_ctx cc = { .sl = sl };

		bpf_loop(sl->nr_slots, credit_session, &cc, 0);
	}
	if (prev_owner_members && dead) {
		struct forget_ctx fc = { .tid = tid, .tgid = tgid, .nr_slots = sl->nr_slots };

		bpf_loop(sl->nr_slots, forget_exited, &fc, 0);
	}
	return 0;
}

/*
 * on_exec's flush runs with interrupts on, so a test run's IPI (another session reading) can
 * interrupt it on the same CPU: the interrupting reading leaves the per-CPU state alone and
 * returns LEADER_SYNC_BUSY, and user space runs it again.
 */
static int account(__u32 tid, __u32 tgid, bool at_switch, bool dead)
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
	ret = account_slice(tid, tgid, at_switch, dead);
	sl->busy = 0;
	return ret;
}

/*
 * Runs at each switch as the task going out, and by BPF_PROG_TEST_RUN on each CPU before a
 * session reads (then the slice so far belongs to whatever runs on that CPU now). The context
 * is read with bpf_probe_read_kernel(), never directly: a direct access would make the kernel
 * refuse upstream perf's test runs, which pass no context.
 */
SEC("raw_tp/sched_switch")
int on_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct leader_state *st;
	__u64 args[2] = { 0 };
	bool at_switch;
	__u32 zero = 0;

	if (bpf_probe_read_kernel(args, sizeof(args), ctx)) {
		foreign_syncs = 1;
		at_switch = false;
	} else {
		at_switch = args[0] != LEADER_SYNC_MAGIC;
	}
	if (at_switch && !foreign_syncs) {
		/* Nobody needs this switch's slice: no session counts threads. */
		st = bpf_map_lookup_elem(&leader_state, &zero);
		if (!st || !st->nr_task_slots)
			return 0;
	}
	return account(task->pid, task->tgid, at_switch, at_switch && task_is_gone(task));
}

/* Sessions waiting for their workload's exec start here, where perf's enable_on_exec would. */
struct exec_ctx {
	__u32 tgid;
	__u32 nr_slots;
	bool flushed;
	__u32 tid;
};

static long start_on_exec(__u32 slot, void *ctx)
{
	struct exec_ctx *ec = ctx;
	struct leader_session *s;

	if (slot >= ec->nr_slots)
		return 1;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE || s->exec_tgid != ec->tgid)
		return 0;
	if (!ec->flushed) {
		/* What ran before the exec belongs to the sessions already counting. */
		account(ec->tid, ec->tgid, false, false);
		ec->flushed = true;
	}
	{
		__u64 now = bpf_ktime_get_ns();

		bpf_map_update_elem(&exec_start, &slot, &now, BPF_ANY);
	}
	s->exec_tgid = 0;
	s->enabled = 1;
	return 0;
}

SEC("tp_btf/task_rename")
int BPF_PROG(on_exec, struct task_struct *task, const char *comm)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct exec_ctx ec = { 0 };
	struct leader_state *st;
	__u32 zero = 0;

	if (task != cur)
		return 0;
	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st)
		return 0;
	ec.tgid = cur->tgid;
	ec.tid = cur->pid;
	ec.nr_slots = st->nr_slots < LEADER_MAX_SESSIONS ? st->nr_slots : LEADER_MAX_SESSIONS;
	bpf_loop(ec.nr_slots, start_on_exec, &ec, 0);
	return 0;
}

struct task_ctx {
	__u32 parent_tid;
	__u32 parent_tgid;
	__u32 tid;
	__u32 tgid;
	__u32 nr_slots;
	bool exiting;
};

static long follow_task(__u32 slot, void *ctx)
{
	struct leader_filter_value val = { 0 };
	struct leader_filter_key key = { .slot = slot };
	struct task_ctx *tc = ctx;
	struct leader_session *s;
	struct leader_filter_value *cur;

	if (slot >= tc->nr_slots)
		return 1;
	s = bpf_map_lookup_elem(&sessions, &slot);
	if (!s || s->state != SLOT_ACTIVE)
		return 0;
	if (tc->exiting) {
		/* A thread of a counted process exiting does not end the process. */
		if (s->filter == FILTER_TGID && tc->tid != tc->tgid)
			return 0;
		key.id = s->filter == FILTER_TID ? tc->tid : tc->tgid;
		cur = bpf_map_lookup_elem(&filter, &key);
		if (cur)
			cur->exited = 1;
		return 0;
	}
	if (!s->inherit)
		return 0;
	if (s->filter == FILTER_TID) {
		key.id = tc->parent_tid;
		if (!bpf_map_lookup_elem(&filter, &key))
			return 0;
		key.id = tc->tid;
	} else if (s->filter == FILTER_TGID && tc->tgid != tc->parent_tgid) {
		key.id = tc->parent_tgid;
		if (!bpf_map_lookup_elem(&filter, &key))
			return 0;
		key.id = tc->tgid;
	} else {
		return 0;
	}
	bpf_map_update_elem(&filter, &key, &val, BPF_NOEXIST);
	return 0;
}

static int walk_sessions(struct task_ctx *tc)
{
	struct leader_state *st;
	__u32 zero = 0;

	st = bpf_map_lookup_elem(&leader_state, &zero);
	if (!st)
		return 0;
	tc->nr_slots = st->nr_slots < LEADER_MAX_SESSIONS ? st->nr_slots : LEADER_MAX_SESSIONS;
	bpf_loop(tc->nr_slots, follow_task, tc, 0);
	return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(on_newtask, struct task_struct *task, __u64 clone_flags)
{
	struct task_struct *parent = bpf_get_current_task_btf();
	struct task_ctx tc = {
		.parent_tid = parent->pid,
		.parent_tgid = parent->tgid,
		.tid = task->pid,
		.tgid = task->tgid,
	};

	return walk_sessions(&tc);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *task)
{
	struct task_ctx tc = {
		.tid = task->pid,
		.tgid = task->tgid,
		.exiting = true,
	};

	return walk_sessions(&tc);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
