// SPDX-License-Identifier: GPL-2.0-only
/*
 * Making a leader (leader.h): its programs loaded and attached, its events opened on every CPU.
 * Nothing here touches the attr map, so a leader is made without its lock (leader_create()).
 */
#include "leader.h"
#include "counter.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/target.h"
#include "kernel_features.h"
#include "leader.skel.h"
#include "leader_internal.h"
#include "leader_maps.h"

static int sys_perf_event_open(struct perf_event_attr *attr, int cpu, int group_fd)
{
	return (int)syscall(__NR_perf_event_open, attr, -1, cpu, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Opens member m of attrs[0..nr) on cpu. enabled_leader: a trial open with the group's leader
 * enabled (see leader_group_fits()); else a group starts once complete, as perf enables its
 * groups.
 */
static int open_member(const struct perf_event_attr *attrs, int nr, int m, int cpu, int group_fd,
		       bool enabled_leader)
{
	struct perf_event_attr attr = attrs[m];
	int fd;

	attr.disabled = nr > 1 && m == 0 && !enabled_leader;
	attr.inherit = 0;
	attr.enable_on_exec = 0;
	attr.sample_type = 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, cpu, group_fd);
	if (fd < 0 && errno == EINVAL && (attr.exclude_guest || attr.exclude_host)) {
		/* perf's fallback for PMUs that refuse them (msr) */
		attr.exclude_guest = attr.exclude_host = 0;
		fd = sys_perf_event_open(&attr, cpu, group_fd);
	}
	return fd < 0 ? -errno : fd;
}

static int probe_group(const struct perf_event_attr *attrs, int nr, int *member_err,
		       bool enabled_leader)
{
	struct cpu_map online;
	int fds[LEADER_MAX_MEMBERS + 1], m, err;	/* leader_group_fits() tries one more */

	err = cpu_map_online(&online);
	if (err)
		return err;
	for (m = 0; m < nr; m++) {
		fds[m] = open_member(attrs, nr, m, online.cpus[0], m ? fds[0] : -1,
				     enabled_leader);
		member_err[m] = fds[m] < 0 ? fds[m] : 0;
		if (!err)
			err = member_err[m];
		/* perf tries every member of a group whose leader opened */
		if (!m && err)
			break;
	}
	while (--m >= 0)
		if (fds[m] >= 0)
			close(fds[m]);
	cpu_map_free(&online);
	return err;
}

int leader_probe_group(const struct perf_event_attr *attrs, int nr, int *member_err)
{
	return probe_group(attrs, nr, member_err, false);
}

bool leader_group_fits(const struct perf_event_attr *attrs, int nr, bool spare)
{
	struct perf_event_attr trial[LEADER_MAX_MEMBERS + 1];
	int member_err[LEADER_MAX_MEMBERS + 1];

	if (nr < 1 || nr > LEADER_MAX_MEMBERS)
		return false;
	memcpy(trial, attrs, nr * sizeof(*attrs));
	if (spare)
		trial[nr] = attrs[nr - 1];
	return !probe_group(trial, nr + spare, member_err, true);
}

/* The per-CPU events of every member, installed in the leader's events array. */
static int install_events(struct leader_bpf *skel, const struct perf_event_attr *attrs, int nr,
			  int nr_cpus)
{
	int map_fd = bpf_map__fd(skel->maps.events);
	struct cpu_map online;
	int i, m, err = 0;

	err = cpu_map_online(&online);
	if (err)
		return err;
	for (i = 0; i < online.nr && !err; i++) {
		int cpu = online.cpus[i], fds[LEADER_MAX_MEMBERS];

		for (m = 0; m < nr; m++) {
			__u32 key = m * nr_cpus + cpu;

			fds[m] = open_member(attrs, nr, m, cpu, m ? fds[0] : -1, false);
			if (fds[m] < 0) {
				err = fds[m];
				break;
			}
			if (bpf_map_update_elem(map_fd, &key, &fds[m], BPF_ANY)) {
				err = -errno;
				m++;
				break;
			}
		}
		if (!err && nr > 1 && ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0) < 0)
			err = -errno;
		/* BPF_F_PRESERVE_ELEMS: the array keeps the events after these fds close. */
		while (--m >= 0)
			if (fds[m] >= 0)
				close(fds[m]);
	}
	cpu_map_free(&online);
	return err;
}

/* The members counting context switches: their slices go to the previous owner. */
static __u32 context_switch_members(const struct perf_event_attr *attrs, int nr)
{
	__u32 mask = 0;
	int m;

	for (m = 0; m < nr; m++)
		if (attrs[m].type == PERF_TYPE_SOFTWARE &&
		    attrs[m].config == PERF_COUNT_SW_CONTEXT_SWITCHES)
			mask |= 1u << m;
	return mask;
}

