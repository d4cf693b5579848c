// SPDX-License-Identifier: GPL-2.0-only
/* bperf check: perf_event_paranoid and what this user may count, and how (check.h). */
#include <errno.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "counters/daemon_client.h"
#include "counters/kernel_features.h"
#include "counters/privileges.h"
#include "counters/daemon_proto.h"
#include "counters/open_error.h"

/* 0 if this task may count its own task-clock in user space, else -errno */
static int try_own_count(void)
{
	int fd = check_open_user_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1);

	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

static const char *paranoid_meaning(int level)
{
	if (level <= -1)
		return "every user may count anything";
	if (level == 0)
		return "users may count CPUs and the kernel, not raw tracepoints";
	if (level == 1)
		return "users may count their own tasks, kernel included";
	if (level == 2)
		return "users may count their own tasks in user space";
	return "users may not count at all (Debian's level 3)";
}

static void check_direct(struct check_ctx *ctx, int paranoid, bool perfmon)
{
	int err = try_own_count();

	ctx->machine.direct_user = !err;
	if (err)
		check_add(&ctx->report, "count-direct", CHECK_WARN,
			  "no: this user may not open perf events (%s)", strerror(-err));
	else if (perfmon)
		check_add(&ctx->report, "count-direct", CHECK_OK,
			  "any task, CPU-wide and the kernel (CAP_PERFMON)");
	else
		check_add(&ctx->report, "count-direct", CHECK_OK, "yes: %s",
			  paranoid_meaning(paranoid));
}

/* Where the attr map's pin goes: bpffs mounted there, or bperf mounts it at the default. */
static bool bpffs_at(const char *map_path)
{
	char *dir = xstrdup(map_path), *slash = strrchr(dir, '/');
	struct statfs st;
	bool is_bpffs;

	if (slash)
		*slash = '\0';
	is_bpffs = !statfs(*dir ? dir : "/", &st) && st.f_type == BPF_FS_MAGIC;
	free(dir);
	return is_bpffs;
}

static void check_shared(struct check_ctx *ctx)
{
	const struct kernel_features *kf;

	if (!has_effective_cap(CAP_SYS_ADMIN)) {
		check_add(&ctx->report, "count-shared", CHECK_WARN,
			  "not as this user: shared counters need root (CAP_SYS_ADMIN); the "
			  "daemon serves the others");
		return;
	}
	ctx->machine.bpf_root = true;
	kf = kernel_features();
	if (!kf->test_run_on_cpu) {
		check_add(&ctx->report, "count-shared", CHECK_FAIL,
			  "no: the kernel cannot run a BPF program on a chosen CPU (test runs), "
			  "which shared counters read by");
		return;
	}
	ctx->machine.shared = true;
	check_add(&ctx->report, "count-shared", CHECK_OK, "yes (root); attr map %s%s",
		  ctx->attr_map, bpffs_at(ctx->attr_map) ? "" :
		  ", bpffs not mounted there yet (bperf mounts it at /sys/fs/bpf)");
}

static void check_daemon(struct check_ctx *ctx)
{
	const char *env = getenv(BPERF_DAEMON_SOCKET_ENV);
	struct daemon_conn *conn;
	int err = daemon_conn_open(NULL, 0, &conn);

	if (!err) {
		daemon_conn_close(conn);
		check_add(&ctx->report, "count-daemon", CHECK_OK, "a daemon answers at %s",
			  env ? env : BPERF_DAEMON_SOCKET);
		return;
	}
	check_add(&ctx->report, "count-daemon", CHECK_INFO, "no daemon answers at %s (%s)",
		  env ? env : BPERF_DAEMON_SOCKET,
		  err == -ECANCELED ? "it refused this user" : strerror(-err));
}

void check_access(struct check_ctx *ctx)
{
	int paranoid = perf_event_paranoid();
	bool perfmon = has_effective_cap(CAP_PERFMON);

	check_add(&ctx->report, "perf_event_paranoid", CHECK_INFO, "%d: %s", paranoid,
		  paranoid_meaning(paranoid));
	check_direct(ctx, paranoid, perfmon);
	check_shared(ctx);
	check_daemon(ctx);
}
