// SPDX-License-Identifier: GPL-2.0-only
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "../counters/bpf_prog_targets.h"
#include "../util/parse_options.h"

static const char *const stat_usage[] = {
	"bperf stat [<options>] [<command>]",
	NULL,
};

static int parse_event_option(const struct option *opt, const char *arg, bool unset);
static int parse_big_num(const struct option *opt, const char *arg, bool unset);
static int parse_no_aggr(const struct option *opt, const char *arg, bool unset);
static int parse_per_thread(const struct option *opt, const char *arg, bool unset);
static int parse_all_space(const struct option *opt, const char *arg, bool unset);

/* Built per call: the table's value pointers point into this session's options. */
static void build_option_table(struct option *t, struct stat_options *o)
{
	const struct option table[] = {
		{ OPT_BOOLEAN, 'a', "all-cpus", &o->system_wide, NULL,
		  "count on every CPU (system-wide)" },
		{ OPT_CALLBACK, 'A', "no-aggr", NULL, NULL, "one line per CPU, no aggregation",
		  0, parse_no_aggr, o },
		{ OPT_CALLBACK, 'B', "big-num", NULL, NULL,
		  "thousands' separators in counts (the locale's)", 0, parse_big_num, o },
		{ OPT_STRING, 'b', "bpf-prog", &o->bpf_prog, "<bpf-prog-id>",
		  "count events while these BPF programs run (ids)" },
		{ OPT_STRING, 'C', "cpu", &o->cpu_list, "<cpu>", "CPUs to count on, e.g. 0-3,7" },
		{ OPT_INTEGER, 'D', "delay", &o->delay_ms, "<n>",
		  "wait n ms after the start before counting (-1: start disabled)" },
		{ OPT_CALLBACK, 'e', "event", NULL, "<event>",
		  "event selector. use 'bperf list' to list available events", OPTF_NONEG,
		  parse_event_option, o },
		{ OPT_BOOLEAN, 'g', "group", &o->group, NULL, "count all events as one group" },
		{ OPT_INTEGER, 'I', "interval-print", &o->interval_ms, "<n>",
		  "print counts every n ms" },
		{ OPT_BOOLEAN, 'i', "no-inherit", &o->no_inherit, NULL,
		  "do not count child tasks" },
		{ OPT_BOOLEAN, 'j', "json-output", &o->json, NULL, "print counts as JSON lines" },
		{ OPT_BOOLEAN, 'n', "null", &o->null_run, NULL,
		  "null run: no default counters, only the elapsed time" },
		{ OPT_STRING, 'o', "output", &o->output_name, "<file>", "write counts to file" },
		{ OPT_STRING, 'p', "pid", &o->pid, "<pid>", "count existing process ids" },
		{ OPT_INTEGER, 'r', "repeat", &o->run_count, "<n>",
		  "run the command n times, print mean and stddev (0: forever)" },
		{ OPT_BOOLEAN, 'S', "sync", &o->sync_before, NULL, "call sync() before each run" },
		{ OPT_STRING, 't', "tid", &o->tid, "<tid>", "count existing thread ids" },
		{ OPT_INCR, 'v', "verbose", &o->verbose, NULL,
		  "more messages (open errors, raw counts); -vv prints every perf_event_attr" },
		{ OPT_STRING, 'x', "field-separator", &o->csv_sep, "<separator>",
		  "CSV output with this separator" },
		{ OPT_CALLBACK, 0, "all-kernel", &o->all_kernel, NULL,
		  "count every event in kernel space only", 0, parse_all_space, o },
		{ OPT_CALLBACK, 0, "all-user", &o->all_user, NULL,
		  "count every event in user space only", 0, parse_all_space, o },
		{ OPT_BOOLEAN, 0, "append", &o->append, NULL, "append to the -o file" },
		{ OPT_STRING, 0, "bpf-attr-map", &o->bpf_attr_map, "<path>",
		  "pinned attr map of the shared BPF counters" },
		{ OPT_BOOLEAN, 0, "bpf-counters", &o->bpf_counters, NULL,
		  "count through shared BPF counters" },
		{ OPT_UINTEGER, 0, "interval-count", &o->interval_count, "<n>",
		  "stop after n intervals" },
		{ OPT_INTEGER, 0, "log-fd", &o->log_fd, "<n>", "write counts to fd n, not stderr" },
		{ OPT_BOOLEAN, 0, "no-csv-summary", &o->no_csv_summary, NULL,
		  "no 'summary' column in CSV summary lines" },
		{ OPT_CALLBACK, 0, "per-thread", NULL, NULL, "one line per thread", 0,
		  parse_per_thread, o },
		{ OPT_BOOLEAN, 0, "quiet", &o->quiet, NULL, "print no counts" },
		{ OPT_BOOLEAN, 0, "scale", &o->scale, NULL,
		  "scale multiplexed counts (--no-scale: raw counts)" },
		{ OPT_BOOLEAN, 0, "summary", &o->summary, NULL, "print totals after -I intervals" },
		{ OPT_UINTEGER, 0, "timeout", &o->timeout_ms, "<n>",
		  "stop the workload and print counts after n ms (>= 10)" },
		{ OPT_END },
	};

	memcpy(t, table, sizeof(table));
}

