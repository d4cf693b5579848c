/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A minimal, hand-written stand-in for the bpftool-generated vmlinux.h.
 *
 * Why: BPF objects must build the same way on every host, whatever kernel the build machine runs
 * (or lacks). Only what bperf's BPF programs use is declared here. Kernel-internal structures carry
 * preserve_access_index, so libbpf's CO-RE relocates each field by name against the running
 * kernel's BTF at load time: the field order and the absence of other fields do not matter.
 * UAPI structures (stable ABI) are declared plainly.
 *
 * `make GEN_VMLINUX_H=1` replaces this file with a full dump of /sys/kernel/btf/vmlinux; do not
 * commit that dump.
 */
#ifndef __VMLINUX_H__
#define __VMLINUX_H__

/* ---- integer types ---------------------------------------------------------------------- */

typedef signed char __s8;
typedef unsigned char __u8;
typedef short __s16;
typedef unsigned short __u16;
typedef int __s32;
typedef unsigned int __u32;
typedef long long __s64;
typedef unsigned long long __u64;

typedef __s8 s8;
typedef __u8 u8;
typedef __s16 s16;
typedef __u16 u16;
typedef __s32 s32;
typedef __u32 u32;
typedef __s64 s64;
typedef __u64 u64;

typedef __u16 __be16;
typedef __u32 __be32;
typedef __u64 __be64;
typedef __u16 __le16;
typedef __u32 __le32;
typedef __u64 __le64;
typedef __u32 __wsum;

typedef _Bool bool;
enum {
	false = 0,
	true = 1,
};

typedef int pid_t;
typedef unsigned long size_t;
typedef long ssize_t;

/* ---- BPF UAPI constants (values fixed by include/uapi/linux/bpf.h) ------------------------ */

enum bpf_map_type {
	BPF_MAP_TYPE_UNSPEC = 0,
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PROG_ARRAY = 3,
	BPF_MAP_TYPE_PERF_EVENT_ARRAY = 4,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_CGROUP_ARRAY = 8,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_LRU_PERCPU_HASH = 10,
	BPF_MAP_TYPE_LPM_TRIE = 11,
	BPF_MAP_TYPE_ARRAY_OF_MAPS = 12,
	BPF_MAP_TYPE_HASH_OF_MAPS = 13,
	BPF_MAP_TYPE_DEVMAP = 14,
	BPF_MAP_TYPE_SOCKMAP = 15,
	BPF_MAP_TYPE_CPUMAP = 16,
	BPF_MAP_TYPE_XSKMAP = 17,
	BPF_MAP_TYPE_SOCKHASH = 18,
	BPF_MAP_TYPE_CGROUP_STORAGE = 19,
	BPF_MAP_TYPE_REUSEPORT_SOCKARRAY = 20,
	BPF_MAP_TYPE_PERCPU_CGROUP_STORAGE = 21,
	BPF_MAP_TYPE_QUEUE = 22,
	BPF_MAP_TYPE_STACK = 23,
	BPF_MAP_TYPE_SK_STORAGE = 24,
	BPF_MAP_TYPE_DEVMAP_HASH = 25,
	BPF_MAP_TYPE_STRUCT_OPS = 26,
	BPF_MAP_TYPE_RINGBUF = 27,
	BPF_MAP_TYPE_INODE_STORAGE = 28,
	BPF_MAP_TYPE_TASK_STORAGE = 29,
	BPF_MAP_TYPE_BLOOM_FILTER = 30,
	BPF_MAP_TYPE_USER_RINGBUF = 31,
};

/* flags of bpf_map_update_elem() */
enum {
	BPF_ANY = 0,
	BPF_NOEXIST = 1,
	BPF_EXIST = 2,
	BPF_F_LOCK = 4,
};

/* map_flags of map creation */
enum {
	BPF_F_NO_PREALLOC = (1U << 0),
	BPF_F_NO_COMMON_LRU = (1U << 1),
	BPF_F_NUMA_NODE = (1U << 2),
	BPF_F_RDONLY = (1U << 3),
	BPF_F_WRONLY = (1U << 4),
	BPF_F_STACK_BUILD_ID = (1U << 5),
	BPF_F_ZERO_SEED = (1U << 6),
	BPF_F_RDONLY_PROG = (1U << 7),
	BPF_F_WRONLY_PROG = (1U << 8),
	BPF_F_CLONE = (1U << 9),
	BPF_F_MMAPABLE = (1U << 10),
	/* keep perf event fds in a PERF_EVENT_ARRAY after the map fd that stored them is closed */
	BPF_F_PRESERVE_ELEMS = (1U << 11),
	BPF_F_INNER_MAP = (1U << 12),
};

