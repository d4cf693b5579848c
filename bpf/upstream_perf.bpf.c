// SPDX-License-Identifier: GPL-2.0-only
/*
 * An imitation of upstream perf's --bpf-counters programs, for tests/helpers/upstream_perf.c:
 * a leader with perf's layout (a raw_tp program named on_switch; maps events, prev_readings and
 * diff_readings, as upstream perf's followers and bperf look them up) and a follower (an fexit
 * program on a leader's on_switch that adds up the leader's diff_readings). The skeleton is
 * opened twice, as perf opens its two: once with the leader alone, once with the follower
 * alone, attached to a leader program and given that leader's diff_readings.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* key: the CPU; max_entries set to the possible CPUs before load */
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

/* The follower's sum over every CPU's slices (a session counting the whole system). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct bpf_perf_event_value));
	__uint(max_entries, 1);
} accum_readings SEC(".maps");

/* How often the follower ran: the leader it follows still runs at every switch. */
__u64 follower_runs;

/* The slice of this CPU's event since the last switch, as upstream perf's leader computes it. */
SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch)
{
	struct bpf_perf_event_value val, *prev, *diff;
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();

	prev = bpf_map_lookup_elem(&prev_readings, &zero);
	diff = bpf_map_lookup_elem(&diff_readings, &zero);
	if (!prev || !diff)
		return 0;
	if (bpf_perf_event_read_value(&events, cpu, &val, sizeof(val)))
		return 0;
	diff->counter = val.counter - prev->counter;
	diff->enabled = val.enabled - prev->enabled;
	diff->running = val.running - prev->running;
	*prev = val;
	return 0;
}

/* Retargeted to the leader's on_switch before load; named as upstream perf's follower. */
SEC("fexit/on_switch")
int BPF_PROG(fexit_XXX)
{
	struct bpf_perf_event_value *diff, *sum;
	__u32 zero = 0;

	diff = bpf_map_lookup_elem(&diff_readings, &zero);
	sum = bpf_map_lookup_elem(&accum_readings, &zero);
	if (!diff || !sum)
		return 0;
	sum->counter += diff->counter;
	sum->enabled += diff->enabled;
	sum->running += diff->running;
	__sync_fetch_and_add(&follower_runs, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
