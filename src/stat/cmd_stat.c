// SPDX-License-Identifier: GPL-2.0-only
/* `bperf stat`: options -> session -> runs -> aggregation -> printers. */
#include "cmd_stat.h"
#include "group_cpus.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../cli.h"
#include "../common.h"
#include "../counters/bpf_log.h"
#include "../counters/bpf_prog_targets.h"
#include "../counters/privileges.h"
#include "../events/pmu.h"
#include "../events/stat_config.h"
#include "../output/output.h"
#include "aggregate.h"
#include "control_cmd.h"
#include "hooks.h"
#include "pmu_merge.h"
#include "metric_events.h"
#include "open_error.h"
#include "options.h"
#include "percore.h"
#include "run_stats.h"
#include "session.h"
#include "stat_record.h"
#include "stat_report.h"
#include "topdown.h"
#include "topology.h"
#include "workload.h"

/* Everything one invocation needs, passed down instead of kept in globals. */
struct stat_run {
	struct stat_options opts;
	struct output_config out;
	struct merge_opts merge;	/* how events on several PMUs print */
	bool close_out;
	sigset_t sigs;		/* signals taken synchronously with sigtimedwait */
	int sig_fd;		/* --control: a signalfd of sigs, polled with the control fd */
	bool sig_fd_open;
	int last_signal;	/* perf re-raises the last one it caught (not SIGCHLD) */
	bool have_workload;
	bool workload_cut;	/* -I: a signal ended counting before the workload's exit */
	struct workload workload;
	struct bpf_prog_targets bpf_progs;	/* -b, open for the whole command */
	struct stat_session session;
	struct stat_recorder *recorder;	/* stat record: the perf.data being written, or NULL */

	/* results, kept across -r runs */
	struct aggr_id *aggr;
	int nr_aggr;
	int *cpu_aggr;		/* --per-socket/die/core/node: CPU index -> aggregate */
	struct counter_value *values;	/* the last run's (what perf 6.1 prints) */
	struct run_stats *value_stats;	/* [ev * nr_aggr + a] over the runs */
	double *shadow_counts;
	struct counter_value *prog_values;	/* -b: [ev * nr_progs + program], the last run's */
	struct run_stats elapsed;
	double *run_elapsed;
	double user_s, sys_s;
	int exit_code;
	/* [ev]: refused as not supported, not opened again (session.h) */
	bool *errored;
	struct missing_features missing;	/* what the kernel refused, for every run */

	/* -I */
	struct raw_count **prev;	/* [ev] previous cumulative counts */
	unsigned int nr_intervals;
	unsigned int nr_printed;
};

static int open_output(struct stat_run *r)
{
	const struct stat_options *o = &r->opts;
	FILE *f = stderr;

	if (o->output_name && strcmp(o->output_name, "-")) {
		time_t now = time(NULL);

		if (o->quiet)
			return 0;
		f = fopen(o->output_name, o->append ? "a" : "w");
		if (!f) {
			pr_err("failed to create output file: %s", strerror(errno));
			return EXIT_FATAL;
		}
		fprintf(f, "# started on %s\n", ctime(&now));
		r->close_out = true;
	} else if (o->log_fd) {
		f = fdopen(o->log_fd, o->append ? "a" : "w");
		if (!f) {
			pr_err("Failed opening logfd: %s", strerror(errno));
			return EXIT_EINVAL;
		}
		r->close_out = true;
	}
	/* --quiet: no counts at all (r->out.out stays NULL), but a bad --log-fd still fails */
	if (o->quiet) {
		if (r->close_out)
			fclose(f);
		r->close_out = false;
		return 0;
	}
	r->out.out = f;
	if (o->topdown_accuracy_note)
		fputs("Topdown accuracy may decrease when measuring long periods.\n"
		      "Please print the result regularly, e.g. -I1000\n", f);
	r->out.format = o->json ? OUTPUT_JSON : o->csv_sep ? OUTPUT_CSV : OUTPUT_STD;
	r->out.csv_sep = o->csv_sep ? o->csv_sep : " ";
	r->out.big_num = o->big_num && !o->csv_sep;
	r->out.no_csv_summary = o->no_csv_summary;
	r->out.metric_only = o->metric_only;
	r->out.summary = o->summary;
	r->out.interval_clear = o->interval_clear;
	/* perf: the screen clearing only makes sense on a terminal */
	if (o->interval_clear && !isatty(fileno(f))) {
		pr_err("--interval-clear does not work with output");
		stat_options_usage(o, true, "o");
		stat_options_usage(o, false, "log-fd");
		stat_options_usage(o, false, "interval-clear");
		return EXIT_FATAL;
	}
	return 0;
}

