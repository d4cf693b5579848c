// SPDX-License-Identifier: GPL-2.0-only
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../counters/bpf_prog_targets.h"
#include "../events/cgroup.h"
#include "../events/filter.h"
#include "../events/pmu.h"
#include "../util/parse_options.h"

static const char *const stat_usage[] = {
	"bperf stat [<options>] [<command>]",
	NULL,
};

static int parse_event_option(const struct option *opt, const char *arg, bool unset);
static int parse_big_num(const struct option *opt, const char *arg, bool unset);
static int parse_metrics(const struct option *opt, const char *arg, bool unset);
static int parse_metric_only(const struct option *opt, const char *arg, bool unset);
static int parse_aggr_mode(const struct option *opt, const char *arg, bool unset);
static int parse_cputype(const struct option *opt, const char *arg, bool unset);
static int parse_all_space(const struct option *opt, const char *arg, bool unset);
static int parse_control(const struct option *opt, const char *arg, bool unset);
static int parse_filter(const struct option *opt, const char *arg, bool unset);
static int parse_iostat(const struct option *opt, const char *arg, bool unset);
static int parse_cgroups(const struct option *opt, const char *arg, bool unset);

/* Built per call: the table's value pointers point into this session's options. */
/* The options with a letter, in perf's order (the help lists them so): how many, into t. */
static size_t letter_options(struct option *t, struct stat_options *o)
{
	const struct option table[] = {
		{ OPT_BOOLEAN, 'a', "all-cpus", &o->system_wide, NULL,
		  "count on every CPU (system-wide)" },
		{ OPT_CALLBACK, 'A', "no-aggr", NULL, NULL, "one line per CPU, no aggregation",
		  0, parse_aggr_mode, o },
		{ OPT_CALLBACK, 'B', "big-num", NULL, NULL,
		  "thousands' separators in counts (the locale's)", 0, parse_big_num, o },
		{ OPT_STRING, 'b', "bpf-prog", &o->bpf_prog, "<bpf-prog-id>",
		  "count events while these BPF programs run (ids)" },
		{ OPT_STRING, 'C', "cpu", &o->cpu_list, "<cpu>", "CPUs to count on, e.g. 0-3,7" },
		{ OPT_INTEGER, 'D', "delay", &o->delay_ms, "<n>",
		  "wait n ms after the start before counting (-1: start disabled)" },
		{ OPT_INCR, 'd', "detailed", &o->detailed, NULL,
		  "more cache events: -d L1 and LLC, -dd L1i and TLBs, -ddd prefetches" },
		{ OPT_CALLBACK, 'e', "event", NULL, "<event>",
		  "event selector. use 'bperf list' to list available events", OPTF_NONEG,
		  parse_event_option, o },
		{ OPT_CALLBACK, 'G', "cgroup", NULL, "<name>",
		  "count the Nth event in the Nth cgroup only (needs -a or -C)", 0,
		  parse_cgroups, o },
		{ OPT_BOOLEAN, 'g', "group", &o->group, NULL, "count all events as one group" },
		{ OPT_INTEGER, 'I', "interval-print", &o->interval_ms, "<n>",
		  "print counts every n ms" },
		{ OPT_BOOLEAN, 'i', "no-inherit", &o->no_inherit, NULL,
		  "do not count child tasks" },
		{ OPT_BOOLEAN, 'j', "json-output", &o->json, NULL, "print counts as JSON lines" },
		{ OPT_CALLBACK, 'M', "metrics", NULL, "<metric/metric group list>",
		  "built-in metrics or metric groups to count (comma-separated)", OPTF_NONEG,
		  parse_metrics, o },
		{ OPT_BOOLEAN, 'n', "null", &o->null_run, NULL,
		  "null run: no default counters, only the elapsed time" },
		{ OPT_STRING, 'o', "output", &o->output_name, "<file>", "write counts to file" },
		{ OPT_STRING, 'p', "pid", &o->pid, "<pid>", "count existing process ids" },
		{ OPT_INTEGER, 'r', "repeat", &o->run_count, "<n>",
		  "run the command n times, print mean and stddev (0: forever)" },
		{ OPT_BOOLEAN, 'S', "sync", &o->sync_before, NULL, "call sync() before each run" },
		{ OPT_STRING, 't', "tid", &o->tid, "<tid>", "count existing thread ids" },
		{ OPT_BOOLEAN, 'T', "transaction", &o->transaction, NULL,
		  "transactional memory (TSX) counts" },
		{ OPT_INCR, 'v', "verbose", &o->verbose, NULL,
		  "more messages (open errors, raw counts); -vv prints every perf_event_attr" },
		{ OPT_STRING, 'x', "field-separator", &o->csv_sep, "<separator>",
		  "CSV output with this separator" },
	};

	memcpy(t, table, sizeof(table));
	return ARRAY_SIZE(table);
}

