// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf list [filter...]`, laid out as perf 6.1's `perf list`: symbolic
 * hardware and software events (only those the kernel accepts), tool events,
 * hardware cache events (likewise), sysfs PMU aliases, the raw and
 * breakpoint descriptors, tracepoints, then bperf's metrics (perf's JSON
 * events and SDT probe cache are not listed). --raw-dump prints the names
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "common.h"
#include "events/evlist.h"
#include "events/parse_internal.h"
#include "events/pmu.h"
#include "events/tracepoint.h"
#include "stat/metric_table.h"

struct list_opts {
	bool name_only;		/* --raw-dump */
	bool pager;		/* perf's pager_in_use(): blank lines between sections */
	const char *sysfs_root;
	const char *tracefs_root;
};

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

static bool glob_match_nocase(const char *str, const char *glob)
{
	return !glob || !fnmatch(glob, str, FNM_CASEFOLD);
}

struct pmu_event_name {
	char *name;
	bool is_cpu;
};

/* perf's order: the core PMU's events first, then by name */
static int cmp_pmu_event(const void *a, const void *b)
{
	const struct pmu_event_name *x = a, *y = b;

	if (x->is_cpu != y->is_cpu)
		return y->is_cpu - x->is_cpu;
	return strcmp(x->name, y->name);
}

/* x86's PMUs perf offers as "pmu//" (its auxtrace PMUs) */
static bool pmu_selectable(const char *name)
{
	return !strcmp(name, "intel_pt") || !strcmp(name, "intel_bts");
}

/*
 * sysfs PMU aliases as perf prints those without a JSON description: "pmu/alias/", a core
 * PMU's as "alias OR cpu/alias/" outside --raw-dump; a glob matches the "pmu/alias/" form, or
 * the alias of another PMU.
 */
static void print_pmus(const char *glob, const struct list_opts *o)
{
	struct pmu_set *set = pmu_set_new(o->sysfs_root);
	struct pmu_event_name *v = NULL;
	int nr = 0, printed = 0;

	pmu_scan_all(set);
	for (int i = 0; i < set->nr; i++) {
		const struct pmu *pmu = set->list[i];
		bool is_cpu = !strcmp(pmu->name, "cpu") || !strcmp(pmu->name, "cpu_core") ||
			      !strcmp(pmu->name, "cpu_atom");

		for (int j = 0; j < pmu->nr_aliases; j++) {
			const char *alias = pmu->aliases[j].name;
			char *name = xasprintf("%s/%s/", pmu->name, alias);

			if (glob && !(glob_match_nocase(name, glob) ||
				      (!is_cpu && glob_match_nocase(alias, glob)))) {
				free(name);
				continue;
			}
			if (is_cpu && !o->name_only) {
				char *either = xasprintf("%s OR %s", alias, name);

				free(name);
				name = either;
			}
			v = xrealloc(v, (nr + 1) * sizeof(*v));
			v[nr++] = (struct pmu_event_name){ name, is_cpu };
		}
		if (pmu_selectable(pmu->name) && glob_match(pmu->name, glob)) {
			v = xrealloc(v, (nr + 1) * sizeof(*v));
			v[nr++] = (struct pmu_event_name){ xasprintf("%s//", pmu->name), false };
		}
	}
	if (nr)
		qsort(v, nr, sizeof(*v), cmp_pmu_event);
	for (int i = 0; i < nr; i++) {
		/* an alias two PMUs share is printed once */
		if (!i || strcmp(v[i].name, v[i - 1].name)) {
			if (o->name_only)
				printf("%s ", v[i].name);
			else
				printf("  %-50s [Kernel PMU event]\n", v[i].name);
			printed++;
		}
	}
	if (printed && o->pager)
		printf("\n");
	for (int i = 0; i < nr; i++)
		free(v[i].name);
	free(v);
	pmu_set_free(set);
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
	print_pmus(NULL, o);
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
		print_pmus(NULL, o);
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
		print_pmus(glob, o);
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
			"    --raw-dump            Dump raw events\n\n");
}

int cmd_list(int argc, const char **argv, const struct top_opts *top)
{
	struct list_opts o = { .pager = pager_would_run(top) };
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--raw-dump")) {
			o.name_only = true;
		} else if (!strcmp(argv[i], "--")) {
			i++;
			break;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			list_usage();
			return EXIT_USAGE;
		} else {
			if (argv[i][1] == '-')
				fprintf(stderr, "  Error: unknown option `%s'\n", argv[i] + 2);
			else
				fprintf(stderr, "  Error: unknown switch `%c'\n", argv[i][1]);
			list_usage();
			return EXIT_USAGE;
		}
	}
	if (!o.name_only && o.pager)
		printf("\nList of pre-defined events (to be used in -e or -M):\n\n");
	if (i >= argc)
		print_all(&o);
	for (; i < argc; i++)
		print_filter(argv[i], &o);
	return 0;
}
