// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared-counter leader: at each context switch, measure how much this CPU's perf event advanced
 * since the previous switch on this CPU. Consumers read diff_readings right after this program
 * runs (or run it on demand with BPF_PROG_TEST_RUN + BPF_F_TEST_RUN_ON_CPU to flush a partial
 * slice). See leader.h for the map layout.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "leader.h"

/* max_entries is set by user space (number of possible CPUs) before load */
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
	__uint(max_entries, 1);
} prev_readings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} diff_readings SEC(".maps");

SEC("raw_tp/sched_switch")
int on_switch(struct bpf_raw_tracepoint_args *ctx)
{
	struct bpf_perf_event_value val, *prev, *diff;
	__u32 key = LEADER_READING_KEY;
	__u32 cpu = bpf_get_smp_processor_id();

	prev = bpf_map_lookup_elem(&prev_readings, &key);
	diff = bpf_map_lookup_elem(&diff_readings, &key);
	if (!prev || !diff)
		return 0;

	/* on failure (no event installed for this CPU yet) keep the old readings untouched */
	if (bpf_perf_event_read_value(&events, cpu, &val, sizeof(val)))
		return 0;

	diff->counter = val.counter - prev->counter;
	diff->enabled = val.enabled - prev->enabled;
	diff->running = val.running - prev->running;
	*prev = val;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