/*
 * The exit probe (on_exit_task), attached here rather than by libbpf, whose link would keep the
 * probe's perf event fd open in this process for good: the link holds the event itself. Where
 * the kernel has no BPF links of perf events the program is attached to the event by ioctl and
 * the event goes in exit_probe_hold (hold_fd), which keeps it while the leader lives. Returns
 * the link fd, 0 for an event held so, or -errno.
 */
static int attach_exit_probe(const struct bpf_program *prog, const char *func, bool ret,
			     int hold_fd)
{
	int pfd = kprobe_event_open(func, ret, -1), lfd, err;
	__u32 zero = 0;

	if (pfd < 0)
		return pfd;
	if (kernel_features()->perf_link)
		lfd = bpf_link_create(bpf_program__fd(prog), pfd, BPF_PERF_EVENT, NULL);
	else
		lfd = ioctl(pfd, PERF_EVENT_IOC_SET_BPF, bpf_program__fd(prog)) ||
		      bpf_map_update_elem(hold_fd, &zero, &pfd, BPF_ANY) ? -1 : 0;
	err = -errno;
	close(pfd);
	return lfd < 0 ? err : lfd;
}

/* Our dup of a link libbpf made, which stays attached once libbpf's own fd is gone; or -1. */
static int keep_link(struct bpf_link *link)
{
	int fd;

	if (!link)
		return -1;
	fd = fcntl(bpf_link__fd(link), F_DUPFD_CLOEXEC, 3);
	bpf_link__disconnect(link);
	close(bpf_link__fd(link));
	bpf_link__destroy(link);
	return fd < 0 ? -1 : fd;
}

/*
 * Attaches the exit program the skeleton loaded: on_process_exit where sched_process_exit is
 * perf's exit or there are no kprobes, else on_exit_task at perf_event_exit_task(), or where
 * that cannot be probed (built without ftrace's hooks: 5.10 logs a line saying so) and perf
 * stops before exit_mm(), at the return of taskstats_exit(), which comes right before it.
 * Returns its link fd, or -1 where it has none (held in exit_probe_hold, or none attached: then
 * a task stops at its first switch past perf's exit); *hook says which.
 */
static int attach_exit_program(struct leader_bpf *skel, enum exit_hook *hook)
{
	int hold = bpf_map__fd(skel->maps.exit_probe_hold), fd;

	if (!bpf_program__autoload(skel->progs.on_exit_task)) {
		fd = keep_link(bpf_program__attach(skel->progs.on_process_exit));
		*hook = fd < 0 ? EXIT_AT_SWITCH : kernel_features()->exit_tp_at_perf_exit ?
			EXIT_AT_TRACEPOINT : EXIT_AT_SCHED_EXIT;
		return fd;
	}
	*hook = EXIT_AT_PERF_EXIT;
	fd = attach_exit_probe(skel->progs.on_exit_task, "perf_event_exit_task", false, hold);
	if (fd < 0 && perf_exit_before_mm()) {
		*hook = EXIT_AT_TASKSTATS_RETURN;
		fd = attach_exit_probe(skel->progs.on_exit_task, "taskstats_exit", true, hold);
	}
	if (fd < 0)
		*hook = EXIT_AT_SWITCH;
	return fd <= 0 ? -1 : fd;
}

/* *out = a dup of fd kept past the skeleton, unless err is set already; 0 or the first -errno */
static int dup_fd(int fd, int *out, int err)
{
	if (err)
		return err;
	*out = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	return *out < 0 ? -errno : 0;
}

/*
 * The leader's maps in maps are made with templates of their inner maps sized for its members
 * (the arrays' inner maps must match them): fds[] to close after load. 0 or -errno.
 */
static int set_templates(struct leader_bpf *skel, __u32 nr, int fds[6])
{
	struct bpf_map *outer[6] = {
		skel->maps.accum, skel->maps.filter, skel->maps.cg_index, skel->maps.cg_accum,
		skel->maps.cg_users, skel->maps.task_slots,
	};
	const enum leader_inner kinds[6] = { INNER_ACCUM, INNER_FILTER, INNER_CG_INDEX,
					     INNER_CG_ACCUM, INNER_CG_USERS, INNER_TASK_SLOTS };
	int i, err = 0;

	for (i = 0; i < 6; i++)
		fds[i] = -1;
	for (i = 0; i < 6 && !err; i++) {
		fds[i] = leader_inner_new(kinds[i], nr, 0);
		err = fds[i] < 0 ? fds[i] : bpf_map__set_inner_map_fd(outer[i], fds[i]);
	}
	return err;
}