#define MAX_OPTIONS 64

static struct stat_options *owner(const struct option *opt)
{
	return opt->data;
}

static int parse_event_option(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);
	struct parse_events_error err = { .idx = -1 };
	struct option table[MAX_OPTIONS];

	if (!parse_events(&o->evlist, arg, &o->events_ctx, &err))
		return 0;
	parse_events_error_print(stderr, arg, &err);
	parse_events_error_free(&err);
	build_option_table(table, o);
	usage_with_one_option(stat_usage, table, 'e');
	return -EINVAL;
}

static int parse_big_num(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	o->big_num = !unset;
	o->big_num_given = true;
	return 0;
}

/* As in perf, where -A sets the aggregation mode to 0 (none), --no-no-aggr sets it as well. */
static int parse_no_aggr(const struct option *opt, const char *arg, bool unset)
{
	owner(opt)->no_aggr = true;
	return 0;
}

/*
 * --all-user and --all-kernel exclude each other (perf's PARSE_OPT_EXCLUSIVE): the second
 * one given, even negated, is refused with both options' lines.
 */
static int parse_all_space(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);
	bool user = !strcmp(opt->long_name, "all-user");
	const char *other = user ? "all-kernel" : "all-user";

	if (o->all_space_given && o->all_space_given != opt->long_name) {
		char *typed = xasprintf("%s%s", unset ? "no-" : "", opt->long_name);

		fprintf(stderr, " Error: option `%s' cannot be used with %s", typed, other);
		stat_options_usage(o, true, typed);
		stat_options_usage(o, false, other);
		free(typed);
		return -EINVAL;
	}
	o->all_space_given = opt->long_name;
	*(bool *)opt->value = !unset;
	return 0;
}

static int parse_per_thread(const struct option *opt, const char *arg, bool unset)
{
	owner(opt)->per_thread = !unset;
	return 0;
}

void stat_options_usage(const struct stat_options *o, bool header, const char *name)
{
	struct option table[MAX_OPTIONS];

	/* The table is only printed: its value pointers are never written through. */
	build_option_table(table, (struct stat_options *)o);
	usage_for_options(header ? stat_usage : NULL, table, name, strlen(name) == 1);
}

/*
 * perf's semantic checks print the message, the usage line and the lines of the options
 * involved (name2 may be NULL), and exit 234.
 */
static int semantic_error(struct stat_options *o, const char *msg, const char *name1,
			  const char *name2)
{
	pr_err("%s", msg);
	stat_options_usage(o, true, name1);
	if (name2)
		stat_options_usage(o, false, name2);
	return EXIT_EINVAL;
}

/* -b counts system-wide while its programs run: like perf, it overrides other targets. */
static int check_bpf_prog(struct stat_options *o)
{
	__u32 *ids;
	int nr;

	if (bpf_prog_ids_parse(o->bpf_prog, &ids, &nr)) {
		pr_err("Failed to parse bpf prog ids %s", o->bpf_prog);
		return EXIT_USAGE;
	}
	free(ids);
	if (o->cpu_list) {
		pr_err("BPF switch overriding CPU");
		o->cpu_list = NULL;
	}
	if (o->pid || o->tid) {
		pr_err("BPF switch overriding PID/TID");
		o->pid = o->tid = NULL;
	}
	if (o->per_thread) {
		pr_err("BPF switch overriding THREAD");
		o->per_thread = false;
		o->aggr_mode = o->no_aggr ? AGGR_NONE : AGGR_GLOBAL;
	}
	return 0;
}

