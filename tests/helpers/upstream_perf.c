// SPDX-License-Identifier: GPL-2.0-only
/*
 * Test helper: plays one upstream perf --bpf-counters session on an attr map, with the programs
 * of bpf/upstream_perf.bpf.c, in the steps perf 6.1 takes (util/bpf_counter.c, bperf__load), so
 * that tests can check how bperf lives beside upstream perf.
 *
 *	upstream_perf leader MAP BYTE...
 *		a session that finds no live leader for the key: loads a leader of perf's layout,
 *		counts the key's event on every CPU with it, files it in MAP (link id, diff_readings
 *		map id), then follows it as below
 *	upstream_perf follow MAP BYTE...
 *		a session that finds a live leader for the key (bperf's or perf's): holds its link
 *		and program, runs it once without a context, and attaches a follower (fexit) to it
 *
 * BYTE...: the attr map key as bpftool prints it (0x05 0x00 ...); MAP is made as perf makes it
 * if there is none. All of it happens with the map flock()ed, as in perf. Then it prints
 * "link L diff_map D follower yes|no" (no: the kernel refuses fexit; `follow` exits 77 then)
 * and keeps everything until its stdin ends, when it prints "follower_runs N" and exits, as a
 * perf session ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "upstream_perf.skel.h"

#define EXIT_SKIP 77
/* The kernel's ENOTSUPP, not in user-space headers: what a missing arch trampoline returns. */
#define KERNEL_ENOTSUPP 524
#define MAX_KEY_SIZE 512
/* perf's ATTR_MAP_SIZE: the entries of a map perf creates */
#define ATTR_MAP_SIZE 16

/* perf's struct perf_event_attr_map_entry */
struct attr_map_entry {
	__u32 link_id;
	__u32 diff_map_id;
};

struct session {
	int map_fd;
	unsigned char key[MAX_KEY_SIZE];
	__u32 key_size;
	struct attr_map_entry entry;
	int link_fd;
	int prog_fd;
	struct upstream_perf_bpf *follower;
};

static int usage(void)
{
	fprintf(stderr, "usage: upstream_perf leader|follow MAP BYTE...\n");
	return 2;
}

static int fail(const char *what, int err)
{
	fprintf(stderr, "upstream_perf: %s: %s\n", what, strerror(err));
	return 1;
}

/* perf's bperf_lock_attr_map: the pinned map, made and pinned first if there is none. */
static int get_map(const char *path)
{
	int fd = bpf_obj_get(path);

	if (fd >= 0 || errno != ENOENT)
		return fd;
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(struct perf_event_attr),
			    sizeof(struct attr_map_entry), ATTR_MAP_SIZE, NULL);
	if (fd < 0 || !bpf_obj_pin(fd, path))
		return fd;
	close(fd);
	return bpf_obj_get(path);	/* pinned meanwhile by someone else */
}

/* Opens and locks the map and reads the key from the words that follow. */
static int open_map(struct session *s, const char *path, int nr_words, char **words)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);
	int i;

	s->map_fd = get_map(path);
	if (s->map_fd < 0)
		return fail(path, errno);
	if (bpf_obj_get_info_by_fd(s->map_fd, &info, &len))
		return fail("map info", errno);
	if (info.key_size > MAX_KEY_SIZE || (__u32)nr_words != info.key_size) {
		fprintf(stderr, "upstream_perf: %d key bytes for a map with %u-byte keys\n",
			nr_words, info.key_size);
		return 2;
	}
	s->key_size = info.key_size;
	for (i = 0; i < nr_words; i++) {
		char *end;
		unsigned long b = strtoul(words[i], &end, 0);

		if (*end || b > 255)
			return usage();
		s->key[i] = b;
	}
	if (flock(s->map_fd, LOCK_EX))
		return fail("flock", errno);
	return 0;
}

static __u32 link_id_of(int fd)
{
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static __u32 map_id_of(int fd)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

/* The key's event on every CPU, in the leader's events array (perf's install_pe). */
static void install_events(struct upstream_perf_bpf *skel, const struct session *s, int nr_cpus)
{
	struct perf_event_attr attr;
	int cpu, fd;

	memcpy(&attr, s->key, sizeof(attr));
	attr.disabled = 0;
	attr.enable_on_exec = 0;
	attr.inherit = 0;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			continue;	/* an offline CPU */
		bpf_map_update_elem(bpf_map__fd(skel->maps.events), &cpu, &fd, BPF_ANY);
		close(fd);	/* BPF_F_PRESERVE_ELEMS keeps it */
	}
}

