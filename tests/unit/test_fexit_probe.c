// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks that an fexit program loads, attaches and runs on a BPF program of our own (what
 * --bpf-prog needs), and skips when the kernel refuses BPF trampolines: then the reason is the
 * last line, "fexit refused: <error>". The host kernel refuses them (EPERM), Debian's stock kernel
 * in tools/vmtest takes them, so this test passes there and is reported as skipped here.
 * Needs root (exit 77 = skipped otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fexit_probe.skel.h"

#define EXIT_SKIP 77
#define NAME "test_fexit_probe"
/* The kernel's ENOTSUPP, not in user-space headers: what a missing arch trampoline returns. */
#define KERNEL_ENOTSUPP 524
/* probe_target returns its first argument: a value no bug would produce by chance */
#define TARGET_RET 4242

/* Errors that mean "no trampolines on this kernel", as opposed to a bug of ours. */
static int is_refusal(int err)
{
	return err == EPERM || err == EOPNOTSUPP || err == KERNEL_ENOTSUPP;
}

static int skip_refused(int err)
{
	printf("fexit refused: %s\n", strerror(err));
	fflush(stdout);
	return EXIT_SKIP;
}

/* Runs probe_target once with TARGET_RET as its first argument. */
static int run_target(int prog_fd)
{
	__u64 args[1] = { TARGET_RET };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	if (err) {
		fprintf(stderr, "%s: expected test run to succeed, got %s\n", NAME, strerror(-err));
		return -1;
	}
	if (opts.retval != TARGET_RET) {
		fprintf(stderr, "%s: target return value: expected %d, got %u\n", NAME, TARGET_RET,
			opts.retval);
		return -1;
	}
	return 0;
}

static int check_exit_seen(struct fexit_probe_bpf *probe)
{
	if (probe->bss->exit_hits != 1) {
		fprintf(stderr, "%s: fexit hits: expected 1, got %llu\n", NAME,
			(unsigned long long)probe->bss->exit_hits);
		return -1;
	}
	if (probe->bss->exit_ret != TARGET_RET) {
		fprintf(stderr, "%s: return value seen by fexit: expected %d, got %d\n", NAME,
			TARGET_RET, probe->bss->exit_ret);
		return -1;
	}
	return 0;
}

/* Loads and attaches the fexit program on target_fd; returns EXIT_SKIP, 0 or 1. */
static int probe_fexit(int target_fd)
{
	struct fexit_probe_bpf *probe;
	int err, ret = 1;

	probe = fexit_probe_bpf__open();
	if (!probe) {
		fprintf(stderr, "%s: opening the fexit instance: %s\n", NAME, strerror(errno));
		return 1;
	}
	bpf_program__set_autoload(probe->progs.probe_target, false);
	err = bpf_program__set_attach_target(probe->progs.on_target_exit, target_fd,
					     "probe_target");
	if (err) {
		fprintf(stderr, "%s: set_attach_target: %s\n", NAME, strerror(-err));
		goto out;
	}
	err = fexit_probe_bpf__load(probe);
	if (err) {
		ret = is_refusal(-err) ? skip_refused(-err) : 1;
		if (ret != EXIT_SKIP)
			fprintf(stderr, "%s: expected fexit load to succeed, got %s\n", NAME,
				strerror(-err));
		goto out;
	}
	err = fexit_probe_bpf__attach(probe);
	if (err) {
		ret = is_refusal(-err) ? skip_refused(-err) : 1;
		if (ret != EXIT_SKIP)
			fprintf(stderr, "%s: expected fexit attach to succeed, got %s\n", NAME,
				strerror(-err));
		goto out;
	}
	if (!run_target(target_fd) && !check_exit_seen(probe))
		ret = 0;
out:
	fexit_probe_bpf__destroy(probe);
	return ret;
}

int main(void)
{
	struct fexit_probe_bpf *target;
	int err, ret;

	if (geteuid() != 0) {
		printf("needs root to load BPF programs\n");
		return EXIT_SKIP;
	}

	/* first instance: the target alone, so that the fexit instance can name its fd */
	target = fexit_probe_bpf__open();
	if (!target) {
		fprintf(stderr, "%s: opening the target instance: %s\n", NAME, strerror(errno));
		return 1;
	}
	bpf_program__set_autoload(target->progs.on_target_exit, false);
	err = fexit_probe_bpf__load(target);
	if (err) {
		fprintf(stderr, "%s: expected the raw_tp target to load, got %s\n", NAME,
			strerror(-err));
		fexit_probe_bpf__destroy(target);
		return 1;
	}
	ret = probe_fexit(bpf_program__fd(target->progs.probe_target));
	fexit_probe_bpf__destroy(target);
	return ret;
}
