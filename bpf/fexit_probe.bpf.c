// SPDX-License-Identifier: GPL-2.0-only
/*
 * Probe for BPF trampolines (fentry/fexit), used by tests/unit/test_fexit_probe.c: the skeleton
 * is opened twice, once to load probe_target alone and once to load on_target_exit alone,
 * attached to the first instance's probe_target. A kernel without trampolines refuses the second.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* Written by on_target_exit: how often probe_target returned, and its last return value. */
__u64 exit_hits;
int exit_ret;

/*
 * Never attached: run through BPF_PROG_TEST_RUN only. Returns its first argument. The context
 * has the type the kernel expects for raw_tp: with another one, the kernel deems the prototype
 * unreliable and its trampoline passes 5 registers, moving the return value to ctx[5].
 */
SEC("raw_tp")
int probe_target(struct bpf_raw_tracepoint_args *ctx)
{
	return (int)ctx->args[0];
}

SEC("fexit/probe_target")
int BPF_PROG(on_target_exit, struct bpf_raw_tracepoint_args *target_ctx, int ret)
{
	exit_hits++;
	exit_ret = ret;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
