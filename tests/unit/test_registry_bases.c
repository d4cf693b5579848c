// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's registry when a new cgroup's base cannot be read (src/daemon/registry_cgroups.c):
 * leader_cg_sum() is wrapped (the linker's --wrap) to fail the next fail_sums calls. A cgroup
 * whose base read failed, and failed again at the next snapshot's retry, is not in that snapshot
 * (it used to be, counting from a zero base: the 1,000 pages a child touched in it before its base
 * was taken); at the snapshot after, its base taken, it is there at 0, and then counts a child's
 * 1,000 pages. Needs root, bpffs and a cgroup hierarchy for perf (exit 77 = skipped otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attr_map_remove.h"
#include "check.h"
#include "needs_cgroup.h"
#include "touch_pages.h"
#include "src/counters/leader_cgroups.h"
#include "src/daemon/registry.h"
#include "src/events/cgroup.h"

#define NAME "test_registry_bases"
#define PAGES 1000

static int fail_sums;	/* the next fail_sums calls of leader_cg_sum() fail with -EIO */

int __real_leader_cg_sum(const struct leader_handle *h, const __u32 *idx, __u32 nr,
			 struct bpf_perf_event_value *out);

int __wrap_leader_cg_sum(const struct leader_handle *h, const __u32 *idx, __u32 nr,
			 struct bpf_perf_event_value *out)
{
	if (fail_sums > 0) {
		fail_sums--;
		return -EIO;
	}
	return __real_leader_cg_sum(h, idx, nr, out);
}

/* A child that moves into dir and touches PAGES pages there. */
static void touch_in(const char *dir)
{
	char path[4300];
	pid_t pid = fork();
	FILE *f;

	if (pid == 0) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		f = fopen(path, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f))
			_exit(1);
		touch_pages(PAGES);
		_exit(0);
	}
	CHECK("child in the cgroup", pid > 0 && waitpid(pid, NULL, 0) == pid);
}

/* The page faults of cgroup path in a fresh snapshot, -1 if it is not there. */
static long long own_faults(struct registry *r, const char *path)
{
	struct snapshot s;

	if (!CHECK_OK("registry_snapshot", registry_snapshot(r, &s)))
		return -2;
	for (int i = 0; i < s.nr_cgroups; i++)
		if (!strcmp(s.cgroups[i].path, path))
			return (long long)snap_own(&s, 0, i)->count;
	return -1;
}

int main(void)
{
	char map_path[64], mnt[4096], dir[4200], rel[64];
	struct daemon_config cfg = { .events = "page-faults", .max_cgroup_cpu_series = 1000 };
	struct cgroup_entry e = { .path = rel };
	struct registry *r;
	struct stat st;

	if (!needs_cgroup_bpffs(mnt, sizeof(mnt)))
		return EXIT_SKIP;
	snprintf(map_path, sizeof(map_path), "/sys/fs/bpf/bperf_test_registry_bases_%d", getpid());
	snprintf(rel, sizeof(rel), "/bperf_test_registry_bases_%d", getpid());
	snprintf(dir, sizeof(dir), "%s%s", mnt, rel);
	cfg.attr_map = map_path;
	if (!CHECK_OK("mkdir", mkdir(dir, 0755) ? -errno : 0) || stat(dir, &st))
		return check_exit(NAME);
	e.id = st.st_ino;
	if (!CHECK_OK("registry_open", registry_open(&cfg, false, &r)))
		goto out;
	registry_set_cgroups(r, NULL, 0);	/* the first walk: none */

	/* its base read fails at registration and at the next snapshot's retry */
	fail_sums = 2;
	registry_set_cgroups(r, &e, 1);
	touch_in(dir);
	CHECK_EQ("not exported while it has no base", -1, own_faults(r, rel));
	CHECK_EQ("the reads that failed", 0, fail_sums);
	CHECK_EQ("exported from 0 once its base is taken", 0, own_faults(r, rel));
	touch_in(dir);
	CHECK_NEAR("then counts a child's pages", PAGES, own_faults(r, rel), 20);
	registry_close(r);
out:
	rmdir(dir);
	attr_map_remove(map_path);
	return check_exit(NAME);
}