/* The long options alone, then the end of the table. */
static void long_options(struct option *t, struct stat_options *o)
{
	const struct option table[] = {
		{ OPT_CALLBACK, 0, "all-kernel", &o->all_kernel, NULL,
		  "count every event in kernel space only", 0, parse_all_space, o },
		{ OPT_CALLBACK, 0, "all-user", &o->all_user, NULL,
		  "count every event in user space only", 0, parse_all_space, o },
		{ OPT_BOOLEAN, 0, "append", &o->append, NULL, "append to the -o file" },
		{ OPT_STRING, 0, "bpf-attr-map", &o->bpf_attr_map, "<path>",
		  "pinned attr map of the shared BPF counters" },
		{ OPT_BOOLEAN, 0, "bpf-counters", &o->bpf_counters, NULL,
		  "count through shared BPF counters" },
		{ OPT_CALLBACK, 0, "control", NULL,
		  "<fd:ctl-fd[,ack-fd] or fifo:ctl-fifo[,ack-fifo]>",
		  "take 'enable', 'disable', ... commands from ctl-fd, 'ack\\n' them on ack-fd",
		  OPTF_NONEG, parse_control, o },
		{ OPT_CALLBACK, 0, "cputype", NULL, "<hybrid cpu type>",
		  "hybrid machines: open events on the CPUs of this type only (core, atom)",
		  OPTF_NONEG, parse_cputype, o },
		{ OPT_CALLBACK, 0, "filter", NULL, "<filter>", "event filter", OPTF_NONEG,
		  parse_filter, o },
		{ OPT_STRING, 0, "for-each-cgroup", &o->cgroup_list, "<name>",
		  "count every event in each cgroup (names or patterns)" },
		{ OPT_BOOLEAN, 0, "hybrid-merge", &o->hybrid_merge, NULL,
		  "one line for the same event on every hybrid PMU" },
		{ OPT_BOOLEAN, 0, "interval-clear", &o->interval_clear, NULL,
		  "clear the screen before each interval" },
		{ OPT_UINTEGER, 0, "interval-count", &o->interval_count, "<n>",
		  "stop after n intervals" },
		{ OPT_CALLBACK, 0, "iostat", NULL, "<default>",
		  "I/O metrics of the x86 IIO PMU (none on this machine)", OPTF_OPTARG,
		  parse_iostat, o },
		{ OPT_INTEGER, 0, "log-fd", &o->log_fd, "<n>", "write counts to fd n, not stderr" },
		{ OPT_BOOLEAN, 0, "metric-no-group", &o->metric_set.no_group, NULL,
		  "do not group the events of a metric" },
		{ OPT_BOOLEAN, 0, "metric-no-merge", &o->metric_set.no_merge, NULL,
		  "do not share events between metrics" },
		{ OPT_CALLBACK, 0, "metric-only", NULL, NULL, "print only the metrics, no counts",
		  0, parse_metric_only, o },
		{ OPT_BOOLEAN, 0, "no-csv-summary", &o->no_csv_summary, NULL,
		  "no 'summary' column in CSV summary lines" },
		{ OPT_BOOLEAN, 0, "no-merge", &o->no_merge, NULL,
		  "one line per PMU for events of the same name" },
		{ OPT_CALLBACK, 0, "per-core", NULL, NULL, "one line per physical core", 0,
		  parse_aggr_mode, o },
		{ OPT_CALLBACK, 0, "per-die", NULL, NULL, "one line per processor die", 0,
		  parse_aggr_mode, o },
		{ OPT_CALLBACK, 0, "per-node", NULL, NULL, "one line per NUMA node", 0,
		  parse_aggr_mode, o },
		{ OPT_CALLBACK, 0, "per-socket", NULL, NULL, "one line per processor socket", 0,
		  parse_aggr_mode, o },
		{ OPT_CALLBACK, 0, "per-thread", NULL, NULL, "one line per thread", 0,
		  parse_aggr_mode, o },
		{ OPT_BOOLEAN, 0, "percore-show-thread", &o->percore_show_thread, NULL,
		  "percore events: one line per CPU, each with its core's sum" },
		{ OPT_STRING, 0, "post", &o->post_cmd, "<command>",
		  "command run (by sh) after each run" },
		{ OPT_STRING, 0, "pre", &o->pre_cmd, "<command>",
		  "command run (by sh) before each run" },
		{ OPT_BOOLEAN, 0, "quiet", &o->quiet, NULL, "print no counts" },
		{ OPT_BOOLEAN, 0, "scale", &o->scale, NULL,
		  "scale multiplexed counts (--no-scale: raw counts)" },
		{ OPT_BOOLEAN, 0, "smi-cost", &o->smi_cost, NULL,
		  "cost of system management interrupts" },
		{ OPT_BOOLEAN, 0, "summary", &o->summary, NULL, "print totals after -I intervals" },
		{ OPT_BOOLEAN, 0, "table", &o->run_table, NULL,
		  "with -r: a table of each run's elapsed time" },
		{ OPT_UINTEGER, 0, "td-level", &o->td_level, "<n>",
		  "top-down metrics level (0: the highest there is)" },
		{ OPT_UINTEGER, 0, "timeout", &o->timeout_ms, "<n>",
		  "stop the workload and print counts after n ms (>= 10)" },
		{ OPT_BOOLEAN, 0, "topdown", &o->topdown, NULL, "top-down statistics" },
		{ OPT_END },
	};

	memcpy(t, table, sizeof(table));
}

