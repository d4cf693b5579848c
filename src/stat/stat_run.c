// SPDX-License-Identifier: GPL-2.0-only
/* One run of `bperf stat`: prepare, open, enable, wait (printing -I intervals), read, collect. */
#include "stat_run.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../util/common.h"
#include "../events/stat_config.h"
#include "../metrics/aggregate.h"
#include "../metrics/percore.h"
#include "../metrics/topology.h"
#include "control_cmd.h"
#include "hooks.h"
#include "topdown.h"

void fill_result(struct stat_run *r, struct stat_result *res, const struct counter_value *values,
		 double wall_ns)
{
	memset(res, 0, sizeof(*res));
	res->evlist = &r->opts.evlist;
	res->supported = r->run.session.supported;
	res->aggr_mode = r->opts.aggr_mode;
	res->percore_show_thread = r->opts.percore_show_thread;
	res->nr_aggr = r->results.nr_aggr;
	res->aggr = r->results.aggr;
	res->values = values;
	res->wall_ns = wall_ns;
	res->run_count = r->opts.run_count;
	res->per_thread_drop_zero = r->opts.aggr_mode == AGGR_THREAD &&
				    r->run.session.target.system_wide;
	res->nr_progs = r->bpf_progs.nr;
	res->metric_set = &r->opts.metric_set;
	res->topdown_level = r->opts.td_level;
	res->topdown_no_recovery_bubbles = !topdown_pmu_has_event("cpu",
								  "topdown-recovery-bubbles");
}

/* -b: the counts per program, the counters' thread dimension (tool events sit in the first). */
static struct counter_value *prog_values_alloc(const struct stat_run *r)
{
	return xzalloc(r->run.session.evlist->nr * r->bpf_progs.nr * sizeof(struct counter_value));
}

static void aggregate_per_prog(struct stat_run *r, const struct raw_count *const *prev,
			       struct counter_value *out)
{
	aggregate_counts(r->run.session.counters, r->run.session.evlist->nr, prev, AGGR_THREAD,
			 r->bpf_progs.nr, r->opts.scale, out);
}

/*
 * The aggregates of the mode: topology modes group the target's CPUs by sysfs topology; -A
 * with a percore event needs each CPU's core.
 */
static void build_aggr(struct stat_run *r)
{
	struct run_results *res = &r->results;
	const struct stat_options *o = &r->opts;
	const struct cpu_map *cpus = &r->run.session.target.cpus;
	bool topo_mode = o->aggr_mode == AGGR_SOCKET || o->aggr_mode == AGGR_DIE ||
			 o->aggr_mode == AGGR_CORE || o->aggr_mode == AGGR_NODE;
	bool percore = o->aggr_mode == AGGR_NONE && evlist_has_percore(&o->evlist);
	struct cpu_topology topo;
	int i, max_cpu = 0;

	if (!topo_mode && !percore) {
		res->nr_aggr = aggr_ids_build(o->aggr_mode, &r->run.session.target, &res->aggr);
		return;
	}
	for (i = 0; i < cpus->nr; i++)
		if (cpus->cpus[i] > max_cpu)
			max_cpu = cpus->cpus[i];
	cpu_topology_read(&topo, topology_sysfs_root(), max_cpu + 1);
	if (topo_mode) {
		res->nr_aggr = aggr_ids_build_topology(o->aggr_mode, cpus, &topo, &res->aggr,
						     &res->cpu_aggr);
	} else {
		res->nr_aggr = aggr_ids_build(o->aggr_mode, &r->run.session.target, &res->aggr);
		for (i = 0; i < res->nr_aggr; i++) {
			int cpu = res->aggr[i].cpu;

			res->aggr[i].socket = cpu >= 0 ? topo.socket[cpu] : -1;
			res->aggr[i].die = cpu >= 0 ? topo.die[cpu] : -1;
			res->aggr[i].core = cpu >= 0 ? topo.core[cpu] : -1;
		}
	}
	cpu_topology_free(&topo);
}

