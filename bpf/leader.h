/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Types and names shared by the shared-counter leader (leader.bpf.c) and its user-space loader.
 *
 * The leader runs at every sched_switch on every CPU. It reads this CPU's perf event from the
 * `events` array (key: CPU number, value: perf event fd, filled by user space) and stores the
 * change since its previous run on this CPU in `diff_readings`, so that consumers can credit that
 * slice to the task being switched out.
 *
 * Map layout:
 *   events         PERF_EVENT_ARRAY, key u32 cpu, value int fd, max_entries = possible CPUs
 *                  (set by user space before load), BPF_F_PRESERVE_ELEMS
 *   prev_readings  PERCPU_ARRAY, 1 entry (LEADER_READING_KEY), struct bpf_perf_event_value
 *   diff_readings  PERCPU_ARRAY, 1 entry (LEADER_READING_KEY), struct bpf_perf_event_value
 *
 * struct bpf_perf_event_value comes from <linux/bpf.h> in user space and from vmlinux.h in BPF.
 */
#ifndef BPERF_BPF_LEADER_H
#define BPERF_BPF_LEADER_H

/* the only key of the per-CPU reading arrays */
#define LEADER_READING_KEY 0

/* names as they appear in the object file, for code that does not use the skeleton */
#define LEADER_PROG_NAME "on_switch"
#define LEADER_EVENTS_MAP "events"
#define LEADER_PREV_MAP "prev_readings"
#define LEADER_DIFF_MAP "diff_readings"

#endif