static void fill_result(struct stat_run *r, struct stat_result *res,
			const struct counter_value *values, double wall_ns)
{
	memset(res, 0, sizeof(*res));
	res->evlist = &r->opts.evlist;
	res->supported = r->session.supported;
	res->aggr_mode = r->opts.aggr_mode;
	res->percore_show_thread = r->opts.percore_show_thread;
	res->nr_aggr = r->nr_aggr;
	res->aggr = r->aggr;
	res->values = values;
	res->wall_ns = wall_ns;
	res->run_count = r->opts.run_count;
	res->per_thread_drop_zero = r->opts.aggr_mode == AGGR_THREAD &&
				    r->session.target.system_wide;
	res->nr_progs = r->bpf_progs.nr;
	res->metric_set = &r->opts.metric_set;
	res->topdown_level = r->opts.td_level;
	res->topdown_no_recovery_bubbles = !topdown_pmu_has_event("cpu",
								  "topdown-recovery-bubbles");
}

/* -b: the counts per program, the counters' thread dimension (tool events sit in the first). */
static struct counter_value *prog_values_alloc(const struct stat_run *r)
{
	return xzalloc(r->session.evlist->nr * r->bpf_progs.nr * sizeof(struct counter_value));
}

static void aggregate_per_prog(struct stat_run *r, const struct raw_count *const *prev,
			       struct counter_value *out)
{
	aggregate_counts(r->session.counters, r->session.evlist->nr, prev, AGGR_THREAD,
			 r->bpf_progs.nr, r->opts.scale, out);
}

/*
 * The aggregates of the mode: topology modes group the target's CPUs by sysfs topology; -A
 * with a percore event needs each CPU's core.
 */
static void build_aggr(struct stat_run *r)
{
	const struct stat_options *o = &r->opts;
	const struct cpu_map *cpus = &r->session.target.cpus;
	bool topo_mode = o->aggr_mode == AGGR_SOCKET || o->aggr_mode == AGGR_DIE ||
			 o->aggr_mode == AGGR_CORE || o->aggr_mode == AGGR_NODE;
	bool percore = o->aggr_mode == AGGR_NONE && evlist_has_percore(&o->evlist);
	struct cpu_topology topo;
	int i, max_cpu = 0;

	if (!topo_mode && !percore) {
		r->nr_aggr = aggr_ids_build(o->aggr_mode, &r->session.target, &r->aggr);
		return;
	}
	for (i = 0; i < cpus->nr; i++)
		if (cpus->cpus[i] > max_cpu)
			max_cpu = cpus->cpus[i];
	cpu_topology_read(&topo, topology_sysfs_root(), max_cpu + 1);
	if (topo_mode) {
		r->nr_aggr = aggr_ids_build_topology(o->aggr_mode, cpus, &topo, &r->aggr,
						     &r->cpu_aggr);
	} else {
		r->nr_aggr = aggr_ids_build(o->aggr_mode, &r->session.target, &r->aggr);
		for (i = 0; i < r->nr_aggr; i++) {
			int cpu = r->aggr[i].cpu;

			r->aggr[i].socket = cpu >= 0 ? topo.socket[cpu] : -1;
			r->aggr[i].die = cpu >= 0 ? topo.die[cpu] : -1;
			r->aggr[i].core = cpu >= 0 ? topo.core[cpu] : -1;
		}
	}
	cpu_topology_free(&topo);
}

/* The counts since prev (or since the start) by aggregate, as they are printed. */
static void aggregate_for_print(struct stat_run *r, const struct raw_count *const *prev,
				struct counter_value *out)
{
	const struct stat_session *s = &r->session;