/* flags of bpf_perf_event_read_value() and friends */
enum {
	BPF_F_INDEX_MASK = 0xffffffffULL,
	BPF_F_CURRENT_CPU = 0xffffffffULL,
	BPF_F_CTXLEN_MASK = (0xfffffULL << 32),
};

/* BPF_PROG_TEST_RUN flag: run the program on the CPU given in the cpu field */
#define BPF_F_TEST_RUN_ON_CPU (1U << 0)

/* ---- BPF UAPI structures ----------------------------------------------------------------- */

/* what bpf_perf_event_read_value() fills in */
struct bpf_perf_event_value {
	__u64 counter;
	__u64 enabled;
	__u64 running;
};

/* context of raw_tp programs: the tracepoint's arguments as u64s */
struct bpf_raw_tracepoint_args {
	__u64 args[0];
};

/* ---- kernel-internal structures, relocated by field name (CO-RE) ------------------------- */

/* the register frames: the one part of this header that differs between architectures */
#if defined(__TARGET_ARCH_x86)
#include "vmlinux-x86.h"
#elif defined(__TARGET_ARCH_arm64)
#include "vmlinux-arm64.h"
#else
#error "vmlinux.h: no register frame for this __TARGET_ARCH (bperf builds for x86 and arm64)"
#endif

/* context of SEC("perf_event") programs */
struct bpf_perf_event_data {
	bpf_user_pt_regs_t regs;
	__u64 sample_period;
	__u64 addr;
};

/* the cgroup perf events of a task are counted in: task->cgroups->subsys[perf_event_cgrp_id] */
struct kernfs_node {
	u64 id;
} __attribute__((preserve_access_index));

struct cgroup;

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	u64 serial_nr;			/* unique for the boot: a reused struct has another */
} __attribute__((preserve_access_index));

struct cgroup {
	struct cgroup_subsys_state self;
	int level;
	struct kernfs_node *kn;
	struct cgroup *ancestors[];	/* Linux 6.0+ */
} __attribute__((preserve_access_index));

struct cgroup___ids {
	int level;
	u64 ancestor_ids[];		/* before Linux 6.0 */
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup_subsys_state *subsys[1];
} __attribute__((preserve_access_index));

enum cgroup_subsys_id {
	perf_event_cgrp_id = 0,	/* the running kernel's value is relocated by name */
};

struct mm_struct;

struct task_struct {
	unsigned int flags;
	struct mm_struct *mm;
	struct css_set *cgroups;
	int exit_state;
	pid_t pid;
	pid_t tgid;
	struct task_struct *real_parent;
	struct task_struct *group_leader;
	char comm[16];
} __attribute__((preserve_access_index));

/* layout of the sched:sched_switch tracepoint record (classic tracepoint programs) */
struct trace_entry {
	unsigned short type;
	unsigned char flags;
	unsigned char preempt_count;
	int pid;
} __attribute__((preserve_access_index));

struct trace_event_raw_sched_switch {
	struct trace_entry ent;
	char prev_comm[16];
	pid_t prev_pid;
	int prev_prio;
	long prev_state;
	char next_comm[16];
	pid_t next_pid;
	int next_prio;
	char __data[0];
} __attribute__((preserve_access_index));

/* ---- what bperf check's task_file iterator reads (perf_holders.bpf.c) -------------------- */

struct seq_file;

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	void *private_data;
} __attribute__((preserve_access_index));

/* the kernel's copy of the UAPI attr: only the fields read, relocated by name */
struct perf_event_attr {
	__u32 type;
	__u64 config;
} __attribute__((preserve_access_index));

struct perf_event_context {
	struct task_struct *task;
} __attribute__((preserve_access_index));

enum perf_event_state {
	PERF_EVENT_STATE_DEAD = -4,
	PERF_EVENT_STATE_EXIT = -3,
	PERF_EVENT_STATE_ERROR = -2,
	PERF_EVENT_STATE_OFF = -1,
	PERF_EVENT_STATE_INACTIVE = 0,
	PERF_EVENT_STATE_ACTIVE = 1,
};

struct pmu {
	const char *name;
} __attribute__((preserve_access_index));

struct perf_event {
	struct perf_event *group_leader;
	struct pmu *pmu;
	struct perf_event_attr attr;
	enum perf_event_state state;
	int cpu;
	struct perf_event_context *ctx;
	u64 total_time_enabled;
	u64 total_time_running;
} __attribute__((preserve_access_index));

struct bpf_iter_meta {
	struct seq_file *seq;
	u64 session_id;
	u64 seq_num;
} __attribute__((preserve_access_index));

struct bpf_iter__task_file {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
	u32 fd;
	struct file *file;
} __attribute__((preserve_access_index));

#endif /* __VMLINUX_H__ */
