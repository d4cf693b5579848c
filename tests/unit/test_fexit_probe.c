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

#include "check.h"
#include "fexit_probe.skel.h"

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
static bool run_target(int prog_fd)
{
	__u64 args[1] = { TARGET_RET };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args));
	int err;

	err = bpf_prog_test_run_opts(prog_fd, &opts);
	return CHECK_OK("test run", err) &&
	       CHECK_EQ("target return value", TARGET_RET, opts.retval);
}

static bool check_exit_seen(struct fexit_probe_bpf *probe)
{
	return CHECK_EQ("fexit hits", 1, probe->bss->exit_hits) &&
	       CHECK_EQ("return value seen by fexit", TARGET_RET, probe->bss->exit_ret);
}

/* Loads and attaches the fexit program on target_fd and runs it; returns EXIT_SKIP or 0. */
static int probe_fexit(int target_fd)
{
	struct fexit_probe_bpf *probe;
	int err, ret = 0;

	probe = fexit_probe_bpf__open();
	if (!CHECK_MSG("fexit instance", probe, "expected to open, got %s", strerror(errno)))
		return 0;
	bpf_program__set_autoload(probe->progs.probe_target, false);
	err = bpf_program__set_attach_target(probe->progs.on_target_exit, target_fd,
					     "probe_target");
	if (!CHECK_OK("set_attach_target", err))
		goto out;
	err = fexit_probe_bpf__load(probe);
	if (err && is_refusal(-err)) {
		ret = skip_refused(-err);
		goto out;
	}
	if (!CHECK_OK("fexit load", err))
		goto out;
	err = fexit_probe_bpf__attach(probe);
	if (err && is_refusal(-err)) {
		ret = skip_refused(-err);
		goto out;
	}
	if (!CHECK_OK("fexit attach", err))
		goto out;
	if (run_target(target_fd))
		check_exit_seen(probe);
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
	if (!CHECK_MSG("target instance", target, "expected to open, got %s", strerror(errno)))
		return check_exit(NAME);
	bpf_program__set_autoload(target->progs.on_target_exit, false);
	err = fexit_probe_bpf__load(target);
	if (CHECK_OK("raw_tp target load", err))
		ret = probe_fexit(bpf_program__fd(target->progs.probe_target));
	else
		ret = 0;
	fexit_probe_bpf__destroy(target);
	return ret == EXIT_SKIP ? EXIT_SKIP : check_exit(NAME);
}