static void close_templates(const int fds[6])
{
	int i;

	for (i = 0; i < 6; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* The verifier log's "processed N insns", or 0. */
static __u32 logged_insns(const char *log)
{
	const char *at = log ? strstr(log, "processed ") : NULL;

	return at ? (__u32)strtoul(at + strlen("processed "), NULL, 10) : 0;
}

static __u32 verified_insns(const struct bpf_program *prog, const char *log)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_program__fd(prog) < 0)
		return 0;
	if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len) && info.verified_insns)
		return info.verified_insns;
	return logged_insns(log);
}

/*
 * leader_bpf__load(), and with -v what it took: the wall time and each program's instructions
 * verified (bpf_prog_info's, or before Linux 5.16 the verifier log's statistics, asked for only
 * then). The figures of each kernel are in tests/README.md.
 */
static int load_skeleton(struct leader_bpf *skel, int nr, int verbose)
{
	struct bpf_program *progs[] = { skel->progs.on_switch, skel->progs.on_exec,
					skel->progs.on_newtask, skel->progs.on_cgroup_move,
					skel->progs.on_exit_task, skel->progs.on_process_exit };
	const int nr_progs = sizeof(progs) / sizeof(progs[0]);
	bool want_log = verbose >= 1 && !kernel_features()->verified_insns;
	char *logs[sizeof(progs) / sizeof(progs[0])] = { 0 };
	const size_t log_size = 4096;
	struct timespec t0, t1;
	int i, err;

	for (i = 0; want_log && i < nr_progs; i++) {
		logs[i] = xzalloc(log_size);
		bpf_program__set_log_buf(progs[i], logs[i], log_size);
		bpf_program__set_log_level(progs[i], 4);	/* statistics only */
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = leader_bpf__load(skel);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!err && verbose >= 1) {
		kernel_features_report(verbose);
		pr_debug(verbose, 1, "bperf: leader of %d member%s loaded in %.1f ms", nr,
			 nr == 1 ? "" : "s", (t1.tv_sec - t0.tv_sec) * 1e3 +
			 (t1.tv_nsec - t0.tv_nsec) / 1e6);
		for (i = 0; i < nr_progs; i++)
			if (bpf_program__autoload(progs[i]))
				pr_debug(verbose, 1, "bperf: leader program %s: %u insns verified",
					 bpf_program__name(progs[i]),
					 verified_insns(progs[i], logs[i]));
	}
	for (i = 0; i < nr_progs; i++)
		free(logs[i]);
	return err;
}

/* The skeleton's read-only settings and which programs load, before its load. */
static void configure_skeleton(struct leader_bpf *skel, const struct perf_event_attr *key,
			       const struct perf_event_attr *attrs, int nr, int nr_cpus)
{
	const struct kernel_features *kf = kernel_features();
	bool exit_probe;
	int i;

	bpf_map__set_max_entries(skel->maps.events, nr_cpus * nr);
	bpf_map__set_max_entries(skel->maps.prev_readings, nr);
	skel->rodata->nr_members = nr;
	skel->rodata->nr_cpus = nr_cpus;
	skel->rodata->prev_owner_members = context_switch_members(attrs, nr);
	_Static_assert(sizeof(*key) <= LEADER_KEY_SIZE, "attr map key too big for the leader");
	memcpy((void *)skel->rodata->attr_key, key, sizeof(*key));
	for (i = 0; i < nr; i++)
		memcpy((void *)skel->rodata->member_attrs[i], &attrs[i], sizeof(attrs[i]));
	skel->rodata->have_task_btf = kf->task_btf;
	/* where perf stops counting an exiting task: attach_exit_program() */
	exit_probe = !kf->exit_tp_at_perf_exit && kf->kprobes;
	bpf_program__set_autoload(skel->progs.on_process_exit, !exit_probe);
	bpf_program__set_autoload(skel->progs.on_exit_task, exit_probe);
}

/* The handle's own fds of the skeleton's maps, program and links: 0 or the first error. */
static int dup_skeleton_fds(struct leader_handle *h, struct leader_bpf *skel,
			    struct bpf_link *const *links)
{
	int i, err;

	err = dup_fd(bpf_map__fd(skel->maps.leader_state), &h->state_fd, 0);
	err = dup_fd(bpf_map__fd(skel->maps.sessions), &h->sessions_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.accum), &h->accum_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.filter), &h->filter_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.prev_readings), &h->prev_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.filter_gen), &h->gen_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.cg_index), &h->cg_index_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.cg_accum), &h->cg_accum_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.cg_users), &h->cg_users_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.task_slots), &h->task_slots_fd, err);
	err = dup_fd(bpf_map__fd(skel->maps.inner_ids), &h->inner_ids_fd, err);
	err = dup_fd(bpf_program__fd(skel->progs.on_switch), &h->prog_fd, err);
	for (i = 0; i < LEADER_EXIT_LINK; i++)
		err = dup_fd(bpf_link__fd(links[i]), &h->link_fds[i], err);
	return err;
}