	aggregate_counts_mapped(s->counters, s->evlist->nr, prev, r->opts.aggr_mode, r->nr_aggr,
				r->cpu_aggr, r->opts.scale, out);
	if (r->opts.aggr_mode == AGGR_NONE)
		percore_sum(s->evlist, r->aggr, r->nr_aggr, r->opts.percore_show_thread, out);
	pmu_merge_values(s->evlist, r->aggr, r->nr_aggr, r->opts.aggr_mode, &r->merge, out);
}

static void save_prev(struct stat_run *r)
{
	struct stat_session *s = &r->session;
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
	struct stat_session *s = &r->session;
	struct counter_value *delta, *prog_delta = NULL;
	struct stat_result res;
	__u64 t = now_ns();

	session_read(s, t - t0, 0, 0);
	delta = xzalloc(s->evlist->nr * r->nr_aggr * sizeof(*delta));
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
		control_process(&r->opts.control, &r->session);
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
	bool poll_task = r->session.target.has_task && !r->have_workload;
	bool timed_out = false;

	for (;;) {
		__u64 now = now_ns(), wake = 0;
		struct timespec ts;
		siginfo_t info;
		int sig;

		if (r->have_workload && !workload_wait(&r->workload, false))
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
			kill(r->workload.pid, SIGTERM);
		}
		if (poll_task && !task_target_alive(&r->session.target))
			return;
		if (next_tick)
			wake = next_tick;
		if (timeout_at && !timed_out && (!wake || timeout_at < wake))
			wake = timeout_at;
		if (poll_task && (!wake || now + 1000000000ull < wake))
			wake = now + 1000000000ull;
		if (control_active(&r->opts.control)) {
			sig = wait_signal_or_command(r, wake ? (long long)(wake > now ? wake - now : 0) :
							      -1);
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
			r->workload_cut = r->have_workload;
			return;
		}
	}
}

static void report_workload_status(struct stat_run *r)
{
	int status = r->workload.status;

	if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		/* a workload cut short by bperf's SIGTERM is no news */
		if (!r->workload_cut)
			psignal(WTERMSIG(status), r->opts.argv[0]);
		r->exit_code = 0;
	}
	r->user_s = r->workload.rusage.ru_utime.tv_sec + r->workload.rusage.ru_utime.tv_usec / 1e6;
	r->sys_s = r->workload.rusage.ru_stime.tv_sec + r->workload.rusage.ru_stime.tv_usec / 1e6;
}

/* The workload could not be released: it died before its exec (killed meanwhile). */
static void report_unstarted_workload(struct stat_run *r, int err)
{
	int status;

	workload_kill(&r->workload, SIGKILL);
	status = r->workload.status;
	if (err != -ESRCH)
		pr_err("Workload failed: %s", strerror(-err));
	else if (WIFSIGNALED(status))
		pr_err("Workload failed: %s before its exec", strsignal(WTERMSIG(status)));
	else
		pr_err("Workload failed: exit status %d before its exec", WEXITSTATUS(status));
}

static void collect_run(struct stat_run *r, int run_idx, double elapsed_ns)
{
	struct stat_session *s = &r->session;
	int n, i;

	if (!r->aggr)
		build_aggr(r);
	n = s->evlist->nr * r->nr_aggr;
	if (!r->values) {
		r->values = xzalloc(n * sizeof(*r->values));
		r->value_stats = xzalloc(n * sizeof(*r->value_stats));
		r->shadow_counts = xzalloc(n * sizeof(*r->shadow_counts));
		/* -r 0 (forever) keeps one run at a time */
		r->run_elapsed = xzalloc((r->opts.run_count ? r->opts.run_count : 1) *
					 sizeof(*r->run_elapsed));
	}
	aggregate_for_print(r, NULL, r->values);
	for (i = 0; i < n; i++) {
		run_stats_update(&r->value_stats[i], r->values[i].count);
		r->shadow_counts[i] = r->value_stats[i].mean;
		r->values[i].noise_pct = r->values[i].count ?
			100.0 * run_stats_stddev_mean(&r->value_stats[i]) / r->values[i].count : 0;
	}
	if (r->bpf_progs.nr) {
		if (!r->prog_values)
			r->prog_values = prog_values_alloc(r);
		aggregate_per_prog(r, NULL, r->prog_values);
	}
	run_stats_update(&r->elapsed, elapsed_ns);
	r->run_elapsed[run_idx] = elapsed_ns / 1e9;
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

		if (r->have_workload && !workload_wait(&r->workload, false))
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
	if (session_enable(&r->session))
		return -EIO;
	pr_err("%s", EVENTS_ENABLED_MSG);
	*t0 = now_ns();
	return 0;
}

