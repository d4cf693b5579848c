// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check: the BPF features the leader and the profiler use, from the probes that choose
 * bperf's fallbacks (counters/kernel_features.h), each with what its absence costs.
 */
#include <string.h>

#include "check.h"
#include "counters/kernel_features.h"

static void feature(struct check_report *r, const char *name, bool present,
		    enum check_verdict missing, const char *otherwise)
{
	if (present)
		check_add(r, name, CHECK_OK, "present");
	else
		check_add(r, name, missing, "missing: %s", otherwise);
}

/* The kernel's ENOTSUPP, which strerror() does not know: not on this architecture. */
#define KERNEL_ENOTSUPP 524

static void tracing(struct check_report *r, const char *name, int err, const char *otherwise)
{
	if (!err)
		check_add(r, name, CHECK_OK, "present");
	else
		check_add(r, name, CHECK_WARN, "missing (%s): %s", err == -KERNEL_ENOTSUPP ?
			  "not supported here" : strerror(-err), otherwise);
}

void check_bpf(struct check_ctx *ctx)
{
	struct check_report *r = &ctx->report;
	const struct kernel_features *kf;
	const struct tracing_features *tf;

	if (!ctx->machine.bpf_root) {
		check_add(r, "bpf", CHECK_SKIP, "probing BPF needs root (CAP_SYS_ADMIN)");
		return;
	}
	kf = kernel_features();
	tf = tracing_features();
	feature(r, "bpf-btf", tf->btf, CHECK_FAIL,
		"no /sys/kernel/btf/vmlinux: the leader's CO-RE programs cannot load");
	tracing(r, "bpf-tp_btf", tf->tp_btf_err,
		"the leader's cgroup, rename and new-task programs cannot attach");
	tracing(r, "bpf-fentry", tf->trampoline_err,
		"no trampolines: -b/--bpf-prog cannot count BPF programs");
	feature(r, "bpf-kprobes", kf->kprobes, CHECK_INFO,
		"exiting tasks stop counting at sched_process_exit");
	feature(r, "bpf-bpf_loop", kf->bpf_loop, CHECK_INFO,
		"not needed (bperf's loops are bounded loops on every kernel)");
	feature(r, "bpf-test-run-on-cpu", kf->test_run_on_cpu, CHECK_FAIL,
		"shared counters cannot read");
	feature(r, "bpf-task-btf", kf->task_btf, CHECK_INFO, "probe reads of the current task");
	feature(r, "bpf-perf-link", kf->perf_link, CHECK_INFO,
		"the exit probe is attached by ioctl and held in a map");
}
