/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types and names shared by the shared-counter leader (leader.bpf.c) and user space.
 *
 * One leader counts one event (or one event group) on every CPU. While a session counts threads
 * (-p, -t, a workload), at each sched_switch it reads this CPU's counters, works out how far they
 * moved since its last reading on this CPU, and adds that slice to every such session whose
 * target the slice belongs to. While cgroups are registered (cg_index), it reads at the switches
 * that change the CPU's perf cgroup and adds the slice to the sums of the cgroup the slice ran in
 * and of each registered ancestor, once however many sessions count them. Sessions counting CPUs
 * (-a, -C) or cgroups (-G) need no work of their own at a switch: they take differences of
 * prev_readings or of cg_accum between their own reads. Once upstream perf's followers may be
 * attached it also leaves the slice of the first event in diff_readings at every switch, as
 * perf's own leader does.
 *
 * Maps (names as in the object, user space finds them by name through the program's map ids;
 * keys are __u32 where not named). A leader's kernel memory grows with what is registered: the
 * maps sized by slots, threads or cgroups are maps in maps (ARRAY_OF_MAPS, Linux 4.12), whose
 * inner maps user space makes as it needs them, under the attr map's lock, and puts in the
 * outer map, which holds them from then on (src/counters/leader_maps.c). An inner array has the
 * size of the template its outer map was made with (the kernel checks that); an inner hash any
 * size. Sizes: P possible CPUs, N members, S = 24 N (a multiple of 8: per-CPU values are
 * rounded up to 8 bytes).
 *   events         PERF_EVENT_ARRAY[N * P], key member * P + cpu, value perf event fd,
 *                  BPF_F_PRESERVE_ELEMS (the fds outlive the process that installed them)
 *   prev_readings  PERCPU_ARRAY[N] of struct bpf_perf_event_value: the last reading,
 *                  monotonic (-a/-C sessions read their counts from it): S P bytes
 *   diff_readings  PERCPU_ARRAY[1] of struct bpf_perf_event_value: the first member's last
 *                  slice (perf's follower reads it)
 *   sessions       ARRAY[LEADER_MAX_SESSIONS] of struct leader_session (21 KiB)
 *   accum          ARRAY_OF_MAPS[LEADER_MAX_SESSIONS], key slot: a thread slot's sums, a
 *                  PERCPU_ARRAY[N] of struct bpf_perf_event_value keyed by member (S P bytes),
 *                  made the first time the slot is claimed for a FILTER_TID session and kept
 *                  (zeroed at each claim) for its next ones (-a/-C and -G sessions use none)
 *   filter         ARRAY_OF_MAPS[LEADER_MAX_SESSIONS], key slot: a thread slot's threads, a
 *                  HASH tid -> u8 1 (BPF_F_NO_PREALLOC: the programs add the children) made
 *                  with the slot's sums: LEADER_FILTER_MIN entries, or twice the session's
 *                  threads rounded up to a power of 2, at most LEADER_FILTER_MAX (16 bytes of
 *                  buckets an entry: 64 KiB at least); emptied at release, kept for the slot's
 *                  next sessions (replaced by a bigger one for more threads). A child that
 *                  finds it full is not counted
 *   cg_index       ARRAY_OF_MAPS[1]: at key 0 a HASH __u64 cgroup id (kernfs id) -> struct
 *                  leader_cg, the registered cgroups (preallocated: only user space writes
 *                  it), made with the first one, of LEADER_CG_INDEX_MIN entries; a full one is
 *                  replaced by a copy twice its size, up to LEADER_MAX_CGROUPS (about 100
 *                  bytes an entry). One lookup whatever the number registered
 *   cg_accum       ARRAY_OF_MAPS[LEADER_CG_CHUNKS], key idx >> LEADER_CG_CHUNK_SHIFT: chunks
 *                  of LEADER_CG_CHUNK indices, each a PERCPU_ARRAY[LEADER_CG_CHUNK], key idx %
 *                  LEADER_CG_CHUNK, of N struct bpf_perf_event_value (value size set before
 *                  load, so no BTF type: raw bytes): every member's sums of the slices that ran
 *                  in cgroup idx or below it, monotonic (sessions take differences). A chunk
 *                  (64 S P bytes: 1.1 MiB for 3 members at 256 CPUs) is made when its first
 *                  index is handed out, with as many more as there are before it (a batch:
 *                  1, 1, 2, 4, ... chunks), so the chunks hold at most twice the indices in use;
 *                  they stay while the leader lives
 *   cg_users       ARRAY_OF_MAPS[LEADER_CG_CHUNKS], chunks as cg_accum's (made with them), each
 *                  an ARRAY[LEADER_CG_CHUNK] of struct leader_cg_users: which cgroup an index is
 *                  for (0: free) and which slots use it; user space's bookkeeping, which the
 *                  leader checks an index against before adding to it
 *   leader_state   ARRAY[1] of struct leader_state (slot watermark, ids of the helper links)
 *   filter_gen     ARRAY[LEADER_NR_GENS] of __u64: the generations of filter and of the slot
 *                  table's thread slots. LEADER_GEN_BPF: the programs add one after each change
 *                  they make to filter (a child joins, an exiting task leaves).
 *                  LEADER_GEN_USER: user space writes a fresh non-zero value after each change
 *                  it makes to filter or to a slot (claim, release), never its old value plus
 *                  one (see leader_slots.c). LEADER_GEN_CG: the same, after each change
 *                  to cg_index (a cgroup registered or freed): each CPU's cg_paths go stale
 *   pending_owner  PERCPU_ARRAY[1] of struct pending (a bitmap of slots): the sessions the
 *                  context-switch increment pending on this CPU belongs to
 *   slice_buf      PERCPU_ARRAY[1] of struct slice: the slice being credited (too big for the
 *                  BPF stack), with what is kept from one reading to the next on this CPU: the
 *                  reading-in-progress flag and the perf cgroup the open slice runs in (296 P)
 *   task_slots     ARRAY_OF_MAPS[1]: at key 0, while two thread slots or more are active (with
 *                  one a lookup in filter costs less), a PERCPU_ARRAY[LEADER_TASK_SLOTS_ENTRIES]
 *                  of struct task_slots (40 bytes: 10 KiB P), key tid's low bits: per CPU, the
 *                  thread slots that count a recent thread, with the tid and the filter_gen
 *                  values they were found at (stale once either moved)
 *   cg_paths       PERCPU_ARRAY[1] of struct cg_paths: per CPU, the registered cgroups on
 *                  the paths of the last LEADER_CG_PATHS cgroups slices ran in (1.1 KiB P)
 *   exit_probe_hold  PERF_EVENT_ARRAY[1], BPF_F_PRESERVE_ELEMS: the exit probe's kprobe event
 *                  where the kernel has no BPF links of perf events (before 5.15), which keeps
 *                  the probe attached while the leader lives; else empty
 *   inner_ids      ARRAY[LEADER_NR_INNER_IDS] of __u32: the id of each inner map above, at
 *                  LEADER_IDS_<map> + key (0: none), which user space finds them by: before
 *                  Linux 6.8 a lookup in a map of maps from user space waits for an RCU grace
 *                  period. User space's alone (on_switch names it, so that it is among the
 *                  program's maps). 9 KiB
 *   leader_b.rodata  the constants set before load: nr_members, nr_cpus, prev_owner_members,
 *                  have_task_btf (kernel_features.h), attr_key, which a session compares
 *                  with its own key before adopting a leader, and member_attrs, each
 *                  member's attr (for sessions that find the leader under a member key)
 *   leader_b.bss   foreign_syncs (upstream perf's followers may be attached)
 * So a leader with nothing registered takes under 1.6 KiB + 48 N bytes per possible CPU and
 * about 60 KiB of tables, and each cgroup about S P bytes more, by chunks of 64
 * (test_leader_memory checks the formula, bench/mapmem prints the figures). An inner map taken
 * out of its outer map is closed after an RCU grace period (leader_inner_release()): a program
 * that found it before may still be using it.
 * pending_owner, slice_buf, cg_paths, the per-CPU cache in task_slots and .bss are the
 * programs' own: bperf never touches them but to make and drop task_slots' cache
 * (test_leader_load reads foreign_syncs); struct pending, slice, task_slots and cg_paths are in
 * leader.bpf.c.
 */
#ifndef BPERF_BPF_LEADER_H
#define BPERF_BPF_LEADER_H

#define LEADER_READING_KEY 0
#define LEADER_MAX_SESSIONS 128
#define LEADER_MAX_MEMBERS 8
#define LEADER_MAX_CPUS 1024
/*
 * A thread session's filter holds this many threads at once, or twice those it starts with if
 * more, up to LEADER_FILTER_MAX (rounded up to a power of 2).
 */
#define LEADER_FILTER_MIN 4096
#define LEADER_FILTER_MAX 65536
/* entries of each CPU's task_slots cache, a power of 2 (10 KB per CPU) */
#define LEADER_TASK_SLOTS_ENTRIES 256
#define LEADER_TASK_SLOTS_VALUE 40	/* sizeof(struct task_slots) in leader.bpf.c */
/* filter_gen's elements */
#define LEADER_GEN_BPF 0
#define LEADER_GEN_USER 1
#define LEADER_GEN_CG 2
#define LEADER_NR_GENS 3
/*
 * Registered cgroups per leader (cg_accum and cg_users grow by chunks of LEADER_CG_CHUNK
 * indices, whose number doubles; cg_index doubles from LEADER_CG_INDEX_MIN), and how many
 * levels up from a slice's cgroup the leader looks for registered ones (a cgroup deeper than
 * that does not count in its topmost ancestors).
 */
#define LEADER_MAX_CGROUPS 65536
#define LEADER_CG_CHUNK_SHIFT 6
#define LEADER_CG_CHUNK (1u << LEADER_CG_CHUNK_SHIFT)
#define LEADER_CG_CHUNKS (LEADER_MAX_CGROUPS / LEADER_CG_CHUNK)
#define LEADER_CG_INDEX_MIN 1024
/* inner_ids: where each map in map's keys start */
#define LEADER_IDS_ACCUM 0
#define LEADER_IDS_FILTER (LEADER_IDS_ACCUM + LEADER_MAX_SESSIONS)
#define LEADER_IDS_CG_INDEX (LEADER_IDS_FILTER + LEADER_MAX_SESSIONS)
#define LEADER_IDS_CG_ACCUM (LEADER_IDS_CG_INDEX + 1)
#define LEADER_IDS_CG_USERS (LEADER_IDS_CG_ACCUM + LEADER_CG_CHUNKS)
#define LEADER_IDS_TASK_SLOTS (LEADER_IDS_CG_USERS + LEADER_CG_CHUNKS)
#define LEADER_NR_INNER_IDS (LEADER_IDS_TASK_SLOTS + 1)
#define LEADER_CG_MAX_LEVELS 64
/* cgroups whose paths each CPU keeps (cg_paths): a switch back and forth needs 2 */
#define LEADER_CG_PATHS 4
/* Room for the attr map key a leader counts (struct perf_event_attr, any version). */
#define LEADER_KEY_SIZE 256
/* on_switch's return value when a test run found another reading in progress on its CPU */
#define LEADER_SYNC_BUSY 1
/*
 * args[0] of a session's test run. A real switch has 0 or 1 there (preempt); upstream perf's
 * test runs pass no context at all, which the leader takes as a sign that its followers may be
 * attached.
 */
#define LEADER_SYNC_MAGIC 0x62706572665359ull

#define LEADER_PROG_NAME "on_switch"
#define LEADER_SESSIONS_MAP "sessions"
#define LEADER_ACCUM_MAP "accum"
#define LEADER_FILTER_MAP "filter"
#define LEADER_STATE_MAP "leader_state"
#define LEADER_DIFF_MAP "diff_readings"
#define LEADER_PREV_MAP "prev_readings"
#define LEADER_GEN_MAP "filter_gen"
#define LEADER_CG_INDEX_MAP "cg_index"
#define LEADER_CG_ACCUM_MAP "cg_accum"
#define LEADER_CG_USERS_MAP "cg_users"
#define LEADER_TASK_SLOTS_MAP "task_slots"
#define LEADER_INNER_IDS_MAP "inner_ids"

/*
 * Bumped whenever the maps' layout or a slot's meaning changes: a leader of another version is
 * not shared (6: filter_gen, which every change to the filters must bump; 7: per-cgroup sums;
 * 8: member_attrs in .rodata; 9: one cg_accum element per cgroup, LEADER_GEN_CG; 10: maps in
 * maps that grow with the slots, threads and cgroups registered, inner_ids; 11: bounded loops,
 * have_task_btf in .rodata, exit_probe_hold).
 */
#define LEADER_ABI_VERSION 11

/*
 * Marks in perf_event_attr's __reserved_2 (which the kernel requires to be zero, so upstream
 * perf never files or looks up such a key): a group's key (its first member's attr, a hash of
 * all members in sig_data), and a member's key (a member's attr, naming the group's leader, so
 * that a session of that one event shares the group's leader and reads its member).
 */
#define GROUP_KEY_MARK 0xb9e6
#define MEMBER_KEY_MARK 0xb9e7

enum leader_slot_state {
	SLOT_FREE = 0,
	SLOT_ACTIVE = 1,
};

enum leader_filter_type {
	FILTER_CPU = 2,	   /* -a, -C: every task on the listed CPUs */
	FILTER_TID = 3,	   /* -p, -t, the workload: the listed threads (and their children) */
	/* -G, --for-each-cgroup: tasks of a cgroup or below on the listed CPUs (cg_accum) */
	FILTER_CGROUP = 4,
};

struct leader_session {
	__u32 state;	   /* enum leader_slot_state */
	__u32 filter;	   /* enum leader_filter_type */
	__u32 enabled;	   /* counting now (enable/disable, -D) */
	__u32 inherit;	   /* follow children (not -i) */
	__u32 exec_tgid;   /* non-zero: start counting when this process execs */
	__u32 owner_pid;   /* the session's process, for liveness checks */
	__u64 owner_start; /* its start time (/proc stat field 22), against pid reuse */
	__u64 cgroup_id;   /* FILTER_CGROUP: the cgroup's kernfs id (its directory's inode) */
	__u64 cpus[LEADER_MAX_CPUS / 64]; /* FILTER_CPU, FILTER_CGROUP */
};

/* cg_index's value: the cgroup's index in cg_accum (and cg_users) */
struct leader_cg {
	__u32 idx;
	__u32 pad;
};

/* cg_users: the cgroup an index is for (0: the index is free) and the slots using it */
struct leader_cg_users {
	__u64 id;
	__u64 slots[LEADER_MAX_SESSIONS / 64];
};

struct leader_state {
	__u32 abi_version;
	__u32 nr_slots;	   /* slots in use are below this: the loop bound */
	__u32 nr_members;
	__u32 nr_cpus;
	__u32 exec_link_id;	/* the helper programs' links, so every session can hold them */
	__u32 newtask_link_id;
	__u32 cgroup_link_id;
	/* active thread slots: without any, a switch reads nothing unless the cgroup changes */
	__u32 nr_switch_slots;
	/* registered cgroups: without any, a switch between cgroups reads nothing either */
	__u32 nr_cgroups;
	__u32 exit_link_id;	/* on_process_exit or on_exit_task, 0 where neither attaches */
	__u32 cg_cursor;	/* user space's: every index below it is in use */
};

#endif
