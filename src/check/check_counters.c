// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf check: how many hardware events fit the PMU at once, found by trial: a group opens only
 * if the PMU's counters can hold it (the kernel's validate_group, which counts no one else's
 * events), and an enabled group of this task's runs all the time it is enabled only if that
 * many counters are free now (not held by the NMI watchdog or others' pinned events).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "util/proc.h"
#include "counters/open_error.h"

#define MAX_TRIAL 32
#define BUSY_NS 10000000ULL

int check_open_user_event(__u32 type, __u64 config, int group_fd)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
	};
	int fd = syscall(SYS_perf_event_open, &attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static void close_all(int *fds, int nr)
{
	while (--nr >= 0)
		close(fds[nr]);
}

/*
 * Opens a group of this task's: nr copies of config, then extra (if not -1). The fds of the
 * members that opened go to fds; returns how many opened, or -errno of the leader.
 */
static int open_group(__u64 config, int nr, long long extra, int *fds)
{
	int n;

	for (n = 0; n < nr + (extra >= 0); n++) {
		fds[n] = check_open_user_event(PERF_TYPE_HARDWARE, n < nr ? config : (__u64)extra,
					       n ? fds[0] : -1);
		if (fds[n] < 0)
			return n ? n : fds[0];
	}
	return n;
}

/* Whether a group of nr config (and extra) opens. */
static bool group_opens(__u64 config, int nr, long long extra)
{
	int fds[MAX_TRIAL + 1], n = open_group(config, nr, extra, fds);
	bool all = n == nr + (extra >= 0);

	close_all(fds, n > 0 ? n : 0);
	return all;
}

/* The largest group of config that opens (0 if none). */
static int group_capacity(__u64 config)
{
	int nr = 0;

	while (nr < MAX_TRIAL && group_opens(config, nr + 1, -1))
		nr++;
	return nr;
}

/* Whether a group of nr config, enabled while this task spins, ran all the time it was on. */
static bool group_runs_fully(__u64 config, int nr)
{
	int fds[MAX_TRIAL + 1], n = open_group(config, nr, -1, fds);
	__u64 values[3 + MAX_TRIAL + 1] = { 0 };
	unsigned long long end = now_ns() + BUSY_NS;
	bool full = false;

	if (n == nr) {
		while (now_ns() < end)
			;
		full = read(fds[0], values, sizeof(values)) > 0 && values[2] > 0 &&
		       values[1] == values[2];
	}
	close_all(fds, n > 0 ? n : 0);
	return full;
}

/* The free counters now: the largest group up to capacity that runs all the time. */
static void check_free_counters(struct check_ctx *ctx, __u64 config, int capacity)
{
	int nr = capacity;

	while (nr > 0 && !group_runs_fully(config, nr))
		nr--;
	if (nr == capacity)
		check_add(&ctx->report, "counters-free", CHECK_OK,
			  "all %d free now (a group of %d of this task's ran all the time)", nr,
			  nr);
	else
		check_add(&ctx->report, "counters-free", CHECK_WARN,
			  "%d of %d free now: %s; the holders are listed below", nr, capacity,
			  nmi_watchdog_enabled() ? "the NMI watchdog holds one" :
					      "others' events hold the rest");
}

void check_counters(struct check_ctx *ctx)
{
	struct check_report *r = &ctx->report;
	int branches, insns, general, fd;
	__u64 general_config;

	check_add(r, "nmi-watchdog", CHECK_INFO, "%s", nmi_watchdog_enabled() ?
		  "on: the kernel holds a cycles counter on each CPU where it uses the PMU" :
		  "off");
	fd = check_open_user_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1);
	if (fd < 0) {
		ctx->machine.counters = -1;
		check_add(r, "counters", CHECK_SKIP, "instructions:u does not open (%s)",
			  strerror(-fd));
		return;
	}
	close(fd);
	ctx->machine.core_pmu = true;
	/* instructions and cycles may have fixed counters (x86): branches has none there */
	branches = group_capacity(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	insns = group_capacity(PERF_COUNT_HW_INSTRUCTIONS);
	general = branches && branches < insns ? branches : insns;
	general_config = general == insns ? PERF_COUNT_HW_INSTRUCTIONS :
					    PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	ctx->machine.counters = general;
	ctx->machine.cycle_counter = group_opens(general_config, general, PERF_COUNT_HW_CPU_CYCLES);
	check_add(r, "counters", general ? CHECK_OK : CHECK_FAIL,
		  "%d general-purpose (a group of %d %s opens, not %d)%s%s", general, general,
		  general_config == PERF_COUNT_HW_INSTRUCTIONS ? "instructions" : "branches",
		  general + 1, insns > general ? ", plus one for instructions" : "",
		  ctx->machine.cycle_counter ? ", plus one for cycles" : "");
	if (general)
		check_free_counters(ctx, general_config, general);
}