/* The counts since prev (or since the start) by aggregate, as they are printed. */
static void aggregate_for_print(struct stat_run *r, const struct raw_count *const *prev,
				struct counter_value *out)
{
	struct run_results *res = &r->results;
	const struct stat_session *s = &r->run.session;

	aggregate_counts_mapped(s->counters, s->evlist->nr, prev, r->opts.aggr_mode, res->nr_aggr,
				res->cpu_aggr, r->opts.scale, out);
	if (r->opts.aggr_mode == AGGR_NONE)
		percore_sum(s->evlist, res->aggr, res->nr_aggr, r->opts.percore_show_thread, out);
	pmu_merge_values(s->evlist, res->aggr, res->nr_aggr, r->opts.aggr_mode, &r->merge, out);
}

static void save_prev(struct stat_run *r)
{
	struct stat_session *s = &r->run.session;
	int i;

	if (!r->prev)
		r->prev = xzalloc(s->evlist->nr * sizeof(*r->prev));
	for (i = 0; i < s->evlist->nr; i++) {
		const struct counter *c = &s->counters[i];
		size_t size = c->nr_cpus * c->nr_threads * sizeof(*c->counts);

		if (!r->prev[i])
			r->prev[i] = xzalloc(size);
		memcpy(r->prev[i], c->counts, size);
	}
}

/* -I: the deltas since the last print, stamped with the time since t0. */
static void print_interval_counts(struct stat_run *r, __u64 t0)
{
	struct stat_session *s = &r->run.session;
	struct counter_value *delta, *prog_delta = NULL;
	struct stat_result res;
	__u64 t = now_ns();

	session_read(s, t - t0, 0, 0);
	delta = xzalloc(s->evlist->nr * r->results.nr_aggr * sizeof(*delta));
	aggregate_for_print(r, (const struct raw_count *const *)r->prev, delta);
	if (r->bpf_progs.nr) {
		prog_delta = prog_values_alloc(r);
		aggregate_per_prog(r, (const struct raw_count *const *)r->prev, prog_delta);
	}
	save_prev(r);
	if (r->recorder) {
		stat_recorder_counts(r->recorder, s);
		stat_recorder_round(r->recorder, false, t - t0);
	}
	fill_result(r, &res, delta, r->opts.interval_ms * 1e6);
	res.prog_values = prog_delta;
	res.run_count = 1;
	res.interval = true;
	res.interval_ts = (double)(t - t0) / 1e9;
	if (r->out.out && (!r->opts.interval_count || r->nr_intervals < r->opts.interval_count))
		print_interval(&r->out, &res, r->nr_printed++);
	r->nr_intervals++;
	free(delta);
	free(prog_delta);
}

static bool task_target_alive(const struct target *t)
{
	int i;

	for (i = 0; i < t->threads.nr; i++)
		if (t->threads.tids[i] > 0 && !kill(t->threads.tids[i], 0))
			return true;
	return false;
}

static struct timespec ns_to_timespec(__u64 ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000ull, .tv_nsec = ns % 1000000000ull };

	return ts;
}

/*
 * --control: waits up to timeout_ns (-1: no limit) for a signal or a command, and runs the
 * commands that came. Returns the signal, or -1 when none came.
 */
static int wait_signal_or_command(struct stat_run *r, long long timeout_ns)
{
	struct pollfd fds[2];
	struct signalfd_siginfo si;
	struct timespec ts = ns_to_timespec(timeout_ns > 0 ? (__u64)timeout_ns : 0);

	if (!r->sig_fd_open) {
		r->sig_fd = signalfd(-1, &r->sigs, SFD_CLOEXEC);
		r->sig_fd_open = r->sig_fd >= 0;
		if (!r->sig_fd_open)
			return -1;
	}
	fds[0] = (struct pollfd){ .fd = r->sig_fd, .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = r->opts.control.ctl_fd, .events = POLLIN };
	if (ppoll(fds, 2, timeout_ns < 0 ? NULL : &ts, NULL) <= 0)
		return -1;
	if (fds[1].revents)
		control_process(&r->opts.control, &r->run.session);
	if ((fds[0].revents & POLLIN) && read(r->sig_fd, &si, sizeof(si)) == sizeof(si))
		return (int)si.ssi_signo;
	return -1;
}

