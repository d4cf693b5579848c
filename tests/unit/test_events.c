// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event parsing: attr encoding, names, units, modifiers, groups, sysfs PMU
 * formats and aliases (on a fake sysfs tree), tracepoints (on a fake
 * tracefs), error messages and positions, stat-time attr settings and the
 * -vv attr dump. Expected values were taken from perf 6.1 on this machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "events/evlist.h"
#include "events/stat_config.h"

static char root[256];
static struct parse_events_ctx ctx;

static void write_file(const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", root, rel);
	char *dir = xstrdup(path);
	FILE *f;

	for (char *p = dir + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0755);
			*p = '/';
		}
	}
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
	free(dir);
	free(path);
}

static void build_fake_tree(void)
{
	strcpy(root, "/tmp/bperf-test-events-XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(1);
	}
	write_file("sys/bus/event_source/devices/cpu/type", "4\n");
	write_file("sys/bus/event_source/devices/cpu/format/event", "config:0-7\n");
	write_file("sys/bus/event_source/devices/cpu/format/umask", "config:8-15\n");
	write_file("sys/bus/event_source/devices/cpu/format/split", "config1:0-3,8-11\n");
	write_file("sys/bus/event_source/devices/cpu/events/foo", "event=0x3c,umask=1\n");
	write_file("sys/bus/event_source/devices/cpu/events/foo.unit", "MiB\n");
	write_file("sys/bus/event_source/devices/cpu/events/foo.scale", "0.5\n");
	write_file("sys/bus/event_source/devices/cpu/events/bar", "event=0x11\n");
	write_file("sys/bus/event_source/devices/uncore_imc_0/type", "20\n");
	write_file("sys/bus/event_source/devices/uncore_imc_0/cpumask", "0\n");
	write_file("sys/bus/event_source/devices/uncore_imc_0/format/event", "config:0-7\n");
	write_file("sys/bus/event_source/devices/uncore_imc_1/type", "21\n");
	write_file("sys/bus/event_source/devices/uncore_imc_1/cpumask", "1\n");
	write_file("sys/bus/event_source/devices/uncore_imc_1/format/event", "config:0-7\n");
	write_file("sys/bus/event_source/devices/software/type", "1\n");
	write_file("tracing/events/sched/sched_switch/format",
		   "name: sched_switch\nID: 316\nformat:\n");
	write_file("tracing/events/sched/sched_switch/id", "316\n");
	write_file("tracing/events/sched/sched_wakeup/format", "name: sched_wakeup\nID: 318\n");
	write_file("tracing/events/sched/sched_wakeup/id", "318\n");
	write_file("tracing/events/sched/enable", "0\n");
	ctx.sysfs_root = xasprintf("%s/sys", root);
	ctx.tracefs_root = xasprintf("%s/tracing", root);
}

/* Parses str into a fresh evlist; on failure err keeps perf's error. */
static int parse(struct evlist *ev, const char *str, struct parse_events_error *err)
{
	memset(ev, 0, sizeof(*ev));
	memset(err, 0, sizeof(*err));
	err->idx = -1;
	return parse_events(ev, str, &ctx, err);
}

static const struct evsel *one(struct evlist *ev, const char *str)
{
	struct parse_events_error err;
	bool parsed = !parse(ev, str, &err) && ev->nr >= 1;

	CHECK_MSG(str, parsed, "expected to parse, got error '%s' at %d", err.str ? err.str : "",
		  err.idx);
	parse_events_error_free(&err);
	return parsed ? &ev->entries[0] : NULL;
}

