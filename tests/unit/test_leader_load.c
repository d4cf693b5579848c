// SPDX-License-Identifier: GPL-2.0-only
/*
 * Proves that the shared-counter leader (bpf/leader.bpf.c) loads and works on this kernel, and
 * that upstream perf's followers could use it: load, attach to sched_switch, install one software
 * context-switches event per CPU; with no session the leader reads nothing at a switch; a test
 * run without a context (what upstream perf does at load and before each read) must succeed and
 * from then on every switch leaves its reading in prev_readings and its slice in diff_readings,
 * as perf's leader does. Then nothing of ours may stay loaded after destroy. Needs root (exit
 * 77 = skipped otherwise).
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
#include "check.h"
#include "leader.skel.h"

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

static bool setup(struct leader_test *t)
{
	struct bpf_prog_info info = {};
	__u32 info_len = sizeof(info);
	int cpu, err, fd;
	char name[64];

	t->skel = leader_bpf__open();
	if (!CHECK_MSG("leader open", t->skel, "expected a skeleton, got %s", strerror(errno)))
		return false;
	bpf_map__set_max_entries(t->skel->maps.events, t->nr_cpus);

	err = leader_bpf__load(t->skel);
	if (!CHECK_OK("leader load", err))
		return false;
	err = leader_bpf__attach(t->skel);
	if (!CHECK_OK("leader attach", err))
		return false;
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
		snprintf(name, sizeof(name), "storing the fd of CPU %d", cpu);
		if (!CHECK_OK(name, err))
			return false;
	}
	return true;
}

static bool read_percpu(struct bpf_map *map, struct bpf_perf_event_value *vals, int nr_cpus)
{
	__u32 key = LEADER_READING_KEY;
	char name[64];
	int err;

	err = bpf_map__lookup_elem(map, &key, sizeof(key), vals, nr_cpus * sizeof(*vals), 0);
	snprintf(name, sizeof(name), "reading %s", bpf_map__name(map));
	return CHECK_OK(name, err);
}

/* With no session a switch must cost nothing: no reading at all. */
static bool check_idle_leader(struct leader_test *t)
{
	struct bpf_perf_event_value *prev = calloc(t->nr_cpus, sizeof(*prev));
	bool ok = false;
	char name[64];
	int cpu;

	cause_switches(t->nr_cpus);
	if (!read_percpu(t->skel->maps.prev_readings, prev, t->nr_cpus))
		goto out;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		snprintf(name, sizeof(name), "CPU %d: reading without sessions", cpu);
		if (!CHECK_EQ(name, 0, prev[cpu].counter))
			goto out;
	}
	ok = true;
out:
	free(prev);
	return ok;
}

/* Upstream perf's test run: no context at all (ctx_size_in 0). */
static bool foreign_test_runs(struct leader_test *t)
{
	int prog_fd = bpf_program__fd(t->skel->progs.on_switch);
	char name[96];
	int cpu, err;

	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = cpu);

		if (t->event_fds[cpu] < 0)
			continue;
		err = bpf_prog_test_run_opts(prog_fd, &opts);
		snprintf(name, sizeof(name), "test run without context on CPU %d (upstream perf's)",
			 cpu);
		if (!CHECK_OK(name, err))
			return false;
	}
	return CHECK_MSG("foreign_syncs after a test run without context",
			 t->skel->bss->foreign_syncs, "expected it set, got 0");
}

/*
 * After an upstream test run each switch reads: prev_readings follow each CPU's counter, which
 * counts the switch only after the tracepoint, so it may be ahead by the switches since.
 */
static void check_readings(struct leader_test *t)
{
	struct bpf_perf_event_value *prev = calloc(t->nr_cpus, sizeof(*prev));
	struct bpf_perf_event_value *diffs = calloc(t->nr_cpus, sizeof(*diffs));
	struct { __u64 count, enabled, running; } now; /* the event's read_format */
	__u64 total = 0, count;
	char name[64];
	ssize_t n;
	int cpu;

	cause_switches(t->nr_cpus);
	if (!read_percpu(t->skel->maps.prev_readings, prev, t->nr_cpus) ||
	    !read_percpu(t->skel->maps.diff_readings, diffs, t->nr_cpus))
		goto out;
	for (cpu = 0; cpu < t->nr_cpus; cpu++) {
		if (t->event_fds[cpu] < 0)
			continue;
		n = read(t->event_fds[cpu], &now, sizeof(now));
		snprintf(name, sizeof(name), "CPU %d: counter", cpu);
		if (!CHECK_MSG(name, n == sizeof(now), "expected a reading, got %s",
			       n < 0 ? strerror(errno) : "a short read"))
			goto out;
		count = now.count;
		printf("CPU %d: counter %llu, last reading %llu, last slice %llu\n", cpu,
		       (unsigned long long)count, (unsigned long long)prev[cpu].counter,
		       (unsigned long long)diffs[cpu].counter);
		snprintf(name, sizeof(name), "CPU %d: last reading", cpu);
		if (!CHECK_MSG(name, prev[cpu].counter <= count &&
			       prev[cpu].running <= prev[cpu].enabled,
			       "expected reading <= counter and running <= enabled, got "
			       "%llu > %llu or %llu > %llu", (unsigned long long)prev[cpu].counter,
			       (unsigned long long)count, (unsigned long long)prev[cpu].running,
			       (unsigned long long)prev[cpu].enabled))
			goto out;
		total += prev[cpu].counter + diffs[cpu].counter;
	}
	CHECK_MSG("readings at switches once upstream perf ran it", total,
		  "expected some, got 0");
out:
	free(prev);
	free(diffs);
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
static void check_unloaded(__u32 prog_id)
{
	int tries, fd = -1;

	if (!prog_id)
		return;
	for (tries = 0; tries < 100; tries++) {
		fd = bpf_prog_get_fd_by_id(prog_id);
		if (fd < 0)
			break;
		close(fd);
		usleep(10000);
	}
	CHECK_MSG("program after destroy", fd < 0, "expected program %u unloaded, still there",
		  prog_id);
}

int main(void)
{
	struct leader_test t = {};
	int cpu;

	if (geteuid() != 0) {
		printf("needs root to load BPF programs\n");
		return EXIT_SKIP;
	}

	t.nr_cpus = libbpf_num_possible_cpus();
	if (!CHECK_MSG("possible CPUs", t.nr_cpus > 0, "expected a number, got %s",
		       strerror(-t.nr_cpus)))
		return check_exit(NAME);
	t.event_fds = calloc(t.nr_cpus, sizeof(*t.event_fds));
	for (cpu = 0; cpu < t.nr_cpus; cpu++)
		t.event_fds[cpu] = -1;

	if (setup(&t) && check_idle_leader(&t) && foreign_test_runs(&t))
		check_readings(&t);
	teardown(&t);
	check_unloaded(t.prog_id);
	return check_exit(NAME);
}