/* perf's bperf_reload_leader_program: a new leader, filed in the map. */
static int load_leader(struct session *s)
{
	int nr_cpus = libbpf_num_possible_cpus(), err, fd;
	struct upstream_perf_bpf *skel;
	struct bpf_link *link;

	if (!bpf_map_lookup_elem(s->map_fd, s->key, &s->entry)) {
		fd = bpf_link_get_fd_by_id(s->entry.link_id);
		if (fd >= 0) {
			fprintf(stderr, "upstream_perf: the map names a live leader already\n");
			close(fd);
			return 1;
		}
	}
	skel = upstream_perf_bpf__open();
	if (!skel)
		return fail("opening the leader", errno);
	bpf_program__set_autoload(skel->progs.fexit_XXX, false);
	bpf_map__set_max_entries(skel->maps.events, nr_cpus);
	err = upstream_perf_bpf__load(skel);
	if (err) {
		upstream_perf_bpf__destroy(skel);
		return fail("loading the leader", -err);
	}
	link = bpf_program__attach(skel->progs.on_switch);
	if (!link) {
		err = errno;
		upstream_perf_bpf__destroy(skel);
		return fail("attaching the leader", err);
	}
	s->entry.link_id = link_id_of(bpf_link__fd(link));
	s->entry.diff_map_id = map_id_of(bpf_map__fd(skel->maps.diff_readings));
	err = bpf_map_update_elem(s->map_fd, s->key, &s->entry, BPF_ANY) ? errno : 0;
	s->link_fd = bpf_link_get_fd_by_id(s->entry.link_id);
	if (!err && s->link_fd < 0)
		err = errno;
	if (!err)
		install_events(skel, s, nr_cpus);
	/* the link fd taken by id keeps the leader, as in perf */
	bpf_link__destroy(link);
	upstream_perf_bpf__destroy(skel);
	return err ? fail("filing the leader", err) : 0;
}

/* perf's bperf__load from the leader on: returns 0, EXIT_SKIP (no fexit) or 1. */
static int follow(struct session *s)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);
	struct bpf_link_info info = { 0 };
	__u32 len = sizeof(info);
	int diff_fd, err;

	if (s->link_fd < 0) {
		if (bpf_map_lookup_elem(s->map_fd, s->key, &s->entry))
			return fail("no entry for the key", errno);
		s->link_fd = bpf_link_get_fd_by_id(s->entry.link_id);
		if (s->link_fd < 0)
			return fail("the entry's leader link", errno);
	}
	if (bpf_obj_get_info_by_fd(s->link_fd, &info, &len))
		return fail("link info", errno);
	s->prog_fd = bpf_prog_get_fd_by_id(info.prog_id);
	if (s->prog_fd < 0)
		return fail("the leader program", errno);
	diff_fd = bpf_map_get_fd_by_id(s->entry.diff_map_id);
	if (diff_fd < 0)
		return fail("the leader's diff_readings", errno);
	/* perf checks that test runs work: no context at all */
	if (bpf_prog_test_run_opts(s->prog_fd, &opts))
		return fail("test run of the leader", errno);

	s->follower = upstream_perf_bpf__open();
	if (!s->follower)
		return fail("opening the follower", errno);
	bpf_program__set_autoload(s->follower->progs.on_switch, false);
	bpf_program__set_attach_target(s->follower->progs.fexit_XXX, s->prog_fd, "on_switch");
	bpf_map__reuse_fd(s->follower->maps.diff_readings, diff_fd);
	close(diff_fd);
	err = upstream_perf_bpf__load(s->follower);
	if (!err)
		err = upstream_perf_bpf__attach(s->follower);
	if (err) {
		upstream_perf_bpf__destroy(s->follower);
		s->follower = NULL;
		if (-err == EPERM || -err == EOPNOTSUPP || -err == KERNEL_ENOTSUPP) {
			printf("fexit refused: %s\n", strerror(-err));
			return EXIT_SKIP;
		}
		return fail("loading the follower", -err);
	}
	return 0;
}

static void wait_stdin_eof(void)
{
	char buf[256];

	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	struct session s = { .map_fd = -1, .link_fd = -1, .prog_fd = -1 };
	bool leader;
	int ret;

	if (argc < 4 || (strcmp(argv[1], "leader") && strcmp(argv[1], "follow")))
		return usage();
	leader = !strcmp(argv[1], "leader");
	ret = open_map(&s, argv[2], argc - 3, argv + 3);
	if (!ret && leader)
		ret = load_leader(&s);
	if (!ret)
		ret = follow(&s);
	/* a leader's session counts on without a follower where fexit is refused */
	if (ret == EXIT_SKIP && leader)
		ret = 0;
	if (s.map_fd >= 0)
		flock(s.map_fd, LOCK_UN);
	if (!ret) {
		printf("link %u diff_map %u follower %s\n", s.entry.link_id, s.entry.diff_map_id,
		       s.follower ? "yes" : "no");
		fflush(stdout);
		wait_stdin_eof();
		printf("follower_runs %llu\n",
		       s.follower ? (unsigned long long)s.follower->bss->follower_runs : 0ull);
	}
	upstream_perf_bpf__destroy(s.follower);
	if (s.prog_fd >= 0)
		close(s.prog_fd);
	if (s.link_fd >= 0)
		close(s.link_fd);
	if (s.map_fd >= 0)
		close(s.map_fd);
	return ret;
}
