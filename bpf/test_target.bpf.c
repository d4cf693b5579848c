// SPDX-License-Identifier: GPL-2.0-only
/*
 * A BPF program with BTF for the -b tests and bench/bpf-prog to count: tests/helpers/
 * bpf_prog_runner loads it and runs it with BPF_PROG_TEST_RUN, whose repeat runs it an exact
 * number of times. XDP because its test runs take a repeat count and update the kernel's
 * run statistics once per run. It does a little fixed work so that a run costs something.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#define XDP_PASS 2
#define WORK_ROUNDS 32

struct xdp_md;

/* Written every run so that the loop is not folded away. */
__u64 work_sink;

SEC("xdp")
int bperf_test_target(struct xdp_md *ctx)
{
	__u64 acc = work_sink;
	int i;

	for (i = 0; i < WORK_ROUNDS; i++)
		acc = (acc ^ (acc >> 29) ^ i) * 6364136223846793005ull;
	work_sink = acc;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