static void build_option_table(struct option *t, struct stat_options *o)
{
	long_options(t + letter_options(t, o), o);
}

#define MAX_OPTIONS 96

static struct stat_options *owner(const struct option *opt)
{
	return opt->data;
}

static int parse_event_option(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);
	struct parse_events_error err = { .idx = -1 };
	struct option table[MAX_OPTIONS];
	int first = o->evlist.nr;

	if (!parse_events(&o->evlist, arg, &o->events_ctx, &err)) {
		o->last_event_first = first;
		return 0;
	}
	parse_events_error_print(stderr, arg, &err);
	parse_events_error_free(&err);
	build_option_table(table, o);
	usage_with_one_option(stat_usage, table, 'e');
	return -EINVAL;
}

/* -G: perf opens the cgroups and ties them to the events given so far. */
static int parse_cgroups(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	if (o->cgroup_list)
		pr_err("--cgroup and --for-each-cgroup cannot be used together");
	if (o->cgroup_list || evlist_add_cgroups(&o->evlist, arg)) {
		stat_options_usage(o, true, "G");
		return -EINVAL;
	}
	return 0;
}

/* --control: perf parses the spec and opens the fifos while it reads the options. */
static int parse_control(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	control_close(&o->control);
	if (!control_parse(&o->control, arg))
		return 0;
	stat_options_usage(o, true, "control");
	return -EINVAL;
}

/* --filter: for the events of the -e before it */
static int parse_filter(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	if (!evlist_add_filter(&o->evlist, o->last_event_first, arg, o->events_ctx.sysfs_root))
		return 0;
	stat_options_usage(o, true, "filter");
	return -EINVAL;
}

/*
 * --iostat needs x86's IIO uncore PMUs and bperf has no I/O metrics: it fails as perf 6.1 does
 * without those PMUs, with the option's line only when it was given without a value.
 */
static int parse_iostat(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	pr_err("Unsupported uncore pmu configuration");
	stat_options_usage(o, true, arg ? "iostat=" : "iostat");
	return -EINVAL;
}

/* -M lists add up; perf resolves them once the options are read */
static int parse_metrics(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);
	char *joined = o->metrics ? xasprintf("%s,%s", o->metrics, arg) : xstrdup(arg);

	free(o->metrics);
	o->metrics = joined;
	return 0;
}

/* given at all, even as --no-metric-only, it overrides --topdown's and --smi-cost's default */
static int parse_metric_only(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	o->metric_only = !unset;
	o->metric_only_given = true;
	return 0;
}

static int parse_big_num(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);

	o->big_num = !unset;
	o->big_num_given = true;
	return 0;
}

/*
 * -A, --per-thread and --per-{socket,die,core,node} set one mode and the last one given wins;
 * as in perf, where the "none" mode is 0, any of them negated means -A.
 */
static int parse_aggr_mode(const struct option *opt, const char *arg, bool unset)
{
	static const struct {
		const char *name;
		enum aggr_mode mode;
	} modes[] = {
		{ "per-thread", AGGR_THREAD }, { "per-socket", AGGR_SOCKET },
		{ "per-die", AGGR_DIE },	 { "per-core", AGGR_CORE },
		{ "per-node", AGGR_NODE },
	};
	enum aggr_mode mode = AGGR_NONE;
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]) && !unset; i++)
		if (!strcmp(opt->long_name, modes[i].name))
			mode = modes[i].mode;
	owner(opt)->aggr_mode = mode;
	return 0;
}

