// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared-counter leader. See leader.h for the maps. Everything here runs on one CPU with
 * preemption off: per-CPU maps need no locking, and the session table is only read. This file
 * has the readings and the programs; leader_slots.bpf.h the sessions' crediting,
 * leader_cgroups.bpf.h the cgroups'.
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

#include "leader_slots.bpf.h"
#include "leader_cgroups.bpf.h"

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

		/* a lookup that keeps inner_ids among this program's maps (user space finds it) */
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
