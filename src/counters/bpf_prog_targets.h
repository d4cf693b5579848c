/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BPF programs bperf stat -b counts: their ids, an fd on each (which keeps the program loaded
 * while bperf attaches to it), and the function name fentry/fexit programs attach to.
 */
#ifndef BPERF_BPF_PROG_TARGETS_H
#define BPERF_BPF_PROG_TARGETS_H

#include <linux/types.h>
#include <stdbool.h>

struct bpf_prog_target {
	__u32 id;
	int fd;
	char *func_name;	/* the name of the target's first BTF function */
};

struct bpf_prog_targets {
	int nr;
	struct bpf_prog_target *progs;
	/*
	 * The kernel refused BPF trampolines (fentry/fexit): only its BPF statistics (runs and
	 * run time) can be counted.
	 */
	bool no_trampolines;
};

/* Parses "ID[,ID...]" (decimal, 1 to 2^32-2); -EINVAL for 0, garbage or an empty item. */
int bpf_prog_ids_parse(const char *list, __u32 **ids, int *nr);

/*
 * Opens the programs of a -b list and finds their function names, then learns whether the
 * kernel takes trampolines on them (saying in one line when it does not). Prints why and
 * returns -errno when a program cannot be counted; t is then empty.
 */
int bpf_prog_targets_open(struct bpf_prog_targets *t, const char *list);
void bpf_prog_targets_close(struct bpf_prog_targets *t);

#endif
