/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the running kernel offers the leader and the profiler, probed once per process (each
 * probe loads a tiny program or reads sysfs; none looks at the version). Where a feature is
 * missing a fallback of the same meaning stands in, or one line says what is missing. (BPF
 * trampolines, which -b uses, are tried where they are needed: prog_profiler.c.)
 *   task_btf          bpf_get_current_task_btf() (5.11): else the current task's fields are
 *                     probe reads
 *   bpf_loop          bpf_loop() (5.17): reported only; the leader's loops are bounded loops
 *                     over global functions on every kernel (5.10's verifier refuses a program
 *                     with bpf_loop()'s callbacks even where they are never called)
 *   test_run_on_cpu   BPF_PROG_TEST_RUN of a raw_tp program on a chosen CPU (5.10): shared
 *                     counters need it to read; no fallback
 *   memcg_account     BPF memory charged to the memory cgroup (5.11): else to RLIMIT_MEMLOCK,
 *                     which libbpf raises where the process may (CAP_SYS_RESOURCE), as the
 *                     daemon's unit does with LimitMEMLOCK
 *   alloc_in_tracing  hash maps that allocate at run time are safe in tracing programs (the
 *                     BPF memory allocator, 6.1): else a thread session's filter is
 *                     preallocated, since older kernels warn (and taint) at such a load
 *   verified_insns    bpf_prog_info.verified_insns (5.16): else the verifier log's statistics
 *   kprobes           the kprobe PMU: the exit probe at perf_event_exit_task()
 *   perf_link         BPF links of perf events (5.15) for the exit probe: else it is attached by
 *                     ioctl and its event kept in a map of the leader's (leader.bpf.c)
 *   exit_tp_at_perf_exit  sched_process_exit fires right before perf_event_exit_task()
 *                     (6.16): else an exit probe where there are kprobes (exit_hook)
 */
#ifndef BPERF_COUNTERS_KERNEL_FEATURES_H
#define BPERF_COUNTERS_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

enum exit_hook {
	/* sched_process_exit, right before perf_event_exit_task() (its event has group_dead) */
	EXIT_AT_TRACEPOINT,
	/* a kprobe at perf_event_exit_task() */
	EXIT_AT_PERF_EXIT,
	/* a kretprobe at taskstats_exit(), which comes right before perf_event_exit_task() */
	EXIT_AT_TASKSTATS_RETURN,
	/* sched_process_exit, after exit_mm(): no kprobes */
	EXIT_AT_SCHED_EXIT,
	/* no probe attaches: on_switch's check of the task going out */
	EXIT_AT_SWITCH,
};

struct kernel_features {
	bool task_btf;
	bool bpf_loop;
	bool test_run_on_cpu;
	bool memcg_account;
	bool alloc_in_tracing;
	bool verified_insns;
	bool kprobes;
	bool perf_link;
	bool exit_tp_at_perf_exit;
};

/*
 * What BTF-typed tracing offers, probed apart (on the first call; it parses the kernel's BTF,
 * which every start need not pay for) for bperf check: the leader's tp_btf programs (cgroup
 * moves, renames, new tasks) and -b's trampolines. The errors are the kernel's answer to a
 * trivial program's load or attach (-ENOENT: no vmlinux BTF, or no such target in it).
 */
struct tracing_features {
	bool btf;		/* /sys/kernel/btf/vmlinux */
	int tp_btf_err;		/* tp_btf/sched_switch */
	int trampoline_err;	/* fentry/bpf_fentry_test1 */
};

const struct tracing_features *tracing_features(void);

/* The features, probed at the first call (thread-safe). */
const struct kernel_features *kernel_features(void);
/* One line a feature: present, or missing and what stands in for it. */
void kernel_features_print(FILE *out, const struct kernel_features *kf);
/*
 * Whether perf stops counting an exiting task before exit_mm() (6.16, and the stable kernels
 * that took the change in 2025), found by counting a kprobe in exit_mm() for a child that
 * exits; probed at the first call.
 */
bool perf_exit_before_mm(void);
/* What -v says of where exiting tasks stop counting. */
const char *exit_hook_name(enum exit_hook hook);
/*
 * A kprobe (or with ret a kretprobe) perf event at the entry of func, counting for pid (-1: on
 * CPU 0 for every task): the fd, or -errno.
 */
int kprobe_event_open(const char *func, bool ret, int pid);
/* With -v, kernel_features_print() to stderr, once per process. */
void kernel_features_report(int verbose);

#endif
