// SPDX-License-Identifier: GPL-2.0-only
#include "session.h"

#include <errno.h>
#include <signal.h>
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../counters/backend.h"
#include "../counters/bpf_prog_targets.h"
#include "../counters/daemon_client.h"
#include "../counters/privileges.h"
#include "../counters/open_error.h"
#include "../metrics/pmu_merge.h"
#include "weak_group.h"

static void warn_overrides(const struct stat_options *o)
{
	if (!o->pid && !o->tid)
		return;
	if (o->cpu_list)
		pr_err("PID/TID switch overriding CPU");
	if (o->system_wide)
		pr_err("PID/TID switch overriding SYSTEM");
}

/* perf's message when -p/-t (or every thread) cannot be listed, with the -p and -t lines. */
static void threads_error_usage(const struct stat_options *o)
{
	pr_err("Problems finding threads of monitor");
	stat_options_usage(o, true, "p");
	stat_options_usage(o, false, "t");
}

static char *workload_desc(const struct stat_options *o)
{
	size_t len = 3;
	char *s;
	int i;

	for (i = 0; i < o->argc; i++)
		len += strlen(o->argv[i]) + 1;
	s = xzalloc(len);
	strcat(s, "'");
	for (i = 0; i < o->argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, o->argv[i]);
	}
	strcat(s, "'");
	return s;
}

static int init_task_target(struct stat_session *s, const struct stat_options *o)
{
	struct target *t = &s->target;
	int err;

	t->has_task = true;
	cpu_map_any(&t->cpus);
	if (o->pid) {
		err = thread_map_from_pids(&t->threads, o->pid);
		t->pids = true;
		s->target_desc = xasprintf("process id '%s'", o->pid);
		/* Threads that exit between listing and opening are skipped, as in perf. */
		s->open_ctx.ignore_missing_thread = true;
	} else {
		err = thread_map_from_tids(&t->threads, o->tid);
		s->target_desc = xasprintf("thread id '%s'", o->tid);
	}
	if (err) {
		threads_error_usage(o);
		return EXIT_EINVAL;
	}
	return 0;
}

/* -b: every online CPU, all tasks, while the programs run; a workload only sets the duration. */
static int init_bpf_prog_target(struct stat_session *s, const struct stat_options *o)
{
	struct target *t = &s->target;

	t->system_wide = true;
	thread_map_single(&t->threads, -1);
	if (cpu_map_online(&t->cpus)) {
		pr_err("failed to read the online CPUs: %s", strerror(ENOENT));
		return EXIT_FATAL;
	}
	s->target_desc = xasprintf("'BPF program(s) %s'", o->bpf_prog);
	return 0;
}

int session_init(struct stat_session *s, const struct stat_options *o, struct evlist *evlist,
		 pid_t workload_pid, const struct bpf_prog_targets *bpf_progs)
{
	struct target *t = &s->target;
	int err;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	s->evlist = evlist;
	s->open_ctx.verbose = o->verbose;
	s->open_ctx.trace_opens = o->trace_opens;
	s->open_ctx.log = stderr;
	s->open_ctx.missing = &s->missing;
	s->open_ctx.target = t;
	s->open_ctx.bpf_attr_map = o->bpf_attr_map;
	s->open_ctx.bpf_progs = bpf_progs;
	if (bpf_progs)
		return init_bpf_prog_target(s, o);
	warn_overrides(o);
	if (o->pid || o->tid)
		return init_task_target(s, o);

	/* --per-thread system-wide: per-thread counters on every thread, as perf does. */
	if (o->aggr_mode == AGGR_THREAD && !o->cpu_list && (o->system_wide || !workload_pid)) {
		t->system_wide = true;
		t->has_task = true;
		cpu_map_any(&t->cpus);
		s->open_ctx.ignore_missing_thread = true;
		s->target_desc = xstrdup("'system wide'");
		err = thread_map_all(&t->threads);
		if (err)
			threads_error_usage(o);
		return err ? EXIT_EINVAL : 0;
	}
	if (o->system_wide || o->cpu_list || !workload_pid) {
		t->system_wide = true;
		thread_map_single(&t->threads, -1);
		if (o->cpu_list)
			err = cpu_map_parse(&t->cpus, o->cpu_list);
		else
			err = cpu_map_online(&t->cpus);
		if (err) {
			pr_err("failed to parse CPUs map: %s", strerror(ENOENT));
			stat_options_usage(o, true, "C");
			stat_options_usage(o, false, "a");
			return EXIT_EINVAL;
		}
		if (o->system_wide || !o->cpu_list)
			s->target_desc = xstrdup("'system wide'");
		else
			s->target_desc = xasprintf("'CPU(s) %s'", o->cpu_list);
		return 0;
	}
	t->forked = true;
	cpu_map_any(&t->cpus);
	thread_map_single(&t->threads, workload_pid);
	s->target_desc = workload_desc(o);
	return 0;
}

