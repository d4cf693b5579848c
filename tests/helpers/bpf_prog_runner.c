// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test helper for bperf stat -b: loads BPF programs to count and runs them an exact number of
 * times.
 *
 *	bpf_prog_runner load [--no-btf] [COUNT]
 *		loads COUNT (default 1) instances of bpf/test_target.bpf.c (--no-btf: a two-instruction
 *		XDP program loaded without BTF), prints their ids on one line and keeps them loaded
 *		until its stdin ends
 *	bpf_prog_runner run [--stats] ID N
 *		runs program ID N times with one BPF_PROG_TEST_RUN (repeat N) and prints
 *		"ns_per_run D" (the kernel's mean time per run); with --stats, kernel BPF statistics
 *		are on meanwhile and it also prints "runs R run_time_ns T", their growth over the call
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "test_target.skel.h"

#define MAX_INSTANCES 8
/* XDP test runs need at least an Ethernet header of input */
#define PACKET_SIZE 64

static int usage(void)
{
	fprintf(stderr, "usage: bpf_prog_runner load [--no-btf] [COUNT] | "
			"run [--stats] ID N\n");
	return 2;
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* r0 = XDP_PASS; exit: a program without BTF, which bperf stat -b must refuse. */
static int load_without_btf(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 2 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(BPF_PROG_TYPE_XDP, "bperf_no_btf", "GPL", insns, 2, NULL);
}

static int wait_stdin_eof(void)
{
	char buf[256];

	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	return 0;
}

static int cmd_load(int argc, char **argv)
{
	struct test_target_bpf *skels[MAX_INSTANCES] = { 0 };
	bool no_btf = argc > 0 && !strcmp(argv[0], "--no-btf");
	int count, i, fd = -1, ret = 1;

	if (no_btf) {
		argc--;
		argv++;
	}
	count = argc > 0 ? atoi(argv[0]) : 1;
	if (count < 1 || count > MAX_INSTANCES || (no_btf && count != 1))
		return usage();
	if (no_btf) {
		fd = load_without_btf();
		if (fd < 0) {
			fprintf(stderr, "bpf_prog_runner: loading without BTF: %s\n", strerror(-fd));
			return 1;
		}
		printf("%u\n", prog_id(fd));
	} else {
		for (i = 0; i < count; i++) {
			skels[i] = test_target_bpf__open_and_load();
			if (!skels[i]) {
				fprintf(stderr, "bpf_prog_runner: loading test_target: %s\n",
					strerror(errno));
				goto out;
			}
			printf("%s%u", i ? " " : "",
			       prog_id(bpf_program__fd(skels[i]->progs.bperf_test_target)));
		}
		printf("\n");
	}
	fflush(stdout);
	ret = wait_stdin_eof();
out:
	for (i = 0; i < count; i++)
		test_target_bpf__destroy(skels[i]);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int run_stats(int fd, __u64 *cnt, __u64 *time_ns)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*cnt = info.run_cnt;
	*time_ns = info.run_time_ns;
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	bool stats = argc > 0 && !strcmp(argv[0], "--stats");
	char packet[PACKET_SIZE] = { 0 };
	__u64 cnt0 = 0, time0 = 0, cnt1 = 0, time1 = 0;
	int fd, stats_fd = -1, err, ret = 1;
	long long id, n;

	if (stats) {
		argc--;
		argv++;
	}
	if (argc != 2)
		return usage();
	id = atoll(argv[0]);
	n = atoll(argv[1]);
	if (id <= 0 || n <= 0 || n > 0xffffffffll)
		return usage();
	fd = bpf_prog_get_fd_by_id((__u32)id);
	if (fd < 0) {
		fprintf(stderr, "bpf_prog_runner: program %lld: %s\n", id, strerror(errno));
		return 1;
	}
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = packet, .data_size_in = sizeof(packet),
		    .repeat = (__u32)n);
	if (stats) {
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0 || run_stats(fd, &cnt0, &time0)) {
			fprintf(stderr, "bpf_prog_runner: BPF statistics: %s\n", strerror(errno));
			goto out;
		}
	}
	err = bpf_prog_test_run_opts(fd, &opts);
	if (err) {
		fprintf(stderr, "bpf_prog_runner: test run: %s\n", strerror(-err));
		goto out;
	}
	if (stats && run_stats(fd, &cnt1, &time1)) {
		fprintf(stderr, "bpf_prog_runner: BPF statistics: %s\n", strerror(errno));
		goto out;
	}
	printf("ns_per_run %u\n", opts.duration);
	if (stats)
		printf("runs %llu run_time_ns %llu\n", (unsigned long long)(cnt1 - cnt0),
		       (unsigned long long)(time1 - time0));
	ret = 0;
out:
	if (stats_fd >= 0)
		close(stats_fd);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "load"))
		return cmd_load(argc - 2, argv + 2);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 2, argv + 2);
	return usage();
}
