// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check's list of who holds perf events: a task_file iterator that writes a struct
 * perf_holder for every perf event file any process has open. Events held only in BPF maps (the
 * leaders') or by the kernel itself (the NMI watchdog) have no fd: bperf check finds those in
 * the attr map and /proc. The kernel's iterator visits a thread group's shared file table once.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "perf_holders.h"

/* Whether the file's dentry is the perf event anon inode's: "[perf_event]" and its NUL. */
static bool is_perf_event_file(struct file *file)
{
	const char want[] = PERF_EVENT_FILE_NAME;
	char name[sizeof(want)];
	const unsigned char *p = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	int i;

	if (bpf_probe_read_kernel_str(name, sizeof(name), p) != sizeof(name))
		return false;
	for (i = 0; i < sizeof(want); i++)
		if (name[i] != want[i])
			return false;
	return true;
}

SEC("iter/task_file")
int list_perf_events(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct perf_holder rec = {};
	struct perf_event *event;

	if (!task || !file || !is_perf_event_file(file))
		return 0;
	event = BPF_CORE_READ(file, private_data);
	if (!event)
		return 0;
	rec.tgid = BPF_CORE_READ(task, tgid);
	rec.fd = ctx->fd;
	rec.type = BPF_CORE_READ(event, attr.type);
	rec.config = BPF_CORE_READ(event, attr.config);
	rec.cpu = BPF_CORE_READ(event, cpu);
	rec.state = BPF_CORE_READ(event, state);
	rec.time_enabled = BPF_CORE_READ(event, total_time_enabled);
	rec.time_running = BPF_CORE_READ(event, total_time_running);
	rec.is_group_leader = BPF_CORE_READ(event, group_leader) == event;
	/* a task event's context names the task (a probe read: it may be TASK_TOMBSTONE) */
	rec.target_pid = BPF_CORE_READ(event, ctx, task, pid);
	BPF_CORE_READ_STR_INTO(&rec.comm, task, comm);
	bpf_probe_read_kernel_str(rec.pmu, sizeof(rec.pmu), BPF_CORE_READ(event, pmu, name));
	bpf_seq_write(ctx->meta->seq, &rec, sizeof(rec));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