/* The backend of evsel, from counters/ (no_caps: the daemon's socket for shared counters). */
static const struct counter_ops *choose_backend(const struct stat_session *s,
						const struct evsel *evsel, bool no_caps)
{
	const struct evsel *leader = &s->evlist->entries[evsel->leader_idx];
	struct backend_request req = {
		.evlist = s->evlist,
		.evsel = evsel,
		.bpf_progs = s->open_ctx.bpf_progs,
		.shared = s->opts->bpf_counters || leader->bpf_counter ||
			  config_list_has_token(s->opts->config.bpf_counter_events, leader->name),
		.per_thread = s->opts->aggr_mode == AGGR_THREAD,
		.no_caps = no_caps,
		.verbose = s->opts->verbose,
	};

	return counter_backend(&req);
}

/*
 * A group leader's members[]: its counters in evlist order, itself first, so that backends find
 * a group's members without assuming they stand together in the session's array.
 */
static void group_add(struct counter *c)
{
	struct counter *l = c->leader;
	int m, nr = l->evsel->nr_members;

	if (nr < 2)
		return;
	if (!l->members) {
		l->members = xzalloc(nr * sizeof(*l->members));
		l->members[0] = l;
	}
	if (c == l)
		return;
	for (m = 1; m < nr && l->members[m]; m++)
		;
	if (m < nr) {
		l->members[m] = c;
		c->member_idx = m;
	}
}

static void counters_alloc(struct stat_session *s)
{
	int i;

	s->counters = xzalloc(s->evlist->nr * sizeof(*s->counters));
	s->supported = xzalloc(s->evlist->nr * sizeof(*s->supported));
	for (i = 0; i < s->evlist->nr; i++) {
		struct counter *c = &s->counters[i];

		c->evsel = &s->evlist->entries[i];
		c->ops = choose_backend(s, c->evsel, false);
		c->leader = &s->counters[c->evsel->leader_idx];
		c->nr_cpus = s->target.cpus.nr;
		c->nr_threads = s->target.threads.nr;
		/* -b: counts per (CPU, program) */
		if (c->ops->per_program)
			c->nr_threads = s->open_ctx.bpf_progs->nr;
		c->counts = xzalloc(c->nr_cpus * c->nr_threads * sizeof(*c->counts));
		c->supported = true;
		s->supported[i] = true;
	}
	for (i = 0; i < s->evlist->nr; i++)
		group_add(&s->counters[i]);
}

/*
 * --filter: set on every fd of the event once all are open, as perf does before enabling (an
 * event with a filter is counted directly: choose_backend()).
 */
static int apply_filters(struct stat_session *s)
{
	int i, err;

	for (i = 0; i < s->evlist->nr; i++) {
		struct counter *c = &s->counters[i];

		if (!c->evsel->filter || !c->supported)
			continue;
		err = c->ops->set_filter ? c->ops->set_filter(c, c->evsel->filter) : -EOPNOTSUPP;
		if (!err)
			continue;
		pr_err("failed to set filter \"%s\" on event %s with %d (%s)", c->evsel->filter,
		       c->evsel->name, -err, strerror(-err));
		return EXIT_FATAL;
	}
	return 0;
}

/*
 * One open of counter c on CPU index cpu, with perf's paranoid fallback: a direct event the
 * kernel refuses for counting the kernel is tried again on user space alone (named ":u").
 */