/*
 * Waits for the end of the measurement: the workload's exit, a signal,
 * --timeout, the -p/-t targets' exit (checked every second, as perf), or
 * the last of --interval-count intervals; prints -I intervals meanwhile.
 */
static void wait_for_end(struct stat_run *r, __u64 t0)
{
	const struct stat_options *o = &r->opts;
	__u64 interval_ns = (__u64)o->interval_ms * 1000000ull;
	__u64 timeout_at = o->timeout_ms ? t0 + (__u64)o->timeout_ms * 1000000ull : 0;
	__u64 next_tick = interval_ns ? t0 + interval_ns : 0;
	bool poll_task = r->run.session.target.has_task && !r->have_workload;
	bool timed_out = false;

	for (;;) {
		__u64 now = now_ns(), wake = 0;
		struct timespec ts;
		siginfo_t info;
		int sig;

		if (r->have_workload && !workload_wait(&r->run.workload, false))
			return;
		if (next_tick && now >= next_tick) {
			print_interval_counts(r, t0);
			next_tick += interval_ns;
			if (!r->have_workload && o->interval_count &&
			    r->nr_intervals >= o->interval_count)
				return;
			continue;
		}
		if (timeout_at && now >= timeout_at && !timed_out) {
			if (!r->have_workload)
				return;
			timed_out = true;
			kill(r->run.workload.pid, SIGTERM);
		}
		if (poll_task && !task_target_alive(&r->run.session.target))
			return;
		if (next_tick)
			wake = next_tick;
		if (timeout_at && !timed_out && (!wake || timeout_at < wake))
			wake = timeout_at;
		if (poll_task && (!wake || now + 1000000000ull < wake))
			wake = now + 1000000000ull;
		if (control_active(&r->opts.control)) {
			sig = wait_signal_or_command(r, !wake ? -1 :
							(long long)(wake > now ? wake - now : 0));
		} else if (wake) {
			ts = ns_to_timespec(wake > now ? wake - now : 0);
			sig = sigtimedwait(&r->sigs, &info, &ts);
		} else {
			sig = sigwaitinfo(&r->sigs, &info);
		}
		if (sig < 0)
			continue;
		r->last_signal = sig;
		/*
		 * Without a workload a signal ends counting; with one, only its exit does, but for
		 * -I, where perf stops at once (^C).
		 */
		if (sig != SIGCHLD && (!r->have_workload || interval_ns)) {
			r->run.workload_cut = r->have_workload;
			return;
		}
	}
}

static void report_workload_status(struct stat_run *r)
{
	struct run_results *res = &r->results;
	const struct rusage *ru = &r->run.workload.rusage;
	int status = r->run.workload.status;

	if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		/* a workload cut short by bperf's SIGTERM is no news */
		if (!r->run.workload_cut)
			psignal(WTERMSIG(status), r->opts.argv[0]);
		r->exit_code = 0;
	}
	res->user_s = ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6;
	res->sys_s = ru->ru_stime.tv_sec + ru->ru_stime.tv_usec / 1e6;
}

/* The workload could not be released: it died before its exec (killed meanwhile). */
static void report_unstarted_workload(struct stat_run *r, int err)
{
	int status;

	workload_kill(&r->run.workload, SIGKILL);
	status = r->run.workload.status;
	if (err != -ESRCH)
		pr_err("Workload failed: %s", strerror(-err));
	else if (WIFSIGNALED(status))
		pr_err("Workload failed: %s before its exec", strsignal(WTERMSIG(status)));
	else
		pr_err("Workload failed: exit status %d before its exec", WEXITSTATUS(status));
}

