// SPDX-License-Identifier: GPL-2.0-only
/*
 * Proves that the shared-counter leader (bpf/leader.bpf.c) loads and works on this kernel: load,
 * attach to sched_switch, install one software context-switches event per CPU, cause switches,
 * flush each CPU with BPF_PROG_TEST_RUN on that CPU, check the per-CPU diffs, and check that
 * nothing of ours stays loaded after destroy. Needs root (exit 77 = skipped otherwise).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/leader.h"
#include "leader.skel.h"

#define EXIT_SKIP 77
#define NAME "test_leader_load"

struct leader_test {
	struct leader_bpf *skel;
	int *event_fds;
	int nr_cpus;
	__u32 prog_id;
};

static int open_cpu_switch_counter(int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CONTEXT_SWITCHES,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
	};

	return syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Forces context switches on every CPU by hopping between them and yielding. */
static void cause_switches(int nr_cpus)
{
	cpu_set_t set;
	int round, cpu;

	for (round = 0; round < 20; round++) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				continue; /* offline CPU */
			sched_yield();
			usleep(100);
		}
	}
	CPU_ZERO(&set);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static int setup(struct leader_test *t)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	int cpu, err, fd;

	t->skel = leader_bpf__open();
	if (!t->skel) {
		fprintf(stderr, "%s: leader_bpf__open failed: %s\n", NAME, strerror(errno));
		return -1;
	}
	bpf_map__set_max_entries(t->skel->maps.events, t->nr_cpus);

	err = leader_bpf__load(t->skel);
	if (err) {
		fprintf(stderr, "%s: expected load to succeed, got %s\n", NAME, strerror(-err));
		return -1;
	}
	err = leader_bpf__attach(t->skel);
	if (err) {
		fprintf(stderr, "%s: expected attach to succeed, got %s\n", NAME, strerror(-err));
		return -1;
	}
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(t->skel->progs.on_switch), &info, &info_len))
		t->prog_id = info.id;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		__u32 key = cpu;

		fd = open_cpu_switch_counter(cpu);
		if (fd < 0)
			continue; /* possible but offline CPU */
		t->event_fds[cpu] = fd;
		err = bpf_map__update_elem(t->skel->maps.events, &key, sizeof(key), &fd, sizeof(fd),
					   BPF_ANY);
		if (err) {
			fprintf(stderr, "%s: storing the fd of CPU %d: %s\n", NAME, cpu,
				strerror(-err));
			return -1;
		}
	}
	return 0;
}

/* Runs the leader on each CPU and checks the diffs it leaves there. */
static int check_readings(struct leader_test *t)
{
	struct bpf_perf_event_value *diffs = calloc(t->nr_cpus, sizeof(*diffs));
	int prog_fd = bpf_program__fd(t->skel->progs.on_switch);
	__u32 key = LEADER_READING_KEY;
	__u64 total = 0;
	int cpu, err, ret = -1;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		/* the raw_tp arguments: a NULL task makes the leader credit the current one */
		__u64 args[3] = { 0 };
		LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu,
			    .ctx_in = args, .ctx_size_in = sizeof(args));

		if (t->event_fds[cpu] < 0)
			continue;
		err = bpf_prog_test_run_opts(prog_fd, &opts);
		if (err) {
			fprintf(stderr, "%s: expected test run on CPU %d to succeed, got %s\n", NAME,
				cpu, strerror(-err));
			goto out;
		}
	}

	err = bpf_map__lookup_elem(t->skel->maps.diff_readings, &key, sizeof(key), diffs,
				   t->nr_cpus * sizeof(*diffs), 0);
	if (err) {
		fprintf(stderr, "%s: reading diff_readings: %s\n", NAME, strerror(-err));
		goto out;
	}
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		printf("CPU %d: counter %llu enabled %llu running %llu\n", cpu,
		       (unsigned long long)diffs[cpu].counter, (unsigned long long)diffs[cpu].enabled,
		       (unsigned long long)diffs[cpu].running);
		if (diffs[cpu].running > diffs[cpu].enabled) {
			fprintf(stderr, "%s: CPU %d: expected enabled >= running, got %llu < %llu\n",
				NAME, cpu, (unsigned long long)diffs[cpu].enabled,
				(unsigned long long)diffs[cpu].running);
			goto out;
		}
		total += diffs[cpu].counter;
	}
	if (!total) {
		fprintf(stderr, "%s: expected context switches > 0 on some CPU, got 0\n", NAME);
		goto out;
	}
	ret = 0;
out:
	free(diffs);
	return ret;
}

static void teardown(struct leader_test *t)
{
	int cpu;

	leader_bpf__destroy(t->skel);
	for (cpu = 0; cpu < t->nr_cpus; cpu++)
		if (t->event_fds[cpu] >= 0)
			close(t->event_fds[cpu]);
	free(t->event_fds);
}

/* The program is freed after an RCU grace period, so give it a moment to disappear. */
static int check_unloaded(__u32 prog_id)
{
	int tries, fd;

	if (!prog_id)
		return 0;
	for (tries = 0; tries < 100; tries++) {
		fd = bpf_prog_get_fd_by_id(prog_id);
		if (fd < 0)
			return 0;
		close(fd);
		usleep(10000);
	}
	fprintf(stderr, "%s: expected program %u to be unloaded after destroy, still there\n", NAME,
		prog_id);
	return -1;
}

int main(void)
{
	struct leader_test t = {};
	int cpu, ret = 1;

	if (geteuid() != 0) {
		printf("needs root to load BPF programs\n");
		return EXIT_SKIP;
	}

	t.nr_cpus = libbpf_num_possible_cpus();
	if (t.nr_cpus <= 0) {
		fprintf(stderr, "%s: libbpf_num_possible_cpus: %s\n", NAME, strerror(-t.nr_cpus));
		return 1;
	}
	t.event_fds = calloc(t.nr_cpus, sizeof(*t.event_fds));
	for (cpu = 0; cpu < t.nr_cpus; cpu++)
		t.event_fds[cpu] = -1;

	if (!setup(&t)) {
		cause_switches(t.nr_cpus);
		if (!check_readings(&t))
			ret = 0;
	}
	teardown(&t);
	if (check_unloaded(t.prog_id))
		ret = 1;
	return ret;
}