static int open_with_fallback(struct stat_session *s, struct counter *c, int cpu)
{
	int err;

	do {
		err = c->ops->open_cpu(c, &s->open_ctx, cpu);
	} while (err && c->ops->user_fallback &&
		 open_error_fallback(c->evsel, err, s->opts->verbose));
	return err;
}

/*
 * perf opens tool events (duration_time, ...) as dummy events on the first CPU only; their
 * counts come from clocks and rusage, so most refusals do not matter: a refused CPU (-C 5)
 * makes them <not supported>, a refused permission (-a as a user) ends the session.
 */
static int open_tool(struct stat_session *s, int i)
{
	struct counter *c = &s->counters[i];
	int err = open_with_fallback(s, c, 0);

	if (open_error_is_unsupported(err)) {
		c->supported = false;
		s->supported[i] = false;
	} else if (err == -EACCES || err == -EPERM) {
		open_error_print(c->evsel, err, !s->target.system_wide);
		return EXIT_FATAL;
	}
	return 0;
}

/* Without the capabilities, bperf daemon's socket counts the shared events, if one answers. */
static int use_daemon(struct stat_session *s)
{
	int i, err;

	err = daemon_conn_open(s->opts->config.daemon_socket, s->opts->verbose,
			       &s->open_ctx.daemon);
	if (err)
		return err;
	for (i = 0; i < s->evlist->nr; i++)
		if (s->counters[i].ops->needs_bpf_caps)
			s->counters[i].ops = choose_backend(s, s->counters[i].evsel, true);
	return 0;
}

/*
 * Shared counters need capabilities a user may lack: then a daemon counts them, else say so
 * before anything is created. The first shared event names what asked for them.
 */
static int check_shared_caps(struct stat_session *s)
{
	const struct counter *c;
	const char *asked_by;
	int i, err;

	for (i = 0; i < s->evlist->nr; i++) {
		c = &s->counters[i];
		if (!c->ops->needs_bpf_caps)
			continue;
		if (has_effective_cap(CAP_SYS_ADMIN))
			return 0;
		err = use_daemon(s);
		if (!err)
			return 0;
		if (err == -ECANCELED)
			return -EPERM;	/* said */
		if (s->opts->bpf_counters)
			asked_by = "--bpf-counters";
		else if (c->leader->evsel->bpf_counter)
			asked_by = c->leader->evsel->name;
		else
			asked_by = "stat.bpf-counter-events";
		return require_shared_counter_caps(asked_by);
	}
	return 0;
}

/*
 * The open of counter i was refused with err (perf's stat_handle_error() after the fallbacks):
 * an unsupported event is marked and skipped (said at -v), unless it leads a group; anything
 * else ends the run. Returns 0 or the exit code.
 */
static int open_refused(struct stat_session *s, int i, int err)
{
	struct counter *c = &s->counters[i];

	if (err == -ECANCELED)
		return EXIT_FATAL;
	if (!open_error_is_unsupported(err)) {
		open_error_print(c->evsel, err, !s->target.system_wide);
		return EXIT_FATAL;
	}
	c->supported = false;
	c->open_err = err;
	s->supported[i] = false;
	if (s->errored)
		s->errored[i] = true;
	if (s->opts->verbose)
		pr_err("Warning:\n%s event is not supported by the kernel.", c->evsel->name);
	/* perf gives up when the kernel refuses a group's leader */
	if (c->leader == c && c->evsel->nr_members > 1) {
		open_error_print(c->evsel, err, !s->target.system_wide);
		return EXIT_FATAL;
	}
	return 0;
}

/* perf defers a weak group's failure to a second pass: groups cannot be read mixed per CPU. */
static bool weak_member_refused(const struct counter *c, int err)
{
	return (err == -EINVAL || err == -EBADF) && c->leader != c && c->evsel->weak_group &&
	       c->ops->weak_groups;
}

/* The counters of dissolved weak groups (reset[]) follow their evsels' new groups. */
static void counters_regroup(struct stat_session *s, const bool *reset)
{
	int i;

	for (i = 0; i < s->evlist->nr; i++) {
		struct counter *c = &s->counters[i];

		if (!reset[i])
			continue;
		free(c->members);
		c->members = NULL;
		c->member_idx = 0;
		c->leader = &s->counters[c->evsel->leader_idx];
	}
	for (i = 0; i < s->evlist->nr; i++)
		if (reset[i])
			group_add(&s->counters[i]);
}