static void collect_run(struct stat_run *r, int run_idx, double elapsed_ns)
{
	struct run_results *res = &r->results;
	struct stat_session *s = &r->run.session;
	int n, i;

	if (!res->aggr)
		build_aggr(r);
	n = s->evlist->nr * res->nr_aggr;
	if (!res->values) {
		res->values = xzalloc(n * sizeof(*res->values));
		res->value_stats = xzalloc(n * sizeof(*res->value_stats));
		res->shadow_counts = xzalloc(n * sizeof(*res->shadow_counts));
		/* -r 0 (forever) keeps one run at a time */
		res->run_elapsed = xzalloc((r->opts.run_count ? r->opts.run_count : 1) *
					 sizeof(*res->run_elapsed));
	}
	aggregate_for_print(r, NULL, res->values);
	for (i = 0; i < n; i++) {
		struct counter_value *v = &res->values[i];

		run_stats_update(&res->value_stats[i], v->count);
		res->shadow_counts[i] = res->value_stats[i].mean;
		v->noise_pct = v->count ?
			100.0 * run_stats_stddev_mean(&res->value_stats[i]) / v->count : 0;
	}
	if (r->bpf_progs.nr) {
		if (!res->prog_values)
			res->prog_values = prog_values_alloc(r);
		aggregate_per_prog(r, NULL, res->prog_values);
	}
	run_stats_update(&res->elapsed, elapsed_ns);
	res->run_elapsed[run_idx] = elapsed_ns / 1e9;
}

/*
 * -D: "Events disabled", then after delay_ms (never for -1) the enable; as in perf, a workload
 * that exits meanwhile ends the wait. Returns 0 and the new *t0, or the enable's error.
 */
static int enable_after_delay(struct stat_run *r, int delay_ms, __u64 *t0)
{
	__u64 end = now_ns() + (__u64)(delay_ms > 0 ? delay_ms : 0) * 1000000ull, now;
	int sig;

	pr_err("%s", EVENTS_DISABLED_MSG);
	*t0 = now_ns();
	if (delay_ms < 0)
		return 0;
	while ((now = now_ns()) < end) {
		struct timespec left = ns_to_timespec(end - now);

		if (r->have_workload && !workload_wait(&r->run.workload, false))
			break;
		sig = sigtimedwait(&r->sigs, NULL, &left);
		/*
		 * As perf's signal handler cuts its sleep short: the delay ends, and the signal,
		 * pending again (it is blocked), is wait_for_end()'s to act on.
		 */
		if (sig > 0 && sig != SIGCHLD) {
			raise(sig);
			break;
		}
	}
	if (session_enable(&r->run.session))
		return -EIO;
	pr_err("%s", EVENTS_ENABLED_MSG);
	*t0 = now_ns();
	return 0;
}

/* The pre hook, the workload forked and held, the session built and opened: 0 or an error. */
static int run_open(struct stat_run *r, int run_idx)
{
	struct stat_options *o = &r->opts;
	struct stat_session *s = &r->run.session;
	int err;

	if (o->pre_cmd) {
		err = run_hook("pre", o->pre_cmd);
		if (err)
			return err;
	}
	if (o->sync_before)
		sync();
	if (r->have_workload) {
		err = workload_prepare(&r->run.workload, o->argv);
		if (err) {
			pr_err("Failed to prepare workload: %s", strerror(-err));
			return RUN_FAILED;
		}
	}
	err = session_init(s, o, &o->evlist, r->have_workload ? r->run.workload.pid : 0,
			   o->bpf_prog ? &r->bpf_progs : NULL);
	if (!r->errored)
		r->errored = xzalloc(o->evlist.nr * sizeof(*r->errored));
	s->errored = r->errored;
	s->open_ctx.missing = &r->missing;
	if (!err && run_idx == 0) {
		struct stat_attr_opts attr_opts = {
			.no_inherit = o->no_inherit,
			.enable_on_exec = s->target.forked && !o->delay_ms,
			.all_user = o->all_user,
			.all_kernel = o->all_kernel,
		};

		if (o->group)
			evlist_make_single_group(&o->evlist);
		evlist_config_for_stat(&o->evlist, &attr_opts);
	}
	if (!err) {
		err = session_open(s);
		/* missing capabilities end every run, an open error only this one */
		if (err)
			err = err == -EPERM ? EXIT_FATAL : RUN_FAILED;
	}
	if (!err && run_idx == 0 && r->recorder)
		err = stat_recorder_start(r->recorder, s);
	if (err && r->have_workload)
		workload_kill(&r->run.workload, SIGKILL);
	return err;
}