/* Hybrid machines name their CPU PMUs cpu_<type>: --cputype atom means cpu_atom. */
static int parse_cputype(const struct option *opt, const char *arg, bool unset)
{
	struct stat_options *o = owner(opt);
	struct pmu_set *pmus;
	const struct pmu *pmu;
	char *name;
	bool found;

	if (o->evlist.nr) {
		pr_err("Must define cputype before events/metrics");
		stat_options_usage(o, true, "cputype");
		return -EINVAL;
	}
	name = xasprintf("cpu_%s", arg);
	pmus = pmu_set_new(o->events_ctx.sysfs_root);
	pmu = pmu_find(pmus, name);
	/* a hybrid CPU PMU lists its CPUs in "cpus" (an uncore PMU has a "cpumask") */
	found = pmu && !pmu->is_uncore && pmu->cpumask;
	pmu_set_free(pmus);
	if (!found) {
		pr_err("--cputype %s is not supported!", arg);
		stat_options_usage(o, true, "cputype");
		free(name);
		return -EINVAL;
	}
	free(o->cputype_pmu);
	o->cputype_pmu = name;
	o->events_ctx.cputype_pmu = name;
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
		o->aggr_mode = AGGR_GLOBAL;
	}
	return 0;
}

/* perf's message for -A or cgroups without a CPU target, with all four options' lines */
static int no_system_wide_error(struct stat_options *o)
{
	semantic_error(o, "both cgroup and no-aggregation modes only available in system-wide mode",
		       "G", "A");
	stat_options_usage(o, false, "a");
	stat_options_usage(o, false, "for-each-cgroup");
	return EXIT_EINVAL;
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
	if (o->metric_only && o->aggr_mode == AGGR_THREAD) {
		pr_err("--metric-only is not supported with --per-thread");
		return EXIT_EINVAL;
	}
	if (o->metric_only && o->run_count > 1) {
		pr_err("--metric-only is not supported with -r");
		return EXIT_EINVAL;
	}
	if (o->csv_sep && o->big_num_given && o->big_num)
		return semantic_error(o, "-B option not supported with -x", "B", "x");
	if (o->log_fd < 0)
		return semantic_error(o, "argument to --log-fd must be a > 0", "log-fd", NULL);
	if (o->run_count < 0)
		return semantic_error(o, "Run count must be a positive number", "r", NULL);
	if (o->run_table && o->run_count <= 1)
		return semantic_error(o, "--table is only supported with -r", "r", "table");
	if (o->per_thread && !o->pid && !o->tid && (!o->system_wide || o->cpu_list) &&
	    !(o->argc == 0 && !o->cpu_list)) {
		pr_err("The --per-thread option is only available when monitoring via -p -t -a "
		       "options or only --per-thread.");
		/* perf lists -p and -t without the usage line here */
		stat_options_usage(o, false, "p");
		stat_options_usage(o, false, "t");
		return EXIT_EINVAL;
	}
	/* -A and --per-socket/die/core/node aggregate CPUs: they need CPUs counted */
	if (o->aggr_mode != AGGR_GLOBAL && o->aggr_mode != AGGR_THREAD && !o->system_wide &&
	    !o->cpu_list && !o->bpf_prog && !(o->argc == 0 && !o->pid && !o->tid))
		return no_system_wide_error(o);
	/* -G and --for-each-cgroup count per CPU: a workload alone is not enough */
	if ((o->evlist.nr_cgroup_args || o->cgroup_list) && !o->system_wide && !o->cpu_list &&
	    !o->bpf_prog && !(o->argc == 0 && !o->pid && !o->tid))
		return no_system_wide_error(o);
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
	o->per_thread = o->aggr_mode == AGGR_THREAD;
	o->no_aggr = o->aggr_mode == AGGR_NONE;
	return 0;
}

int stat_options_parse(struct stat_options *o, int argc, const char **argv)
{
	int err;

	o->scale = true;
	o->big_num = true;
	o->run_count = 1;
	control_init(&o->control);
	/* -v must be seen before -e: perf's parse-time lines depend on it. */
	o->events_ctx.verbose = o->verbose + count_verbose(argc, argv);
	/* tests describe other machines (topology, PMUs) with a fake sysfs tree */
	if (!o->events_ctx.sysfs_root)
		o->events_ctx.sysfs_root = getenv("BPERF_SYSFS_ROOT");
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

int stat_options_expand_cgroups(struct stat_options *o)
{
	if (!o->cgroup_list)
		return 0;
	if (o->evlist.nr_cgroup_args) {
		pr_err("--cgroup and --for-each-cgroup cannot be used together");
		stat_options_usage(o, true, "G");
		stat_options_usage(o, false, "for-each-cgroup");
		return EXIT_EINVAL;
	}
	if (evlist_expand_cgroups(&o->evlist, o->cgroup_list)) {
		stat_options_usage(o, true, "for-each-cgroup");
		return EXIT_EINVAL;
	}
	return 0;
}

void stat_options_free(struct stat_options *o)
{
	evlist_free(&o->evlist);
	metric_set_free(&o->metric_set);
	free(o->metrics);
	control_close(&o->control);
	free(o->cputype_pmu);
	stat_config_vars_free(&o->config);
}
