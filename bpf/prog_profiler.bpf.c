// SPDX-License-Identifier: GPL-2.0-only
/*
 * Counts an event over the runs of one BPF program (bperf stat -b): bperf_on_entry reads the
 * event on the current CPU when the target starts, bperf_on_exit reads it again when it returns
 * and adds the difference to this CPU's totals, with one more run. User space retargets both at
 * the target (bpf_program__set_attach_target) before loading; XXX is only a placeholder. With
 * count_event false only bperf_on_exit is loaded, and it counts runs alone.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "prog_profiler.h"

const volatile bool count_event = true;

/*
 * The event's fd on each CPU, indexed by CPU number (max_entries set by user space). Sizes, not
 * __type: the kernel takes no BTF for a perf event array.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(int));
} events SEC(".maps");

/* The reading taken at entry; enabled == 0 means "none pending". */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_perf_event_value);
} entry_reading SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct prog_profile);
} totals SEC(".maps");

SEC("fentry/XXX")
int BPF_PROG(bperf_on_entry)
{
	struct bpf_perf_event_value *entry;
	__u32 zero = 0;

	entry = bpf_map_lookup_elem(&entry_reading, &zero);
	if (!entry)
		return 0;
	if (bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU, entry, sizeof(*entry)))
		entry->enabled = 0;
	return 0;
}

SEC("fexit/XXX")
int BPF_PROG(bperf_on_exit)
{
	struct bpf_perf_event_value now, *entry;
	struct prog_profile *total;
	__u32 zero = 0;

	total = bpf_map_lookup_elem(&totals, &zero);
	if (!total)
		return 0;
	total->runs++;
	if (!count_event)
		return 0;
	entry = bpf_map_lookup_elem(&entry_reading, &zero);
	/* no entry reading: attached between this run's entry and exit, or the read failed */
	if (!entry || !entry->enabled)
		return 0;
	if (!bpf_perf_event_read_value(&events, BPF_F_CURRENT_CPU, &now, sizeof(now))) {
		total->counter += now.counter - entry->counter;
		total->enabled += now.enabled - entry->enabled;
		total->running += now.running - entry->running;
	}
	entry->enabled = 0;
	return 0;
}

/* The SPDX line's license (bpf_perf_event_read_value() is GPL-only). */
char LICENSE[] SEC("license") = "GPL";