/* The programs attached (their links into links[]), the exit program's fd in h: 0 or -errno. */
static int attach_programs(struct leader_handle *h, struct leader_bpf *skel,
			   struct bpf_link **links, int verbose)
{
	struct bpf_program *progs[LEADER_EXIT_LINK] = {
		skel->progs.on_switch, skel->progs.on_exec, skel->progs.on_newtask,
		skel->progs.on_cgroup_move,
	};
	enum exit_hook hook;
	int i;

	for (i = 0; i < LEADER_EXIT_LINK; i++) {
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i])
			return -errno;
	}
	/* a kernel that refuses the probe counts as one without kprobes */
	h->link_fds[LEADER_EXIT_LINK] = attach_exit_program(skel, &hook);
	pr_debug(verbose, 1, "bperf: exiting tasks stop counting at %s", exit_hook_name(hook));
	return 0;
}

static int create_leader(struct leader_handle *h, const struct perf_event_attr *key,
			 const struct perf_event_attr *attrs, int nr, int verbose)
{
	struct bpf_link *links[LEADER_EXIT_LINK] = { 0 };
	struct leader_state st = { .abi_version = LEADER_ABI_VERSION };
	int nr_cpus = libbpf_num_possible_cpus();
	struct leader_bpf *skel;
	int i, err, templates[6];

	skel = leader_bpf__open();
	if (!skel)
		return -errno ? -errno : -ENOMEM;
	configure_skeleton(skel, key, attrs, nr, nr_cpus);
	err = set_templates(skel, nr, templates);
	if (!err)
		err = load_skeleton(skel, nr, verbose);
	close_templates(templates);
	if (!err)
		err = attach_programs(h, skel, links, verbose);
	if (err)
		goto out;
	if (h->link_fds[LEADER_EXIT_LINK] >= 0)
		st.exit_link_id = leader_link_id_of(h->link_fds[LEADER_EXIT_LINK]);
	st.nr_members = nr;
	st.nr_cpus = nr_cpus;
	st.exec_link_id = leader_link_id_of(bpf_link__fd(links[1]));
	st.newtask_link_id = leader_link_id_of(bpf_link__fd(links[2]));
	st.cgroup_link_id = leader_link_id_of(bpf_link__fd(links[3]));
	err = dup_skeleton_fds(h, skel, links);
	if (!err)
		err = leader_write_state(h, &st);
	if (!err)
		err = install_events(skel, attrs, nr, nr_cpus);
	h->nr_members = nr;
	h->nr_cpus = nr_cpus;
	h->created = true;
out:
	/*
	 * Our dups keep the links attached; the skeleton's own fds go (libbpf leaves a
	 * disconnected link's fd open).
	 */
	for (i = 0; i < LEADER_EXIT_LINK; i++) {
		if (!links[i])
			continue;
		if (!err) {
			bpf_link__disconnect(links[i]);
			close(bpf_link__fd(links[i]));
		}
		bpf_link__destroy(links[i]);
	}
	leader_bpf__destroy(skel);
	if (err) {
		leader_put(h);
		leader_handle_init(h);
	}
	return err;
}

/* perf checks this once at load: reads need BPF_PROG_TEST_RUN on a chosen CPU. */
static int check_test_run(const struct leader_handle *h)
{
	__u64 args[3] = { LEADER_SYNC_MAGIC };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = 0);

	return bpf_prog_test_run_opts(h->prog_fd, &opts) ? -errno : 0;
}

int leader_create(struct leader_handle *h, const struct perf_event_attr *key,
		  const struct perf_event_attr *attrs, int nr, int verbose)
{
	int err;

	leader_handle_init(h);
	if (!kernel_features()->test_run_on_cpu) {
		pr_err("Shared counters need BPF_PROG_TEST_RUN of raw_tp programs on a given CPU "
		       "(Linux 5.10), which this kernel lacks");
		return -ECANCELED;
	}
	err = create_leader(h, key, attrs, nr, verbose);
	if (err && open_error_is_unsupported(err))
		return err;	/* the event itself: <not supported>, as with direct counting */
	if (err) {
		pr_err("Failed to load the shared counter leader: %s", strerror(-err));
		return -ECANCELED;
	}
	err = check_test_run(h);
	if (err) {
		pr_err("Failed to read shared counters: the kernel refuses BPF_PROG_TEST_RUN of "
		       "raw_tp programs on a given CPU (%s)", strerror(-err));
		leader_put(h);
		leader_handle_init(h);
		return -ECANCELED;
	}
	h->link_id = leader_link_id_of(h->link_fds[0]);
	return 0;
}
