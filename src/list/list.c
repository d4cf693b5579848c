// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf list [filter...]`, laid out as perf 6.1's `perf list`: symbolic
 * hardware and software events (only those the kernel accepts), tool events,
 * hardware cache events (likewise), PMU events (sysfs and perf's tables,
 * list_pmu.c), the raw and breakpoint descriptors, tracepoints, then the
 * metrics (perf's SDT probe cache is not listed). --raw-dump prints the names
 * alone, each section as perf prints it: "name " each, metrics a line each.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* FNM_CASEFOLD */
#endif
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/top_opts.h"
#include "util/common.h"
#include "events/evlist.h"
#include "list/list_internal.h"
#include "events/parse_internal.h"
#include "events/pmu.h"
#include "events/tracepoint.h"
#include "metrics/metric_table.h"


struct symbol {
	const char *symbol;
	const char *alias;
};

static const struct symbol hw_symbols[PERF_COUNT_HW_MAX] = {
	{ "cpu-cycles", "cycles" },
	{ "instructions", "" },
	{ "cache-references", "" },
	{ "cache-misses", "" },
	{ "branch-instructions", "branches" },
	{ "branch-misses", "" },
	{ "bus-cycles", "" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend" },
	{ "stalled-cycles-backend", "idle-cycles-backend" },
	{ "ref-cycles", "" },
};

static const struct symbol sw_symbols[] = {
	{ "cpu-clock", "" },
	{ "task-clock", "" },
	{ "page-faults", "faults" },
	{ "context-switches", "cs" },
	{ "cpu-migrations", "migrations" },
	{ "minor-faults", "" },
	{ "major-faults", "" },
	{ "alignment-faults", "" },
	{ "emulation-faults", "" },
	{ "dummy", "" },
	{ "bpf-output", "" },
	{ "cgroup-switches", "" },
};

static bool glob_match(const char *str, const char *glob)
{
	return !glob || !fnmatch(glob, str, 0);
}

/* perf's is_event_supported: can this thread open the event? */
static bool event_supported(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EACCES) {
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct names {
	char **v;
	int nr;
};

static void names_add(struct names *n, char *s)
{
	n->v = xrealloc(n->v, sizeof(*n->v) * (n->nr + 1));
	n->v[n->nr++] = s;
}

/* Sorted, then one "  %-50s [desc]" line each (or "name " with --raw-dump). */
static void names_print(struct names *n, const char *desc, const struct list_opts *o)
{
	qsort(n->v, n->nr, sizeof(*n->v), cmp_str);
	for (int i = 0; i < n->nr; i++) {
		if (o->name_only)
			printf("%s ", n->v[i]);
		else
			printf("  %-50s [%s]\n", n->v[i], desc);
		free(n->v[i]);
	}
	if (n->nr && o->pager)
		printf("\n");
	free(n->v);
	n->v = NULL;
	n->nr = 0;
}

static void print_symbols(const char *glob, uint32_t type, const struct symbol *syms, int nr,
			  const struct list_opts *o)
{
	struct names n = { NULL, 0 };

	for (int i = 0; i < nr; i++) {
		const struct symbol *s = &syms[i];

		if (glob && !(glob_match(s->symbol, glob) || (s->alias[0] &&
							     glob_match(s->alias, glob))))
			continue;
		if (!event_supported(type, i))
			continue;
		if (!o->name_only && s->alias[0])
			names_add(&n, xasprintf("%s OR %s", s->symbol, s->alias));
		else
			names_add(&n, xstrdup(s->symbol));
	}
	names_print(&n, type == PERF_TYPE_HARDWARE ? "Hardware event" : "Software event", o);
}

static void print_tools(const char *glob, const struct list_opts *o)
{
	static const char *const tools[] = { "duration_time", "user_time", "system_time" };

	for (size_t i = 0; i < ARRAY_SIZE(tools); i++) {
		if (!glob_match(tools[i], glob))
			continue;
		if (o->name_only)
			printf("%s ", tools[i]);
		else
			printf("  %-50s [%s]\n", tools[i], "Tool event");
	}
	if (o->pager)
		printf("\n");
}

bool hw_cache_op_valid(int type, int op);
const char *hw_cache_name(int type, int idx);
const char *hw_cache_op_name(int op, int idx);
const char *hw_cache_result_name(int result, int idx);

static void print_cache(const char *glob, const struct list_opts *o)
{
	struct names n = { NULL, 0 };

	for (int type = 0; type < PERF_COUNT_HW_CACHE_MAX; type++) {
		for (int op = 0; op < PERF_COUNT_HW_CACHE_OP_MAX; op++) {
			if (!hw_cache_op_valid(type, op))
				continue;
			for (int res = 0; res < PERF_COUNT_HW_CACHE_RESULT_MAX; res++) {
				char *name;

				if (res)
					name = xasprintf("%s-%s-%s", hw_cache_name(type, 0),
							 hw_cache_op_name(op, 0),
							 hw_cache_result_name(res, 0));
				else
					name = xasprintf("%s-%s", hw_cache_name(type, 0),
							 hw_cache_op_name(op, 1));
				if (!glob_match(name, glob) ||
				    !event_supported(PERF_TYPE_HW_CACHE,
						     type | (op << 8) | (res << 16))) {
					free(name);
					continue;
				}
				names_add(&n, name);
			}
		}
	}
	names_print(&n, "Hardware cache event", o);
}

static int scan_sorted(const char *dir, struct dirent ***list)
{
	return scandir(dir, list, NULL, alphasort);
}

static bool is_dir(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool ret = stat(path, &st) == 0 && S_ISDIR(st.st_mode);

	free(path);
	return ret;
}

/* perf 6.1 sorts the "sys:event" strings as a whole, so "fib6:..." comes before "fib:..." */
static void print_tracepoints(const char *sys_glob, const char *ev_glob, const struct list_opts *o)
{
	char *events = tracing_events_dir(o->tracefs_root);
	struct names n = { NULL, 0 };
	struct dirent **sys = NULL;
	int nsys = scan_sorted(events, &sys);

	for (int i = 0; i < nsys; i++) {
		const char *s = sys[i]->d_name;
		struct dirent **evs = NULL;
		char *dir;
		int nev;

		if (!strcmp(s, ".") || !strcmp(s, "..") || !is_dir(events, s) ||
		    !glob_match(s, sys_glob)) {
			free(sys[i]);
			continue;
		}
		dir = xasprintf("%s/%s", events, s);
		nev = scan_sorted(dir, &evs);
		for (int j = 0; j < nev; j++) {
			const char *e = evs[j]->d_name;
			char *id = xasprintf("%s/%s/id", dir, e);
			bool has_id = access(id, R_OK) == 0;

			free(id);
			if (strcmp(e, ".") && strcmp(e, "..") && is_dir(dir, e) && has_id &&
			    glob_match(e, ev_glob))
				names_add(&n, xasprintf("%s:%s", s, e));
			free(evs[j]);
		}
		free(evs);
		free(dir);
		free(sys[i]);
	}
	free(sys);
	free(events);
	names_print(&n, "Tracepoint event", o);
}

static void print_all(const struct list_opts *o)
{
	print_symbols(NULL, PERF_TYPE_HARDWARE, hw_symbols, PERF_COUNT_HW_MAX, o);
	print_symbols(NULL, PERF_TYPE_SOFTWARE, sw_symbols, ARRAY_SIZE(sw_symbols), o);
	print_tools(NULL, o);
	print_cache(NULL, o);
	list_print_pmus(NULL, o);
	if (!o->name_only) {
		printf("  %-50s [%s]\n", "rNNN", "Raw hardware event descriptor");
		printf("  %-50s [%s]\n", "cpu/t1=v1[,t2=v2,t3 ...]/modifier",
		       "Raw hardware event descriptor");
		if (o->pager)
			printf("   (see 'man perf-list' on how to encode it)\n\n");
		printf("  %-50s [%s]\n", "mem:<addr>[/len][:access]", "Hardware breakpoint");
		if (o->pager)
			printf("\n");
	}
	print_tracepoints(NULL, NULL, o);
	/* perf's SDT events come next: bperf has none (README) */
	metric_table_print(stdout, true, true, NULL, o->name_only);
}

/* perf list's filters, in its order of tests */
static void print_filter(const char *arg, const struct list_opts *o)
{
	const char *sep;

	if (!strcmp(arg, "tracepoint")) {
		print_tracepoints(NULL, NULL, o);
	} else if (!strcmp(arg, "hw") || !strcmp(arg, "hardware")) {
		print_symbols(NULL, PERF_TYPE_HARDWARE, hw_symbols, PERF_COUNT_HW_MAX, o);
	} else if (!strcmp(arg, "sw") || !strcmp(arg, "software")) {
		print_symbols(NULL, PERF_TYPE_SOFTWARE, sw_symbols, ARRAY_SIZE(sw_symbols), o);
		print_tools(NULL, o);
	} else if (!strcmp(arg, "cache") || !strcmp(arg, "hwcache")) {
		print_cache(NULL, o);
	} else if (!strcmp(arg, "pmu")) {
		list_print_pmus(NULL, o);
	} else if (!strcmp(arg, "sdt")) {
		/* perf's SDT events come from its probe cache: bperf reads none */
	} else if (!strcmp(arg, "metric") || !strcmp(arg, "metrics")) {
		metric_table_print(stdout, true, false, NULL, o->name_only);
	} else if (!strcmp(arg, "metricgroup") || !strcmp(arg, "metricgroups")) {
		metric_table_print(stdout, false, true, NULL, o->name_only);
	} else if ((sep = strchr(arg, ':'))) {
		char *sys = strndup(arg, sep - arg);

		print_tracepoints(sys, sep + 1, o);
		/* as in perf, the part before the ':' also picks metric groups by substring */
		metric_table_print(stdout, true, true, sys, o->name_only);
		free(sys);
	} else {
		char *glob = xasprintf("*%s*", arg);

		print_symbols(glob, PERF_TYPE_HARDWARE, hw_symbols, PERF_COUNT_HW_MAX, o);
		print_symbols(glob, PERF_TYPE_SOFTWARE, sw_symbols, ARRAY_SIZE(sw_symbols), o);
		print_tools(glob, o);
		print_cache(glob, o);
		list_print_pmus(glob, o);
		print_tracepoints(NULL, glob, o);
		/* perf looks for "*glob*" in group names as a plain string: no group holds a '*' */
		metric_table_print(stdout, true, true, glob, o->name_only);
		free(glob);
	}
}

/*
 * perf's pager_in_use(): perf list pipes a terminal's output through a pager, PERF_PAGER, else
 * PAGER, else /usr/bin/pager or /usr/bin/less, none when that is empty or "cat" (--no-pager sets
 * PERF_PAGER=cat). bperf prints to the terminal itself, laid out as perf does for its pager.
 */
static bool pager_would_run(const struct top_opts *top)
{
	const char *pager;

	if (top->no_pager || !isatty(1))
		return false;
	pager = getenv("PERF_PAGER");
	if (!pager)
		pager = getenv("PAGER");
	if (!pager && !access("/usr/bin/pager", X_OK))
		pager = "/usr/bin/pager";
	if (!pager && !access("/usr/bin/less", X_OK))
		pager = "/usr/bin/less";
	return pager && *pager && strcmp(pager, "cat");
}

static void list_usage(void)
{
	fprintf(stderr, "\n Usage: bperf list [<options>] [hw|sw|cache|tracepoint|pmu|sdt|"
			"metric|metricgroup|event_glob]\n\n"
			"    -d, --desc            Print extra event descriptions. --no-desc to not print.\n"
			"    -v, --long-desc       Print longer event descriptions.\n"
			"        --cputype <hybrid cpu type>\n"
			"                          Print events applying cpu with this type for hybrid "
			"platform (e.g. core or atom)\n"
			"        --debug           Enable debugging output\n"
			"        --deprecated      Print deprecated events.\n"
			"        --details         Print information on the perf event names and "
			"expressions used internally by events.\n\n");
}

/* perf's pager_get_columns(): $COLUMNS, else the terminal's width less 2, else 78 */
static int list_columns(void)
{
	const char *s = getenv("COLUMNS");
	struct winsize ws;

	if (s)
		return atoi(s);
	if (isatty(1) && !ioctl(1, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col - 2;
	return 78;
}

/* perf_pmu__hybrid_type_to_pmu: "cpu_<type>" when that hybrid PMU is in sysfs */
static char *hybrid_type_pmu(const char *sysfs_root, const char *type)
{
	char *path = xasprintf("%s/bus/event_source/devices/cpu_%s/cpus",
			       sysfs_root && *sysfs_root ? sysfs_root : "/sys", type);
	char *pmu = access(path, F_OK) ? NULL : xasprintf("cpu_%s", type);

	free(path);
	if (!pmu)
		fprintf(stderr, "WARNING: hybrid cputype is not supported!\n");
	return pmu;
}

static int unknown_option(const char *arg)
{
	if (arg[1] == '-')
		fprintf(stderr, "  Error: unknown option `%s'\n", arg + 2);
	else
		fprintf(stderr, "  Error: unknown switch `%c'\n", arg[1]);
	list_usage();
	return EXIT_USAGE;
}

/* a long option, with its --no- form when it has one; -1 when arg is not it */
static int long_flag(const char *arg, const char *name, bool *flag)
{
	if (!strcmp(arg + 2, name)) {
		*flag = true;
		return 0;
	}
	if (!strncmp(arg + 2, "no-", 3) && !strcmp(arg + 5, name)) {
		*flag = false;
		return 0;
	}
	return -1;
}

/* perf list's options, up to the first non-option; returns the index of the first filter */
static int parse_list_options(int argc, const char **argv, struct list_opts *o,
			      const char **cputype)
{
	bool debug = false;
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		const char *arg = argv[i];

		if (!strcmp(arg, "--"))
			return i + 1;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			list_usage();
			return -EXIT_USAGE;
		}
		if (arg[1] != '-') {
			for (const char *c = arg + 1; *c; c++) {
				if (*c == 'd')
					o->quiet = false;
				else if (*c == 'v')
					o->long_desc = true;
				else
					return -unknown_option((char[]){ '-', *c, 0 });
			}
			continue;
		}
		if (!strncmp(arg, "--cputype", 9) && (arg[9] == '=' || !arg[9])) {
			if (arg[9] == '=') {
				*cputype = arg + 10;
			} else if (i + 1 < argc) {
				*cputype = argv[++i];
			} else {
				fprintf(stderr, "  Error: option `cputype' requires a value\n");
				list_usage();
				return -EXIT_USAGE;
			}
			continue;
		}
		if (!strcmp(arg, "--desc")) {
			o->quiet = false;
		} else if (!strcmp(arg, "--no-desc")) {
			o->quiet = true;
		} else if (long_flag(arg, "raw-dump", &o->name_only) &&
			   long_flag(arg, "long-desc", &o->long_desc) &&
			   long_flag(arg, "details", &o->details) &&
			   long_flag(arg, "deprecated", &o->deprecated) &&
			   long_flag(arg, "debug", &debug)) {
			return -unknown_option(arg);
		}
	}
	return i;
}

int cmd_list(int argc, const char **argv, const struct top_opts *top)
{
	struct list_opts o = { .pager = pager_would_run(top) };
	const char *cputype = NULL;
	char *cpu_pmu = NULL;
	int i = parse_list_options(argc, argv, &o, &cputype);

	if (i < 0)
		return -i;
	o.columns = list_columns();
	if (!o.name_only && o.pager)
		printf("\nList of pre-defined events (to be used in -e or -M):\n\n");
	if (cputype)
		o.cpu_pmu = cpu_pmu = hybrid_type_pmu(o.sysfs_root, cputype);
	if (i >= argc)
		print_all(&o);
	for (; i < argc; i++)
		print_filter(argv[i], &o);
	free(cpu_pmu);
	return 0;
}