/*
 * perf's rule for -r: a run that cannot count (an event refused, a workload that cannot run)
 * says why and the next run starts; only the last run decides whether counts are printed.
 */
#define RUN_FAILED (-1)

/*
 * One measurement: prepare, open, start, wait, read. Returns 0, RUN_FAILED, or an exit code that
 * ends bperf at once.
 */
static int run_once(struct stat_run *r, int run_idx)
{
	struct stat_options *o = &r->opts;
	struct stat_session *s = &r->session;
	__u64 t0, t1;
	int err;

	if (o->pre_cmd) {
		err = run_hook("pre", o->pre_cmd);
		if (err)
			return err;
	}
	if (o->sync_before)
		sync();
	if (r->have_workload) {
		err = workload_prepare(&r->workload, o->argv);
		if (err) {
			pr_err("Failed to prepare workload: %s", strerror(-err));
			return RUN_FAILED;
		}
	}
	err = session_init(s, o, &o->evlist, r->have_workload ? r->workload.pid : 0,
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
	if (err) {
		if (r->have_workload)
			workload_kill(&r->workload, SIGKILL);
		return err;
	}
	/*
	 * t0, enable, release the workload. perf enables after the release, so a workload woken
	 * on bperf's CPU can run ahead of the enable and lose counts in -a/-C mode.
	 */
	t0 = now_ns();
	if (!s->target.forked && !o->delay_ms && session_enable(s)) {
		/* as perf: a run whose counters cannot be enabled fails (each one said) */
		if (r->have_workload)
			workload_kill(&r->workload, SIGKILL);
		return RUN_FAILED;
	}
	if (r->have_workload) {
		err = workload_start(&r->workload);
		if (err) {
			report_unstarted_workload(r, err);
			return RUN_FAILED;
		}
	}
	/* as in perf, the elapsed time and -I stamps count from the enable */
	if (o->delay_ms && enable_after_delay(r, o->delay_ms, &t0)) {
		if (r->have_workload)
			workload_kill(&r->workload, SIGKILL);
		return RUN_FAILED;
	}
	/* -I prints before collect_run(): the aggregates must exist by then. */
	if (!r->aggr)
		build_aggr(r);
	if (o->interval_ms)
		save_prev(r);
	wait_for_end(r, t0);
	t1 = now_ns();
	/*
	 * Like perf, learn whether exec worked only once the workload is gone:
	 * blocking on it earlier wakes bperf right at the exec, which preempts
	 * the workload and adds a context switch to its counts.
	 */
	if (r->have_workload) {
		err = workload_exec_result(&r->workload);
		if (err) {
			pr_err("Workload failed: %s", strerror(-err));
			workload_wait(&r->workload, true);
			return RUN_FAILED;
		}
	}
	/* a counter that fails to stop is said, and read all the same */
	session_disable(s);
	if (r->have_workload) {
		workload_kill(&r->workload, SIGTERM);
		report_workload_status(r);
	}
	session_read(s, t1 - t0, (__u64)(r->user_s * 1e9), (__u64)(r->sys_s * 1e9));
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
	collect_run(r, run_idx, (double)(t1 - t0));
	return o->post_cmd ? run_hook("post", o->post_cmd) : 0;
}

/* -r 0: each run is printed on its own, so the statistics start over after it. */
static void forget_runs(struct stat_run *r)
{
	size_t n = (size_t)r->session.evlist->nr * r->nr_aggr;

	memset(r->value_stats, 0, n * sizeof(*r->value_stats));
	memset(&r->elapsed, 0, sizeof(r->elapsed));
}

static void print_results(struct stat_run *r)
{
	const struct stat_options *o = &r->opts;
	struct run_summary sum = { 0 };
	struct stat_result res;

	if (!r->out.out || (o->interval_ms && !o->summary))
		return;
	fill_result(r, &res, r->values, r->elapsed.mean);
	res.prog_values = r->prog_values;
	if (o->run_count > 1)
		res.shadow_counts = r->shadow_counts;
	sum.target_desc = r->session.target_desc;
	sum.run_count = o->run_count;
	sum.elapsed_s = r->elapsed.mean / 1e9;
	sum.elapsed_stddev_s = run_stats_stddev_mean(&r->elapsed) / 1e9;
	sum.user_s = r->user_s;
	sum.sys_s = r->sys_s;
	sum.show_rusage = r->session.target.forked && o->run_count == 1;
	sum.null_run = o->null_run;
	sum.run_elapsed_s = r->run_elapsed;
	sum.print_table = o->run_table;
	sum.nmi_watchdog = nmi_watchdog_enabled();
	print_counters(&r->out, &res, &sum);
}

static void stat_run_free(struct stat_run *r)
{
	int i;

	if (r->prev)
		for (i = 0; i < r->opts.evlist.nr; i++)
			free(r->prev[i]);
	free(r->prev);
	free(r->aggr);
	free(r->cpu_aggr);
	free(r->values);
	free(r->value_stats);
	free(r->shadow_counts);
	free(r->run_elapsed);
	free(r->prog_values);
	free(r->errored);
	session_free(&r->session);
	stat_recorder_free(r->recorder);
	bpf_prog_targets_close(&r->bpf_progs);
	if (r->close_out && r->out.out)
		fclose(r->out.out);
	if (r->sig_fd_open)
		close(r->sig_fd);
	stat_options_free(&r->opts);
}

/* -b: the programs, and the evsels of their runs (and run time, without trampolines). */
static int open_bpf_progs(struct stat_run *r)
{
	struct bpf_prog_targets *progs = &r->bpf_progs;
	int i;

	if (bpf_prog_targets_open(progs, r->opts.bpf_prog))
		return EXIT_FATAL;
	for (i = 0; i < progs->nr; i++)
		evlist_add_bpf_prog_stats(&r->opts.evlist, i, progs->progs[i].id,
					  progs->no_trampolines);
	return 0;
}

/* perf dies by the last signal it caught so that the shell sees it (rc 130 for ^C). */
static void reraise_signal(int sig)
{
	if (!sig || sig == SIGCHLD)
		return;
	signal(sig, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &(sigset_t){ 0 }, NULL);
	{
		sigset_t one;

		sigemptyset(&one);
		sigaddset(&one, sig);
		kill(getpid(), sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
	}
}

int cmd_stat(int argc, const char **argv, const struct top_opts *top)
{
	struct stat_run *r = xzalloc(sizeof(*r));
	int err, run_idx, code, sig;

	/* perf's verbose is one variable: --debug verbose=N before the command, then -v adds */
	r->opts.verbose = top->verbose;
	r->opts.trace_opens = top->trace_opens;

	/* perf reads its config files first: the command line overrides them */
	stat_config_vars_read(&r->opts.config);
	r->opts.no_csv_summary = r->opts.config.no_csv_summary;
	err = stat_options_parse(&r->opts, argc, argv);
	if (err)
		goto out;
	bpf_log_init(r->opts.verbose);
	/* perf stat [options] record|report [options]: the stat options come first */
	if (r->opts.argc && !strcmp(r->opts.argv[0], "report")) {
		err = cmd_stat_report(&r->opts, r->opts.argc, r->opts.argv);
		goto out;
	}
	if (r->opts.argc && !strcmp(r->opts.argv[0], "record")) {
		const char *path;

		err = stat_options_parse_record(&r->opts, &path);
		if (err)
			goto out;
		r->recorder = stat_recorder_open(path, argc, argv);
		if (!r->recorder) {
			err = EXIT_FATAL;
			goto out;
		}
	}
	if (!r->opts.big_num_given && r->opts.config.big_num >= 0)
		r->opts.big_num = r->opts.config.big_num;
	r->have_workload = r->opts.argc > 0;
	/*
	 * perf finds its CPU's event tables when it first reads the PMUs, by the time it parses
	 * metrics at the latest, and says which CPU id it used at -v: its first line then (with
	 * its notes on table events merged into sysfs aliases).
	 */
	pmu_tables_verbose_notes(r->opts.events_ctx.sysfs_root, r->opts.verbose);
	/*
	 * perf: a workload whose every event needs a CPU is counted system-wide. perf decides it
	 * before it adds the metrics' events, from -e's alone: a metric that comes down to
	 * duration_time (SMT_2T_Utilization where SMT is off) counts the workload.
	 */
	if (r->have_workload && !r->opts.pid && !r->opts.tid && !r->opts.cpu_list &&
	    !r->opts.system_wide && r->opts.evlist.nr &&
	    evlist_needs_system_wide(&r->opts.evlist))
		r->opts.system_wide = true;
	err = metric_events_add(&r->opts, r->opts.system_wide || r->opts.cpu_list ||
				r->opts.bpf_prog ||
				(!r->have_workload && !r->opts.pid && !r->opts.tid));
	if (err)
		goto out;
	if (!r->opts.evlist.nr && !r->opts.null_run) {
		bool system_wide = r->opts.system_wide || r->opts.cpu_list || r->opts.bpf_prog ||
				   (!r->have_workload && !r->opts.pid && !r->opts.tid);

		err = evlist_add_default(&r->opts.evlist, system_wide, &r->opts.events_ctx);
		if (err) {
			err = EXIT_FATAL;
			goto out;
		}
		err = topdown_default_events_add(&r->opts);
		if (err)
			goto out;
	}
	err = detailed_events_add(&r->opts);
	if (err)
		goto out;
	err = stat_options_expand_cgroups(&r->opts);
	if (err)
		goto out;
	evlist_check_group_cpus(&r->opts.evlist, &(struct group_cpus_target){
		.system_wide = r->opts.system_wide ||
			       (!r->have_workload && !r->opts.pid && !r->opts.tid),
		.cpu_list = r->opts.cpu_list }, r->opts.verbose);
	r->merge = (struct merge_opts){ .hybrid_merge = r->opts.hybrid_merge,
					.no_merge = r->opts.no_merge,
					.user_cpus = r->opts.cpu_list != NULL };
	pmu_merge_prepare(&r->opts.evlist, &r->merge);
	if (r->opts.bpf_prog) {
		err = require_bpf_prog_caps() ? EXIT_FATAL : 0;
		if (!err)
			err = open_bpf_progs(r);
		if (err)
			goto out;
	}
	err = open_output(r);
	if (err)
		goto out;
	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGINT);
	sigaddset(&r->sigs, SIGCHLD);
	sigaddset(&r->sigs, SIGALRM);
	/* -r 0 runs until ^C, which ends perf at once, without printing the cut run */
	if (!r->opts.run_count)
		sigdelset(&r->sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &r->sigs, NULL);

	for (run_idx = 0; run_idx < r->opts.run_count || !r->opts.run_count; run_idx++) {
		if (run_idx)
			session_free(&r->session);
		if (r->opts.run_count != 1 && r->opts.verbose && r->out.out)
			fprintf(r->out.out, "[ bperf stat: executing run #%d ... ]\n", run_idx + 1);
		err = run_once(r, r->opts.run_count ? run_idx : 0);
		if (err && err != RUN_FAILED)
			goto out;
		/* -r 0: perf prints each run and starts over */
		if (!err && !r->opts.run_count && !r->opts.interval_ms) {
			print_results(r);
			forget_runs(r);
		}
		if (r->last_signal == SIGINT && (!r->have_workload || r->workload_cut))
			break;
	}
	/* as in perf, the counts of the runs that worked, unless the last one failed */
	if (err == RUN_FAILED) {
		err = EXIT_FATAL;
		goto out;
	}
	print_results(r);
	err = r->exit_code;
out:
	/* the file is completed even when counting failed (a workload that cannot run), as perf */
	if (r->recorder && stat_recorder_finish(r->recorder, r->opts.interval_ms) && !err)
		err = EXIT_FATAL;
	code = err;
	sig = r->last_signal;
	metric_events_cleanup(&r->opts);
	stat_run_free(r);
	free(r);
	reraise_signal(sig);
	return code;
}
