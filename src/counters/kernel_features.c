// SPDX-License-Identifier: GPL-2.0-only
/* Probing what the kernel offers the leader (kernel_features.h), once per process. */
#include "kernel_features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/common.h"

static bool has_helper(enum bpf_prog_type type, enum bpf_func_id helper)
{
	return libbpf_probe_bpf_helper(type, helper, NULL) == 1;
}

/* A program that returns 0: the fd, or -1. */
static int load_trivial(enum bpf_prog_type type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(type, NULL, "GPL", insns, 2, NULL);
}

static bool probe_test_run_on_cpu(void)
{
	__u64 args[3] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);
	int fd = load_trivial(BPF_PROG_TYPE_RAW_TRACEPOINT), err;

	if (fd < 0)
		return false;
	err = bpf_prog_test_run_opts(fd, &opts);
	close(fd);
	return err == 0;
}

static bool probe_verified_insns(void)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);
	int fd = load_trivial(BPF_PROG_TYPE_SOCKET_FILTER);
	bool found;

	if (fd < 0)
		return false;
	found = !bpf_obj_get_info_by_fd(fd, &info, &len) && info.verified_insns > 0;
	close(fd);
	return found;
}

/* libbpf's test: a kernel that knows the attach type asks for a valid perf event fd. */
static bool probe_perf_link(void)
{
	int fd = load_trivial(BPF_PROG_TYPE_KPROBE), link;
	bool found;

	if (fd < 0)
		return false;
	link = bpf_link_create(fd, -1, BPF_PERF_EVENT, NULL);
	found = link < 0 && errno == EBADF;
	if (link >= 0)
		close(link);
	close(fd);
	return found;
}