/*
 * t0, enable, release the workload. perf enables after the release, so a workload woken on
 * bperf's CPU can run ahead of the enable and lose counts in -a/-C mode. As in perf, the elapsed
 * time and -I stamps count from the enable (after -D's delay). 0 or RUN_FAILED.
 */
static int run_start(struct stat_run *r, __u64 *t0)
{
	const struct stat_options *o = &r->opts;
	struct stat_session *s = &r->run.session;
	int err;

	*t0 = now_ns();
	if (!s->target.forked && !o->delay_ms && session_enable(s)) {
		/* as perf: a run whose counters cannot be enabled fails (each one said) */
		if (r->have_workload)
			workload_kill(&r->run.workload, SIGKILL);
		return RUN_FAILED;
	}
	if (r->have_workload) {
		err = workload_start(&r->run.workload);
		if (err) {
			report_unstarted_workload(r, err);
			return RUN_FAILED;
		}
	}
	if (o->delay_ms && enable_after_delay(r, o->delay_ms, t0)) {
		if (r->have_workload)
			workload_kill(&r->run.workload, SIGKILL);
		return RUN_FAILED;
	}
	return 0;
}

/* The end: the workload reaped, the counters stopped and read, the last interval printed. */
static int run_stop(struct stat_run *r, __u64 t0, __u64 t1)
{
	const struct stat_options *o = &r->opts;
	struct stat_session *s = &r->run.session;
	int err;

	/*
	 * Like perf, learn whether exec worked only once the workload is gone: blocking on it
	 * earlier wakes bperf right at the exec, which preempts the workload and adds a context
	 * switch to its counts.
	 */
	if (r->have_workload) {
		err = workload_exec_result(&r->run.workload);
		if (err) {
			pr_err("Workload failed: %s", strerror(-err));
			workload_wait(&r->run.workload, true);
			return RUN_FAILED;
		}
	}
	/* a counter that fails to stop is said, and read all the same */
	session_disable(s);
	if (r->have_workload) {
		workload_kill(&r->run.workload, SIGTERM);
		report_workload_status(r);
	}
	session_read(s, t1 - t0, (__u64)(r->results.user_s * 1e9), (__u64)(r->results.sys_s * 1e9));
	if (o->interval_ms && r->out.out &&
	    (!o->interval_count || r->nr_intervals < o->interval_count))
		print_interval_counts(r, t0);
	if (o->verbose && r->out.out)
		session_print_raw(s, r->out.out);
	if (r->recorder) {
		stat_recorder_counts(r->recorder, s);
		if (!o->interval_ms)
			stat_recorder_round(r->recorder, true, t1 - t0);
	}
	return 0;
}

int run_once(struct stat_run *r, int run_idx)
{
	const struct stat_options *o = &r->opts;
	__u64 t0, t1;
	int err;

	err = run_open(r, run_idx);
	if (!err)
		err = run_start(r, &t0);
	if (err)
		return err;
	/* -I prints before collect_run(): the aggregates must exist by then. */
	if (!r->results.aggr)
		build_aggr(r);
	if (o->interval_ms)
		save_prev(r);
	wait_for_end(r, t0);
	t1 = now_ns();
	err = run_stop(r, t0, t1);
	if (err)
		return err;
	collect_run(r, run_idx, (double)(t1 - t0));
	return o->post_cmd ? run_hook("post", o->post_cmd) : 0;
}