static int check_options(struct stat_options *o)
{
	int err;

	if (o->csv_sep && !strcmp(o->csv_sep, "\\t"))
		o->csv_sep = "\t";
	if (o->bpf_prog) {
		err = check_bpf_prog(o);
		if (err)
			return err;
	}
	if (o->output_name && o->log_fd)
		return semantic_error(o, "cannot use both --output and --log-fd", "o", "log-fd");
	if (o->csv_sep && o->big_num_given && o->big_num)
		return semantic_error(o, "-B option not supported with -x", "B", "x");
	if (o->log_fd < 0)
		return semantic_error(o, "argument to --log-fd must be a > 0", "log-fd", NULL);
	if (o->run_count < 0)
		return semantic_error(o, "Run count must be a positive number", "r", NULL);
	if (o->per_thread && !o->pid && !o->tid && (!o->system_wide || o->cpu_list) &&
	    !(o->argc == 0 && !o->cpu_list)) {
		pr_err("The --per-thread option is only available when monitoring via -p -t -a "
		       "options or only --per-thread.");
		/* perf lists -p and -t without the usage line here */
		stat_options_usage(o, false, "p");
		stat_options_usage(o, false, "t");
		return EXIT_EINVAL;
	}
	if (o->no_aggr && !o->system_wide && !o->cpu_list && !o->bpf_prog &&
	    !(o->argc == 0 && !o->pid && !o->tid))
		/* perf also lists -G and --for-each-cgroup, which bperf does not have */
		return semantic_error(o, "both cgroup and no-aggregation modes only available in "
					 "system-wide mode", "A", "a");
	if (o->interval_count && !o->interval_ms) {
		semantic_error(o, "interval-count option should be used together with "
				  "interval-print.", "interval-count", NULL);
		stat_options_usage(o, true, "I");
		return EXIT_EINVAL;
	}
	if (o->timeout_ms && o->interval_ms) {
		semantic_error(o, "timeout option is not supported with interval-print.",
			       "timeout", NULL);
		stat_options_usage(o, true, "I");
		return EXIT_EINVAL;
	}
	if (o->timeout_ms && o->timeout_ms < 10)
		return semantic_error(o, "timeout must be >= 10ms.", "timeout", NULL);
	if (o->timeout_ms && o->timeout_ms < 100)
		pr_err("timeout < 100ms. The overhead percentage could be high in some cases. "
		       "Please proceed with caution.");
	return 0;
}

/* The number of -v before the workload, counted ahead of parsing. */
static int count_verbose(int argc, const char **argv)
{
	int i, n = 0;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *p = argv[i];

		if (!strcmp(p, "--"))
			break;
		if (!strcmp(p, "--verbose")) {
			n++;
		} else if (p[1] != '-') {
			for (p++; *p == 'v'; p++)
				n++;
		}
	}
	return n;
}

/*
 * Parses argv against the stat option table with usage's header; on success o->argv and
 * o->argc hold the command. Returns 0, or EXIT_USAGE after perf's message or -h's listing.
 */
static int parse_stat_argv(struct stat_options *o, int argc, const char **argv,
			   const char *const *usage)
{
	struct option table[MAX_OPTIONS];
	int first;

	build_option_table(table, o);
	first = parse_options(argc, argv, table, usage);
	if (first == PARSE_OPT_HELP) {
		usage_with_options(usage, table);
		return EXIT_USAGE;
	}
	if (first < 0)
		return EXIT_USAGE;
	o->argv = argv + first;
	o->argc = argc - first;
	if (o->per_thread)
		o->aggr_mode = AGGR_THREAD;
	else if (o->no_aggr)
		o->aggr_mode = AGGR_NONE;
	return 0;
}

int stat_options_parse(struct stat_options *o, int argc, const char **argv)
{
	int err;

	o->scale = true;
	o->big_num = true;
	o->run_count = 1;
	/* -v must be seen before -e: perf's parse-time lines depend on it. */
	o->events_ctx.verbose = count_verbose(argc, argv);
	err = parse_stat_argv(o, argc, argv, stat_usage);
	return err ? err : check_options(o);
}

static const char *const stat_record_usage[] = {
	"bperf stat record [<options>]",
	NULL,
};

int stat_options_parse_record(struct stat_options *o, const char **path)
{
	int err;

	o->events_ctx.verbose += count_verbose(o->argc, o->argv);
	err = parse_stat_argv(o, o->argc, o->argv, stat_record_usage);
	if (err)
		return err;
	if (o->run_count != 1) {
		pr_err("Cannot use -r option with bperf stat record.");
		return EXIT_FATAL;
	}
	/* as in perf, -o names the data file here; the counts still go to stderr */
	*path = o->output_name ? o->output_name : "perf.data";
	o->output_name = NULL;
	/* perf prints no counts when the data goes to stdout */
	if (!strcmp(*path, "-"))
		o->quiet = true;
	return check_options(o);
}

void stat_options_free(struct stat_options *o)
{
	evlist_free(&o->evlist);
	stat_config_vars_free(&o->config);
}