/* size bytes at off: sysfs gives a page a read */
static int read_all_at(int fd, char *buf, size_t size, off_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < size) {
		n = pread(fd, buf + done, size - done, off + (off_t)done);
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/*
 * The BPF memory allocator (struct bpf_mem_alloc, Linux 6.1) came with the end of the verifier's
 * warning about tracing programs that use hash maps allocating at run time; probing the warning
 * itself would set it off (once a boot, and it taints the kernel). Its name in the kernel's BTF
 * strings is enough: a scan of them takes a few milliseconds where parsing the BTF takes 50.
 */
static bool probe_alloc_in_tracing(void)
{
	static const char name[] = "\0bpf_mem_alloc";
	struct btf_header hdr;
	bool found = false;
	char *strs;
	int fd;

	fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (pread(fd, &hdr, sizeof(hdr), 0) != sizeof(hdr) || hdr.magic != BTF_MAGIC)
		goto out;
	strs = malloc(hdr.str_len);
	if (!strs)
		goto out;
	if (!read_all_at(fd, strs, hdr.str_len, hdr.hdr_len + hdr.str_off))
		found = memmem(strs, hdr.str_len, name, sizeof(name)) != NULL;
	free(strs);
out:
	close(fd);
	return found;
}

/*
 * Whether sched_process_exit fires right before perf_event_exit_task(), as since Linux 6.16:
 * the same change gave the event its own layout (group_dead), where before it shared
 * sched_process_template and came after exit_mm(). tracefs tells in a few microseconds; the
 * kernel's BTF, where tracefs is not mounted, in about 50 ms.
 */
static bool exit_tp_at_perf_exit(void)
{
	char format[4096];
	struct btf *btf;
	bool found;

	if (!read_text_file("/sys/kernel/tracing/events/sched/sched_process_exit/format", format,
			    sizeof(format)))
		return strstr(format, "group_dead") != NULL;
	btf = btf__load_vmlinux_btf();
	if (!btf)
		return false;
	found = btf__find_by_name_kind(btf, "trace_event_raw_sched_process_exit",
				       BTF_KIND_STRUCT) > 0;
	btf__free(btf);
	return found;
}

int kprobe_event_open(const char *func, bool ret, int pid)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char type[32], bit[64];
	int fd;

	if (read_text_file("/sys/bus/event_source/devices/kprobe/type", type, sizeof(type)))
		return -ENOENT;
	attr.type = atoi(type);
	attr.config1 = (__u64)(unsigned long)func;
	if (ret) {
		/* "config:N" */
		if (read_text_file("/sys/bus/event_source/devices/kprobe/format/retprobe", bit,
				   sizeof(bit)) || strncmp(bit, "config:", 7))
			return -ENOENT;
		attr.config = 1ull << atoi(bit + 7);
	}
	fd = (int)syscall(__NR_perf_event_open, &attr, pid, pid < 0 ? 0 : -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Whether perf still counts a task in exit_mm(): a child that waits on a pipe and then exits,
 * and a kprobe in exit_mm() (mmput()) counted for it, 1 if perf counts it there and 0 if it
 * stopped before. A few milliseconds, asked only where perf_event_exit_task() cannot be probed.
 */
static bool perf_exit_before_mm_found;
static pthread_once_t perf_exit_once = PTHREAD_ONCE_INIT;

static void probe_perf_exit_before_mm(void)
{
	int pipe_fds[2], fd, status;
	__u64 hits = 1;
	pid_t child;

	if (pipe2(pipe_fds, O_CLOEXEC))
		return;
	child = fork();
	if (child == 0) {
		char c;

		close(pipe_fds[1]);
		_exit(read(pipe_fds[0], &c, 1) == 1 ? 0 : 1);
	}
	close(pipe_fds[0]);
	fd = child > 0 ? kprobe_event_open("mmput", false, child) : -1;
	if (write(pipe_fds[1], "x", 1) != 1)
		hits = 1;
	close(pipe_fds[1]);
	if (child > 0)
		waitpid(child, &status, 0);
	if (fd >= 0 && read(fd, &hits, sizeof(hits)) != sizeof(hits))
		hits = 1;
	if (fd >= 0)
		close(fd);
	perf_exit_before_mm_found = fd >= 0 && hits == 0;
}

bool perf_exit_before_mm(void)
{
	pthread_once(&perf_exit_once, probe_perf_exit_before_mm);
	return perf_exit_before_mm_found;
}

static struct kernel_features probed;
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_all(void)
{
	probed.task_btf = has_helper(BPF_PROG_TYPE_RAW_TRACEPOINT,
				     BPF_FUNC_get_current_task_btf);
	probed.bpf_loop = has_helper(BPF_PROG_TYPE_RAW_TRACEPOINT, BPF_FUNC_loop);
	probed.test_run_on_cpu = probe_test_run_on_cpu();
	/* libbpf's own test: the helper came in the same release */
	probed.memcg_account = has_helper(BPF_PROG_TYPE_SOCKET_FILTER,
					  BPF_FUNC_ktime_get_coarse_ns);
	probed.alloc_in_tracing = probe_alloc_in_tracing();
	probed.verified_insns = probe_verified_insns();
	probed.kprobes = access("/sys/bus/event_source/devices/kprobe", F_OK) == 0;
	probed.perf_link = probe_perf_link();
	probed.exit_tp_at_perf_exit = exit_tp_at_perf_exit();
}

const struct kernel_features *kernel_features(void)
{
	pthread_once(&probe_once, probe_all);
	return &probed;
}

const char *exit_hook_name(enum exit_hook hook)
{
	static const char *const names[] = {
		[EXIT_AT_TRACEPOINT] = "sched_process_exit, right before perf_event_exit_task()",
		[EXIT_AT_PERF_EXIT] = "a kprobe at perf_event_exit_task()",
		[EXIT_AT_TASKSTATS_RETURN] =
			"the return of taskstats_exit(), before perf_event_exit_task()",
		[EXIT_AT_SCHED_EXIT] = "sched_process_exit",
		[EXIT_AT_SWITCH] = "their first switch past perf's exit",
	};

	return names[hook];
}

static void say(FILE *out, const char *name, bool present, const char *otherwise)
{
	fprintf(out, "bperf: kernel feature %-26s %s%s\n", name, present ? "yes" : "no: ",
		present ? "" : otherwise);
}

void kernel_features_print(FILE *out, const struct kernel_features *kf)
{
	say(out, "bpf_get_current_task_btf", kf->task_btf, "probe reads of the current task");
	say(out, "bpf_loop", kf->bpf_loop, "not needed (bounded loops over global functions)");
	say(out, "test run on a CPU", kf->test_run_on_cpu, "shared counters cannot read");
	say(out, "memcg accounting", kf->memcg_account, "RLIMIT_MEMLOCK, raised by libbpf");
	say(out, "run-time alloc in tracing", kf->alloc_in_tracing,
	    "thread filters preallocated");
	say(out, "verified_insns", kf->verified_insns, "the verifier log's statistics");
	say(out, "kprobes", kf->kprobes, "no exit probe");
	say(out, "BPF links of perf events", kf->perf_link, "the exit probe held in a map");
	say(out, "exit tracepoint at perf exit", kf->exit_tp_at_perf_exit,
	    kf->kprobes ? "an exit probe" : "sched_process_exit");
}

static struct tracing_features tracing_probed;
static pthread_once_t tracing_once = PTHREAD_ONCE_INIT;

/*
 * A tracing program that returns 0, loaded for attach type at the BTF type named name of kind
 * in vmlinux, then attached and detached: 0, or -errno of the step that failed.
 */
static int try_tracing_attach(const struct btf *vmlinux, enum bpf_attach_type type,
			      const char *name, int kind)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf__find_by_name_kind(vmlinux, name, kind), fd, link;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);

	if (id < 0)
		return -ENOENT;
	opts.attach_btf_id = id;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, NULL, "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	link = bpf_raw_tracepoint_open(NULL, fd);
	id = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return id;
}

static void probe_tracing(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();

	tracing_probed.btf = vmlinux != NULL;
	tracing_probed.tp_btf_err = -ENOENT;
	tracing_probed.trampoline_err = -ENOENT;
	if (!vmlinux)
		return;
	tracing_probed.tp_btf_err = try_tracing_attach(vmlinux, BPF_TRACE_RAW_TP,
						       "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	/* the kernel's own fentry test target (net/bpf/test_run.c) */
	tracing_probed.trampoline_err = try_tracing_attach(vmlinux, BPF_TRACE_FENTRY,
							   "bpf_fentry_test1", BTF_KIND_FUNC);
	btf__free(vmlinux);
}

const struct tracing_features *tracing_features(void)
{
	pthread_once(&tracing_once, probe_tracing);
	return &tracing_probed;
}

static pthread_once_t report_once = PTHREAD_ONCE_INIT;

static void report(void)
{
	kernel_features_print(stderr, kernel_features());
}

void kernel_features_report(int verbose)
{
	if (verbose >= 1)
		pthread_once(&report_once, report);
}
