// SPDX-License-Identifier: GPL-2.0-only
/* `bperf stat`: options -> events -> output -> the runs (stat_run.c) -> the printers. */
#include "cmd_stat.h"
#include "group_cpus.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/proc.h"
#include "../util/top_opts.h"
#include "../counters/bpf_log.h"
#include "../counters/privileges.h"
#include "../events/pmu.h"
#include "../events/stat_config.h"
#include "metric_events.h"
#include "stat_report.h"
#include "stat_run.h"
#include "topdown.h"

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

















/* -r 0: each run is printed on its own, so the statistics start over after it. */
static void forget_runs(struct stat_run *r)
{
	size_t n = (size_t)r->run.session.evlist->nr * r->results.nr_aggr;

	memset(r->results.value_stats, 0, n * sizeof(*r->results.value_stats));
	memset(&r->results.elapsed, 0, sizeof(r->results.elapsed));
}

static void print_results(struct stat_run *r)
{
	const struct stat_options *o = &r->opts;
	struct run_summary sum = { 0 };
	struct stat_result res;

	if (!r->out.out || (o->interval_ms && !o->summary))
		return;
	fill_result(r, &res, r->results.values, r->results.elapsed.mean);
	res.prog_values = r->results.prog_values;
	if (o->run_count > 1)
		res.shadow_counts = r->results.shadow_counts;
	sum.target_desc = r->run.session.target_desc;
	sum.run_count = o->run_count;
	sum.elapsed_s = r->results.elapsed.mean / 1e9;
	sum.elapsed_stddev_s = run_stats_stddev_mean(&r->results.elapsed) / 1e9;
	sum.user_s = r->results.user_s;
	sum.sys_s = r->results.sys_s;
	sum.show_rusage = r->run.session.target.forked && o->run_count == 1;
	sum.null_run = o->null_run;
	sum.run_elapsed_s = r->results.run_elapsed;
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
	free(r->results.aggr);
	free(r->results.cpu_aggr);
	free(r->results.values);
	free(r->results.value_stats);
	free(r->results.shadow_counts);
	free(r->results.run_elapsed);
	free(r->results.prog_values);
	free(r->errored);
	session_free(&r->run.session);
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

/*
 * The options, and `stat report` (run here: *done) or `stat record` (its file opened). 0 or the
 * exit code.
 */
static int parse_command(struct stat_run *r, int argc, const char **argv, bool *done)
{
	int err;

	/* perf reads its config files first: the command line overrides them */
	stat_config_vars_read(&r->opts.config);
	r->opts.no_csv_summary = r->opts.config.no_csv_summary;
	err = stat_options_parse(&r->opts, argc, argv);
	if (err)
		return err;
	bpf_log_init(r->opts.verbose);
	/* perf stat [options] record|report [options]: the stat options come first */
	if (r->opts.argc && !strcmp(r->opts.argv[0], "report")) {
		*done = true;
		return cmd_stat_report(&r->opts, r->opts.argc, r->opts.argv);
	}
	if (r->opts.argc && !strcmp(r->opts.argv[0], "record")) {
		const char *path;

		err = stat_options_parse_record(&r->opts, &path);
		if (err)
			return err;
		r->recorder = stat_recorder_open(path, argc, argv);
		if (!r->recorder)
			return EXIT_FATAL;
	}
	if (!r->opts.big_num_given && r->opts.config.big_num >= 0)
		r->opts.big_num = r->opts.config.big_num;
	r->have_workload = r->opts.argc > 0;
	return 0;
}

/* No workload and no -p/-t: perf counts every CPU. */
static bool counts_all_cpus(const struct stat_run *r)
{
	return !r->have_workload && !r->opts.pid && !r->opts.tid;
}

/* The events: -e's, the metrics', the defaults, -d's, per cgroup; their CPUs and names. */
static int prepare_events(struct stat_run *r)
{
	struct stat_options *o = &r->opts;
	int err;

	/*
	 * perf finds its CPU's event tables when it first reads the PMUs, by the time it parses
	 * metrics at the latest, and says which CPU id it used at -v: its first line then (with
	 * its notes on table events merged into sysfs aliases).
	 */
	pmu_tables_verbose_notes(o->events_ctx.sysfs_root, o->verbose);
	/*
	 * perf: a workload whose every event needs a CPU is counted system-wide. perf decides it
	 * before it adds the metrics' events, from -e's alone: a metric that comes down to
	 * duration_time (SMT_2T_Utilization where SMT is off) counts the workload.
	 */
	if (r->have_workload && !o->pid && !o->tid && !o->cpu_list && !o->system_wide &&
	    o->evlist.nr && evlist_needs_system_wide(&o->evlist))
		o->system_wide = true;
	err = metric_events_add(o, o->system_wide || o->cpu_list || o->bpf_prog ||
				counts_all_cpus(r));
	if (err)
		return err;
	if (!o->evlist.nr && !o->null_run) {
		if (evlist_add_default(&o->evlist, o->system_wide || o->cpu_list || o->bpf_prog ||
				       counts_all_cpus(r), &o->events_ctx))
			return EXIT_FATAL;
		err = topdown_default_events_add(o);
		if (err)
			return err;
	}
	err = detailed_events_add(o);
	if (!err)
		err = stat_options_expand_cgroups(o);
	if (err)
		return err;
	evlist_check_group_cpus(&o->evlist, &(struct group_cpus_target){
		.system_wide = o->system_wide || counts_all_cpus(r),
		.cpu_list = o->cpu_list }, o->verbose);
	r->merge = (struct merge_opts){ .hybrid_merge = o->hybrid_merge, .no_merge = o->no_merge,
					.user_cpus = o->cpu_list != NULL };
	pmu_merge_prepare(&o->evlist, &r->merge);
	if (o->bpf_prog && (require_bpf_prog_caps() || open_bpf_progs(r)))
		return EXIT_FATAL;
	return 0;
}

/* The signals the runs wait for, blocked: taken with sigtimedwait or a signalfd. */
static void block_signals(struct stat_run *r)
{
	sigemptyset(&r->sigs);
	sigaddset(&r->sigs, SIGINT);
	sigaddset(&r->sigs, SIGCHLD);
	sigaddset(&r->sigs, SIGALRM);
	/* -r 0 runs until ^C, which ends perf at once, without printing the cut run */
	if (!r->opts.run_count)
		sigdelset(&r->sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &r->sigs, NULL);
}

/* Every run of -r (until ^C for -r 0), then the counts: the exit code. */
static int run_all(struct stat_run *r)
{
	int err = 0, run_idx;

	for (run_idx = 0; run_idx < r->opts.run_count || !r->opts.run_count; run_idx++) {
		if (run_idx)
			session_free(&r->run.session);
		if (r->opts.run_count != 1 && r->opts.verbose && r->out.out)
			fprintf(r->out.out, "[ bperf stat: executing run #%d ... ]\n", run_idx + 1);
		err = run_once(r, r->opts.run_count ? run_idx : 0);
		if (err && err != RUN_FAILED)
			return err;
		/* -r 0: perf prints each run and starts over */
		if (!err && !r->opts.run_count && !r->opts.interval_ms) {
			print_results(r);
			forget_runs(r);
		}
		if (r->last_signal == SIGINT && (!r->have_workload || r->run.workload_cut))
			break;
	}
	/* as in perf, the counts of the runs that worked, unless the last one failed */
	if (err == RUN_FAILED)
		return EXIT_FATAL;
	print_results(r);
	return r->exit_code;
}

int cmd_stat(int argc, const char **argv, const struct top_opts *top)
{
	struct stat_run *r = xzalloc(sizeof(*r));
	bool done = false;
	int err, sig;

	/* perf's verbose is one variable: --debug verbose=N before the command, then -v adds */
	r->opts.verbose = top->verbose;
	r->opts.trace_opens = top->trace_opens;
	err = parse_command(r, argc, argv, &done);
	if (!err && !done)
		err = prepare_events(r);
	if (!err && !done)
		err = open_output(r);
	if (!err && !done) {
		block_signals(r);
		err = run_all(r);
	}
	/* the file is completed even when counting failed (a workload that cannot run), as perf */
	if (r->recorder && stat_recorder_finish(r->recorder, r->opts.interval_ms) && !err)
		err = EXIT_FATAL;
	sig = r->last_signal;
	metric_events_cleanup(&r->opts);
	stat_run_free(r);
	free(r);
	reraise_signal(sig);
	return err;
}