/*
 * perf's second pass: the counters of dissolved weak groups are closed on every CPU, then opened
 * again CPU by CPU on their own, each on every CPU even where it was refused already.
 */
static int reopen_weak(struct stat_session *s, const bool *reset)
{
	int cpu, i, err;

	for (i = s->evlist->nr - 1; i >= 0; i--)
		if (reset[i])
			s->counters[i].ops->close(&s->counters[i]);
	for (cpu = 0; cpu < s->target.cpus.nr; cpu++) {
		for (i = 0; i < s->evlist->nr; i++) {
			struct counter *c = &s->counters[i];

			if (!reset[i] || !evsel_counts_on_cpu(c->evsel, s->target.cpus.cpus[cpu]))
				continue;
			if (c->evsel->tool && cpu)
				continue;
			pr_debug(s->opts->verbose, 2, "reopening weak %s", c->evsel->name);
			if (c->evsel->tool) {
				if (open_tool(s, i))
					return EXIT_FATAL;
				continue;
			}
			err = open_with_fallback(s, c, cpu);
			if (err) {
				err = open_refused(s, i, err);
				if (err)
					return err;
				continue;
			}
			c->supported = true;
			s->supported[i] = true;
		}
	}
	return 0;
}

/* Opens CPU by CPU, each CPU's events in list order: perf's affinity-friendly order. */
int session_open(struct stat_session *s)
{
	bool *reset = NULL;	/* [evlist->nr]: in a weak group dissolved by now */
	int cpu, i, err;

	counters_alloc(s);
	err = check_shared_caps(s);
	if (err)
		return err;
	for (cpu = 0; cpu < s->target.cpus.nr; cpu++) {
		for (i = 0; i < s->evlist->nr; i++) {
			struct counter *c = &s->counters[i];

			if (reset && reset[i])
				continue;
			if (s->errored && s->errored[i]) {
				c->supported = false;
				s->supported[i] = false;
				continue;
			}
			if (!c->supported)
				continue;
			if (c->evsel->tool) {
				if (cpu == 0 && open_tool(s, i)) {
					free(reset);
					return EXIT_FATAL;
				}
				continue;
			}
			if (c->leader != c && !c->leader->supported &&
			    !(s->errored && s->errored[c->evsel->leader_idx])) {
				c->supported = false;
				continue;
			}
			err = open_with_fallback(s, c, cpu);
			if (!err)
				continue;
			if (weak_member_refused(c, err)) {
				if (!reset)
					reset = xzalloc(s->evlist->nr * sizeof(*reset));
				weak_group_reset(s->evlist, c->evsel->leader_idx, reset,
						 s->opts->verbose);
				counters_regroup(s, reset);
				continue;
			}
			err = open_refused(s, i, err);
			if (err) {
				free(reset);
				return err;
			}
		}
	}
	err = reset ? reopen_weak(s, reset) : 0;
	free(reset);
	return err ? err : apply_filters(s);
}

/*
 * A backend returned -ECANCELED after saying why it cannot go on: nothing sensible is left to
 * print, so the run ends, its workload with it. The backend neither kills nor exits.
 */
static void __attribute__((noreturn)) session_cancel(const struct stat_session *s)
{
	if (s->target.forked)
		kill(s->target.threads.tids[0], SIGKILL);
	exit(EXIT_FATAL);
}

int session_switch(struct stat_session *s, int i, bool enable)
{
	struct counter *c = &s->counters[i];
	int err;

	if (!c->supported || c->evsel->tool)
		return 0;
	err = enable ? c->ops->enable(c) : c->ops->disable(c);
	if (err == -ECANCELED)
		session_cancel(s);
	if (err)
		pr_err("Failed to %s event %s: %s", enable ? "enable" : "disable", c->evsel->name,
		       strerror(-err));
	return err;
}

/* Every counter, even after one fails: the first error is returned. */
static int switch_all(struct stat_session *s, bool enable)
{
	int i, err, first_err = 0;

	for (i = 0; i < s->evlist->nr; i++) {
		err = session_switch(s, i, enable);
		if (err && !first_err)
			first_err = err;
	}
	return first_err;
}