static void test_symbols(void)
{
	struct evlist ev;
	const struct evsel *e;

	e = one(&ev, "cs");
	if (e) {
		CHECK_EQ("cs type", PERF_TYPE_SOFTWARE, e->attr.type);
		CHECK_EQ("cs config", PERF_COUNT_SW_CONTEXT_SWITCHES, e->attr.config);
		CHECK_EQ("cs size", 128, e->attr.size);
		CHECK_EQ("cs exclude_guest", 1, e->attr.exclude_guest);
		CHECK_STR("cs name", "cs", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "cpu-cycles");
	if (e) {
		CHECK_EQ("cycles type", PERF_TYPE_HARDWARE, e->attr.type);
		CHECK_EQ("cycles config", 0, e->attr.config);
	}
	evlist_free(&ev);
	e = one(&ev, "idle-cycles-backend");
	if (e)
		CHECK_EQ("idle-cycles-backend config", PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
			 e->attr.config);
	evlist_free(&ev);
	e = one(&ev, "task-clock");
	if (e) {
		CHECK_STR("task-clock unit", "msec", e->unit);
		CHECK_EQ("task-clock scale*1e6", 1, (int)(e->scale * 1e6 + 0.5));
		CHECK_EQ("task-clock is_clock", 1, e->is_clock);
	}
	evlist_free(&ev);
	e = one(&ev, "duration_time");
	if (e) {
		CHECK_STR("duration_time unit", "ns", e->unit);
		CHECK_EQ("duration_time tool", TOOL_DURATION_TIME, e->tool);
		CHECK_EQ("duration_time config", PERF_COUNT_SW_DUMMY, e->attr.config);
	}
	evlist_free(&ev);
	e = one(&ev, "r1a8:u");
	if (e) {
		CHECK_EQ("r1a8 type", PERF_TYPE_RAW, e->attr.type);
		CHECK_EQ("r1a8 config", 0x1a8, e->attr.config);
		CHECK_STR("r1a8 name", "r1a8:u", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "4:0x10");
	if (e) {
		CHECK_EQ("4:0x10 type", 4, e->attr.type);
		CHECK_EQ("4:0x10 config", 0x10, e->attr.config);
	}
	evlist_free(&ev);
	e = one(&ev, "cs/name=switches,config=2/");
	if (e) {
		CHECK_STR("name= term", "switches", e->name);
		CHECK_EQ("config= term", 2, e->attr.config);
	}
	evlist_free(&ev);
}

static void test_cache(void)
{
	struct parse_events_error err;
	struct evlist ev;
	const struct evsel *e;

	e = one(&ev, "L1-dcache-load-misses");
	if (e) {
		CHECK_EQ("L1d load misses type", PERF_TYPE_HW_CACHE, e->attr.type);
		CHECK_EQ("L1d load misses config", 0x10000, e->attr.config);
	}
	evlist_free(&ev);
	e = one(&ev, "LLC-prefetch-misses");
	if (e)
		CHECK_EQ("LLC prefetch misses config", 0x10202, e->attr.config);
	evlist_free(&ev);
	e = one(&ev, "dTLB-stores");
	if (e)
		CHECK_EQ("dTLB stores config", 0x103, e->attr.config);
	evlist_free(&ev);
	e = one(&ev, "branch-loads:k");
	if (e) {
		CHECK_STR("cache event name drops the modifier", "branch-loads", e->name);
		CHECK_EQ("branch-loads config", 0x5, e->attr.config);
		CHECK_EQ("branch-loads:k exclude_user", 1, e->attr.exclude_user);
	}
	evlist_free(&ev);
	e = one(&ev, "L1-dcache-misses");
	if (e)
		CHECK_EQ("L1-dcache-misses config", 0x10000, e->attr.config);
	evlist_free(&ev);
	/* L1I cannot be written: perf fails without a message */
	CHECK_EQ("L1-icache-stores fails", -EINVAL, parse(&ev, "L1-icache-stores", &err));
	CHECK_EQ("L1-icache-stores no message", 0, err.num_errors);
	parse_events_error_free(&err);
	evlist_free(&ev);
}

static void test_modifiers(void)
{
	struct parse_events_error err;
	struct evlist ev;
	const struct evsel *e;

	e = one(&ev, "faults:u");
	if (e) {
		CHECK_EQ("u exclude_user", 0, e->attr.exclude_user);
		CHECK_EQ("u exclude_kernel", 1, e->attr.exclude_kernel);
		CHECK_EQ("u exclude_hv", 1, e->attr.exclude_hv);
		CHECK_EQ("u exclude_guest", 1, e->attr.exclude_guest);
		CHECK_STR("faults:u name", "faults:u", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "cs:k");
	if (e) {
		CHECK_EQ("k exclude_user", 1, e->attr.exclude_user);
		CHECK_EQ("k clears exclude_guest", 0, e->attr.exclude_guest);
	}
	evlist_free(&ev);
	e = one(&ev, "cs:Gu");
	if (e) {
		CHECK_EQ("Gu exclude_guest", 0, e->attr.exclude_guest);
		CHECK_EQ("Gu exclude_host", 1, e->attr.exclude_host);
	}
	evlist_free(&ev);
	e = one(&ev, "cs:ppp");
	if (e)
		CHECK_EQ("ppp precise_ip", 3, e->attr.precise_ip);
	evlist_free(&ev);
	e = one(&ev, "cs:DeWbP");
	if (e) {
		CHECK_EQ("D pinned", 1, e->attr.pinned);
		CHECK_EQ("e exclusive", 1, e->attr.exclusive);
		CHECK_EQ("W weak", 1, e->weak_group);
		CHECK_EQ("b bpf", 1, e->bpf_counter);
		CHECK_EQ("P precise_max", 1, e->precise_max);
	}
	evlist_free(&ev);
	CHECK_EQ("cs:uu fails", -EINVAL, parse(&ev, "cs:uu", &err));
	CHECK_STR("cs:uu message", "Bad modifier", err.str);
	CHECK_EQ("cs:uu position", 3, err.idx);
	parse_events_error_free(&err);
	CHECK_EQ("cs:pppp fails", -EINVAL, parse(&ev, "cs:pppp", &err));
	CHECK_STR("cs:pppp message", "Bad modifier", err.str);
	parse_events_error_free(&err);
}

static void test_groups(void)
{
	struct evlist ev;
	const struct evsel *e;
	struct stat_attr_opts opts = { .enable_on_exec = true };

	e = one(&ev, "cs,{task-clock,faults:k}:u,migrations");
	if (e && CHECK_EQ("group: events", 4, ev.nr)) {
		CHECK_STR("group member name", "task-clock", ev.entries[1].name);
		CHECK_STR("group member own modifier kept", "faults:k", ev.entries[2].name);
		CHECK_EQ("leader nr_members", 2, ev.entries[1].nr_members);
		CHECK_EQ("member leader", 1, ev.entries[2].leader_idx);
		CHECK_EQ("lone event leader", 3, ev.entries[3].leader_idx);
		/* faults:k then :u on top: user and kernel counted, hv excluded */
		CHECK_EQ("k+u exclude_user", 0, ev.entries[2].attr.exclude_user);
		CHECK_EQ("k+u exclude_kernel", 0, ev.entries[2].attr.exclude_kernel);
		CHECK_EQ("k+u exclude_hv", 1, ev.entries[2].attr.exclude_hv);
		CHECK_EQ("group :u keeps exclude_guest", 1, ev.entries[1].attr.exclude_guest);
		evlist_config_for_stat(&ev, &opts);
		CHECK_EQ("leader read_format", 0xf, ev.entries[1].attr.read_format);
		CHECK_EQ("member read_format", 0xf, ev.entries[2].attr.read_format);
		CHECK_EQ("lone read_format", 0x3, ev.entries[0].attr.read_format);
		CHECK_EQ("leader enable_on_exec", 1, ev.entries[1].attr.enable_on_exec);
		CHECK_EQ("member enable_on_exec", 0, ev.entries[2].attr.enable_on_exec);
		CHECK_EQ("member disabled", 0, ev.entries[2].attr.disabled);
		CHECK_EQ("sample_type", PERF_SAMPLE_IDENTIFIER, ev.entries[0].attr.sample_type);
		CHECK_EQ("inherit", 1, ev.entries[0].attr.inherit);
	}
	evlist_free(&ev);
	e = one(&ev, "{cs}:D");
	if (e) {
		CHECK_EQ("single group pinned", 1, e->attr.pinned);
		CHECK_EQ("single group not in_group", 0, e->in_group);
	}
	evlist_free(&ev);
}

static void test_pmu(void)
{
	struct parse_events_error err;
	struct evlist ev;
	const struct evsel *e;

	e = one(&ev, "cpu/event=0x3c,umask=1/");
	if (e) {
		CHECK_EQ("cpu pmu type", 4, e->attr.type);
		CHECK_EQ("cpu pmu config", 0x13c, e->attr.config);
		CHECK_STR("cpu pmu name", "cpu/event=0x3c,umask=1/", e->name);
		CHECK_STR("cpu pmu unit", "", e->unit);
	}
	evlist_free(&ev);
	e = one(&ev, "cpu/foo/");
	if (e) {
		CHECK_EQ("alias config", 0x13c, e->attr.config);
		CHECK_STR("alias unit", "MiB", e->unit);
		CHECK_EQ("alias scale*10", 5, (int)(e->scale * 10 + 0.5));
	}
	evlist_free(&ev);
	e = one(&ev, "cpu/event=foo,name=x/");
	if (e) {
		CHECK_EQ("event=alias config", 0x13c, e->attr.config);
		CHECK_STR("event=alias name=", "x", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "foo:u");
	if (e) {
		CHECK_EQ("bare alias type", 4, e->attr.type);
		CHECK_EQ("bare alias config", 0x13c, e->attr.config);
		CHECK_STR("bare alias name", "foo:u", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "cpu/split=0xff,config=0x100,percore/");
	if (e) {
		CHECK_EQ("scattered config1", 0xf0f, e->attr.config1);
		CHECK_EQ("config= then formats", 0x100, e->attr.config);
		CHECK_EQ("percore", 1, e->percore);
	}
	evlist_free(&ev);
	e = one(&ev, "imc/event=1/");
	if (e) {
		CHECK_EQ("uncore_ prefix matches two PMUs", 2, ev.nr);
		CHECK_EQ("uncore requires_cpu", 1, e->requires_cpu);
		for (int i = 0; i < ev.nr; i++)
			if (!strcmp(ev.entries[i].pmu_name, "uncore_imc_0"))
				CHECK_STR("uncore cpumask", "0", ev.entries[i].cpumask);
		CHECK_STR("uncore name", "imc/event=1/", e->name);
	}
	evlist_free(&ev);

	CHECK_EQ("unknown term fails", -EINVAL, parse(&ev, "cpu/event=1,bogus=2/", &err));
	CHECK_STR("unknown term message", "unknown term 'bogus' for pmu 'cpu'", err.str);
	CHECK_EQ("unknown term position", 12, err.idx);
	CHECK_EQ("exact then glob retry: two errors", 2, err.num_errors);
	CHECK_MSG("unknown term help", err.help && !strncmp(err.help, "valid terms: ", 13) &&
		  strstr(err.help, ",config,config1,config2,name,period,percore,metric-id"),
		  "expected 'valid terms: ...,config,config1,config2,name,period,percore,"
		  "metric-id...', got '%s'", err.help ? err.help : "");
	parse_events_error_free(&err);
	CHECK_EQ("value too big fails", -EINVAL, parse(&ev, "cpu/event=0x100/", &err));
	CHECK_STR("value too big", "value too big for format, maximum is 255", err.str);
	CHECK_EQ("value too big position", 10, err.idx);
	parse_events_error_free(&err);
	CHECK_EQ("missing PMU fails", -EINVAL, parse(&ev, "cs,nopmu/x/", &err));
	CHECK_STR("missing PMU", "Cannot find PMU `nopmu'. Missing kernel support?", err.str);
	CHECK_EQ("missing PMU position", 0, err.idx);
	parse_events_error_free(&err);
	CHECK_EQ("string value fails", -EINVAL, parse(&ev, "cpu/event=abc/", &err));
	CHECK_STR("string value", "expected numeric value", err.str);
	parse_events_error_free(&err);
	CHECK_EQ("freq in stat fails", -EINVAL, parse(&ev, "cs/freq=1/", &err));
	CHECK_STR("freq in stat", "'freq' is not usable in 'perf stat'", err.str);
	CHECK_EQ("freq position", -1, err.idx);
	parse_events_error_free(&err);
}

static void test_tracepoints(void)
{
	struct parse_events_error err;
	struct evlist ev;
	const struct evsel *e;
	char *help;

	e = one(&ev, "sched:sched_switch:u");
	if (e) {
		CHECK_EQ("tp type", PERF_TYPE_TRACEPOINT, e->attr.type);
		CHECK_EQ("tp config", 316, e->attr.config);
		CHECK_STR("tp name drops the modifier", "sched:sched_switch", e->name);
		CHECK_EQ("tp sample_period", 1, e->attr.sample_period);
		CHECK_EQ("tp modifier applied", 1, e->attr.exclude_kernel);
	}
	evlist_free(&ev);
	e = one(&ev, "sch*:sched_w*");
	if (e) {
		CHECK_EQ("glob tp count", 1, ev.nr);
		CHECK_EQ("glob tp config", 318, e->attr.config);
	}
	evlist_free(&ev);
	CHECK_EQ("missing tp fails", -EINVAL, parse(&ev, "cs,sched:nosuch", &err));
	CHECK_STR("missing tp", "unknown tracepoint", err.str);
	CHECK_EQ("missing tp position", 0, err.idx);
	help = xasprintf("Error:\tFile %s/events/sched/nosuch not found.\nHint:\tPerhaps this "
			 "kernel misses some CONFIG_ setting to enable this feature?.\n",
			 ctx.tracefs_root);
	CHECK_STR("missing tp help", help, err.help);
	free(help);
	parse_events_error_free(&err);
	CHECK_EQ("tp term fails", -EINVAL, parse(&ev, "sched:sched_switch/foo=1/", &err));
	CHECK_STR("tp term", "unknown term", err.str);
	CHECK_STR("tp term help", "valid terms: call-graph,stack-size\n", err.help);
	CHECK_EQ("tp term position", 19, err.idx);
	parse_events_error_free(&err);
}

static void test_breakpoints(void)
{
	struct evlist ev;
	const struct evsel *e;

	e = one(&ev, "mem:0x1000/8:rw");
	if (e) {
		CHECK_EQ("bp type", PERF_TYPE_BREAKPOINT, e->attr.type);
		CHECK_EQ("bp addr", 0x1000, e->attr.bp_addr);
		CHECK_EQ("bp len", 8, e->attr.bp_len);
		CHECK_EQ("bp rw", 3, e->attr.bp_type);
		CHECK_STR("bp name stops at '/'", "mem:0x1000", e->name);
	}
	evlist_free(&ev);
	e = one(&ev, "mem:0x2000:x");
	if (e) {
		CHECK_EQ("bp x", 4, e->attr.bp_type);
		CHECK_EQ("bp x len", sizeof(long), e->attr.bp_len);
	}
	evlist_free(&ev);
	e = one(&ev, "mem:0x2000");
	if (e)
		CHECK_EQ("bp default len", 4, e->attr.bp_len);
	evlist_free(&ev);
}

static void test_syntax_errors(void)
{
	static const struct {
		const char *str;
		int idx;
	} cases[] = {
		{ "nosuch", 0 }, { "cs:ux", 2 }, { "cs,,faults", 2 }, { "cs:u,faults:z", 11 },
		{ "cs name", 2 }, { ",cs", 1 }, { "cs:u:k", 3 }, { "mem:0x1000:z", 11 },
		{ "cpu/foo/:k", 7 }, { "cs//:k", 3 }, { "r0x1a8", 0 }, { "cs/", 0 },
		/* raw configs wider than 64 bits */
		{ "r1a1a1a1a1a1a1a1a1a1a1a", 0 }, { "cs,r11111111111111111", 3 },
		{ "cpu/r0x11111111111111111/", 3 },
	};
	struct parse_events_error err;
	struct evlist ev;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char name[64];

		snprintf(name, sizeof(name), "'%s' error position", cases[i].str);
		CHECK_EQ(name, -EINVAL, parse(&ev, cases[i].str, &err));
		CHECK_STR(name, "parser error", err.str);
		CHECK_EQ(name, cases[i].idx, err.idx);
		parse_events_error_free(&err);
	}
}

/*
 * Every realloc of the process goes through here (the test binary's definition interposes
 * glibc's), so that a test can count how often an array was grown.
 */
extern void *__libc_realloc(void *ptr, size_t size);
static unsigned long nr_reallocs;

void *realloc(void *ptr, size_t size)
{
	nr_reallocs++;
	return __libc_realloc(ptr, size);
}

static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* head, n copies of unit, tail */
static char *repeat(const char *head, const char *unit, int n, const char *tail)
{
	size_t head_len = strlen(head), len = strlen(unit);
	char *s = xzalloc(head_len + len * n + strlen(tail) + 1);

	strcpy(s, head);
	for (int i = 0; i < n; i++)
		memcpy(s + head_len + len * i, unit, len);
	strcpy(s + head_len + len * n, tail);
	return s;
}

/*
 * 120 KB event strings parse in linear time: each array grows by doubling, not by one element
 * (quadratic under a sanitizer's realloc, which always moves: 16 s for 12 KB of "cs,cs,..."
 * under ASan), and no lexer rule looks ahead over the same text again from every event. The
 * reallocations are counted; the lookaheads (the last three strings, which allocate little)
 * show in how the parse time grows with the string: four times the string takes about four
 * times the CPU time when linear, sixteen when quadratic (a ratio, so that a slow machine or an
 * emulated guest passes as a fast one does; the long lists' times grow faster than their
 * length from cache misses alone, so their reallocations are what is checked).
 */
struct long_string_case {
	const char *head, *unit;
	int n;
	const char *tail;
	int nr_events;	/* 0: a parser error */
	bool lookahead;	/* rescanned from every event before: its time is checked */
};

/* Parses the case with n units; the CPU seconds it took. */
static double parse_long(const struct long_string_case *lc, int n, int *ret, int *nr_events)
{
	char *str = repeat(lc->head, lc->unit, n, lc->tail);
	struct parse_events_error err;
	struct evlist ev;
	double t0 = cpu_seconds(), t;

	*ret = parse(&ev, str, &err);
	t = cpu_seconds() - t0;
	*nr_events = ev.nr;
	evlist_free(&ev);
	parse_events_error_free(&err);
	free(str);
	return t;
}

static void test_long_strings(void)
{
	static const struct long_string_case cases[] = {
		{ "", "cs,", 40000, "cs", 40001 },
		{ "{", "cs,", 40000, "cs}", 40001 },
		{ "", "cs,", 40000, "}", 0 },
		{ "", "r1a,", 30000, "r1b", 30001 },
		{ "cpu/", "event=1,", 14000, "umask=2/", 1 },
		{ "", "{", 60000, "", 0, true },
		{ "", "a.o", 40000, "", 0, true },
		{ "", "a{", 60000, "", 0, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct long_string_case *lc = &cases[i];
		unsigned long reallocs = nr_reallocs;
		int ret, nr_events, quarter_ret, quarter_events;
		double t, t_quarter;
		char name[64];

		snprintf(name, sizeof(name), "'%s' x %d", lc->unit, lc->n);
		t = parse_long(lc, lc->n, &ret, &nr_events);
		reallocs = nr_reallocs - reallocs;
		CHECK_EQ(name, lc->nr_events ? 0 : -EINVAL, ret);
		CHECK_EQ(name, lc->nr_events, nr_events);
		/* 2 to 123 here; one or more per token when arrays grew by one element */
		CHECK_MSG(name, reallocs <= 200, "at most 200 reallocs, got %lu", reallocs);
		if (!lc->lookahead)
			continue;
		t_quarter = parse_long(lc, lc->n / 4, &quarter_ret, &quarter_events);
		/*
		 * Here 0.007 to 0.12 s; before, 1.8 to 8.3 s, 16 times their quarter's. Below
		 * 0.05 s the ratio is noise, and a quadratic parse is far slower.
		 */
		CHECK_MSG(name, t < 0.05 || t <= 8 * t_quarter,
			  "linear parse time: %.3f s, at most 8 x a quarter of the string's %.3f s",
			  t, t_quarter);
	}
}

static void test_error_print(void)
{
	struct parse_events_error err;
	struct evlist ev;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	const char *expect = "event syntax error: '../event=0x1,zzz/'\n"
			     "                                  \\___ unknown term 'zzz' for pmu 'cpu'\n"
			     "\nvalid terms: ";

	unsetenv("LINES");
	parse(&ev, "cpu/event=0x1,zzz/", &err);
	f = open_memstream(&buf, &len);
	parse_events_error_print(f, "cpu/event=0x1,zzz/", &err);
	fclose(f);
	/* the error at 14 cuts one character: "..u/event..." */
	CHECK_MSG("error print", buf && !strncmp(buf, expect, strlen(expect)) &&
		  strstr(buf, "\nInitial error:\nevent syntax error: ") &&
		  strstr(buf, "\nRun 'bperf list' for a list of valid events\n"),
		  "expected '%s...', the initial error and the hint to run 'bperf list', got\n%s",
		  expect, buf ? buf : "");
	free(buf);
	parse_events_error_free(&err);
}

static void test_attr_fprintf(void)
{
	struct perf_event_attr a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	memset(&a, 0, sizeof(a));
	a.type = 5;
	a.size = 128;
	a.sample_type = PERF_SAMPLE_IDENTIFIER;
	a.read_format = 0xf;
	a.disabled = 1;
	a.exclude_guest = 1;
	a.bp_type = 3;
	a.bp_addr = 0x1000;
	a.bp_len = 4;
	f = open_memstream(&buf, &len);
	perf_event_attr_fprintf(f, &a);
	fclose(f);
	CHECK_STR("attr dump",
		  "perf_event_attr:\n"
		  "  type                             5\n"
		  "  size                             128\n"
		  "  sample_type                      IDENTIFIER\n"
		  "  read_format                      TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING|ID|GROUP\n"
		  "  disabled                         1\n"
		  "  exclude_guest                    1\n"
		  "  bp_type                          3\n"
		  "  { bp_addr, config1 }             0x1000\n"
		  "  { bp_len, config2 }              0x4\n",
		  buf);
	free(buf);
}

static void test_defaults(void)
{
	static const char *const names[] = {
		"cpu-clock", "context-switches", "cpu-migrations", "page-faults",
		"cycles", "instructions", "branches", "branch-misses",
	};
	struct evlist ev = { 0 };

	evlist_add_default(&ev, true, &ctx);
	CHECK_EQ("default count", ARRAY_SIZE(names), ev.nr);
	for (int i = 0; i < ev.nr && i < (int)ARRAY_SIZE(names); i++)
		CHECK_STR("default name", names[i], ev.entries[i].name);
	if (ev.nr)
		CHECK_STR("cpu-clock unit", "msec", ev.entries[0].unit);
	evlist_free(&ev);
}

/* The machine's msr PMU, when there is one: msr/tsc/ is event 0 of its type. */
static void test_real_msr(void)
{
	struct parse_events_ctx real = { 0 };
	struct parse_events_error err = { .idx = -1 };
	struct evlist ev = { 0 };
	char type[32];
	int ret;

	if (read_text_file("/sys/bus/event_source/devices/msr/type", type, sizeof(type)))
		return;
	ret = parse_events(&ev, "msr/tsc/", &real, &err);
	if (CHECK_MSG("msr/tsc/", !ret, "expected to parse, got '%s'", err.str ? err.str : "")) {
		CHECK_EQ("msr type", strtoul(type, NULL, 0), ev.entries[0].attr.type);
		CHECK_EQ("msr tsc config", 0, ev.entries[0].attr.config);
		CHECK_STR("msr name", "msr/tsc/", ev.entries[0].name);
	}
	parse_events_error_free(&err);
	evlist_free(&ev);
}

int main(void)
{
	build_fake_tree();
	test_symbols();
	test_cache();
	test_modifiers();
	test_groups();
	test_pmu();
	test_tracepoints();
	test_breakpoints();
	test_syntax_errors();
	test_long_strings();
	test_error_print();
	test_attr_fprintf();
	test_defaults();
	test_real_msr();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", root, (char *)NULL);
	return check_exit("test_events");
}
