/* SPDX-License-Identifier: GPL-2.0-only */
/* What perf_holders.bpf.c writes for each perf event file open on the machine (bperf check). */
#ifndef BPERF_BPF_PERF_HOLDERS_H
#define BPERF_BPF_PERF_HOLDERS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* The name anon_inode_getfile() gives every perf event file. */
#define PERF_EVENT_FILE_NAME "[perf_event]"

struct perf_holder {
	__u32 tgid;		/* the process holding the fd */
	__u32 fd;
	__u32 type;		/* attr.type, attr.config */
	__u32 target_pid;	/* the task counted, 0 for a CPU-wide event */
	__u64 config;
	__s32 cpu;		/* -1: any CPU the task runs on */
	__s32 state;		/* enum perf_event_state: -2 error, -1 off, 0 inactive, 1 active */
	__u64 time_enabled;
	__u64 time_running;
	__u32 is_group_leader;
	__u32 pad;
	char comm[16];
	char pmu[32];		/* the event's PMU's name */
};

#endif