int session_enable(struct stat_session *s)
{
	return switch_all(s, true);
}

int session_disable(struct stat_session *s)
{
	return switch_all(s, false);
}

static void read_tool(struct counter *c, __u64 duration_ns, __u64 user_ns, __u64 sys_ns)
{
	__u64 v = 0;

	switch (c->evsel->tool) {
	case TOOL_DURATION_TIME:
		v = duration_ns;
		break;
	case TOOL_USER_TIME:
		v = user_ns;
		break;
	case TOOL_SYSTEM_TIME:
		v = sys_ns;
		break;
	case TOOL_NONE:
		break;
	}
	/* A tool count lives on the first CPU and thread only, as in perf. */
	memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
	c->counts[0].val = c->counts[0].ena = c->counts[0].run = v;
}

int session_read(struct stat_session *s, __u64 duration_ns, __u64 user_ns, __u64 sys_ns)
{
	int i, err, first_err = 0;

	for (i = 0; i < s->evlist->nr; i++) {
		struct counter *c = &s->counters[i];

		if (!c->supported)
			continue;
		if (c->evsel->tool) {
			read_tool(c, duration_ns, user_ns, sys_ns);
			continue;
		}
		c->read_failed = false;
		err = c->ops->read(c);
		if (!err)
			continue;
		if (err == -ECANCELED)
			session_cancel(s);
		/* perf prints a counter any of whose reads failed as <not counted> */
		c->read_failed = true;
		memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
		if (!first_err)
			first_err = err;
	}
	return first_err;
}

/*
 * perf's order: with -vv each (CPU, thread) reading as it is read, CPU by
 * CPU (none for an event whose read failed); then, in global mode, each
 * event's total or its read failure.
 */
void session_print_raw(const struct stat_session *s, FILE *out)
{
	const struct target *t = &s->target;
	int i, cpu, th;

	for (cpu = 0; s->opts->verbose >= 2 && cpu < t->cpus.nr; cpu++) {
		for (i = 0; i < s->evlist->nr; i++) {
			const struct counter *c = &s->counters[i];

			for (th = 0; c->supported && !c->read_failed && th < c->nr_threads; th++) {
				const struct raw_count *r = &c->counts[cpu * c->nr_threads + th];

				fprintf(out, "%s: %d: %llu %llu %llu\n", c->evsel->name,
					t->cpus.cpus[cpu], (unsigned long long)r->val,
					(unsigned long long)r->ena, (unsigned long long)r->run);
			}
		}
	}
	for (i = 0; i < s->evlist->nr; i++) {
		const struct counter *c = &s->counters[i];
		struct raw_count sum = { 0 };
		int n = c->nr_cpus * c->nr_threads;

		if (!c->supported || c->read_failed) {
			fprintf(out, "failed to read counter %s\n", c->evsel->name);
			continue;
		}
		if (s->opts->aggr_mode != AGGR_GLOBAL)
			continue;
		for (th = 0; th < n; th++) {
			sum.val += c->counts[th].val;
			sum.ena += c->counts[th].ena;
			sum.run += c->counts[th].run;
		}
		if (s->opts->scale && sum.run && sum.run < sum.ena)
			sum.val = (__u64)((double)sum.val * sum.ena / sum.run);
		fprintf(out, "%s: %llu %llu %llu\n", c->evsel->name, (unsigned long long)sum.val,
			(unsigned long long)sum.ena, (unsigned long long)sum.run);
	}
}

void session_close(struct stat_session *s)
{
	int i;

	if (!s->counters)
		return;
	/* Members before leaders: a leader's fd must outlive its group. */
	for (i = s->evlist->nr - 1; i >= 0; i--)
		if (s->counters[i].ops)
			s->counters[i].ops->close(&s->counters[i]);
	daemon_conn_close(s->open_ctx.daemon);
	s->open_ctx.daemon = NULL;
}

void session_free(struct stat_session *s)
{
	int i;

	session_close(s);
	if (s->counters)
		for (i = 0; i < s->evlist->nr; i++) {
			free(s->counters[i].counts);
			free(s->counters[i].members);
		}
	free(s->counters);
	free(s->supported);
	free(s->target_desc);
	target_free(&s->target);
	memset(s, 0, sizeof(*s));
}
