// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's config files: the INI dialect (sections, subsections, case rules, quoting, escapes,
 * comments, BOM, CRLF, limits, bad lines and their numbers), the files read and their
 * precedence, booleans, writing back, and stat.bpf-counter-events token matching. Expected
 * values were taken from perf 6.1 (`perf config -l`) on this machine.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "util/common.h"
#include "config.h"

static char dir[] = "/tmp/bperf-test-config-XXXXXX";

/* The variables as `perf config -l` lists them, one "section.name=value\n" each. */
static char *listing(const struct perf_config *cfg)
{
	char *out = xstrdup("");
	int i;

	for (i = 0; i < cfg->nr; i++) {
		char *next = xasprintf("%s%s.%s=%s\n", out, cfg->items[i].section,
				       cfg->items[i].name, cfg->items[i].value);

		free(out);
		out = next;
	}
	return out;
}

/* Runs fn with stderr captured into the returned string. */
static char *capture_stderr(void (*fn)(void *), void *arg)
{
	char *path = xasprintf("%s/stderr", dir);
	int saved = dup(2), fd;
	char buf[4096];
	ssize_t n;

	fflush(stderr);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	dup2(fd, 2);
	fn(arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	free(path);
	buf[n > 0 ? n : 0] = '\0';
	return xstrdup(buf);
}

struct parse_case {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	struct perf_config cfg;
	int err;
};

static void do_parse(void *arg)
{
	struct parse_case *pc = arg;
	FILE *f = fmemopen((void *)pc->text, pc->len ? pc->len : strlen(pc->text), "r");

	memset(&pc->cfg, 0, sizeof(pc->cfg));
	pc->err = perf_config_parse(&pc->cfg, f, "FILE", false);
	fclose(f);
}

/* Parses text; checks the listing and the error message ("" for none). */
static void check_parse(const char *name, const char *text, size_t len, const char *exp_list,
			const char *exp_err)
{
	struct parse_case pc = { .text = text, .len = len };
	char *err = capture_stderr(do_parse, &pc);
	char *list = listing(&pc.cfg);
	char *label = xasprintf("%s: listing", name);

	if (exp_list)
		CHECK_STR(label, exp_list, list);
	free(label);
	label = xasprintf("%s: message", name);
	CHECK_STR(label, exp_err, err);
	free(label);
	label = xasprintf("%s: return", name);
	CHECK(label, (pc.err < 0) == (*exp_err != '\0'));
	free(label);
	free(err);
	free(list);
	perf_config_free(&pc.cfg);
}

#define BAD(n) "bad config file line " #n " in FILE\n"

static void test_syntax(void)
{
	static char buf[1200];
	int n;

	check_parse("basic", "[a]\n b = c\n", 0, "a.b=c\n", "");
	/* the section is lowercased, a key only in its first letter, a subsection not at all */
	check_parse("case", "[A.B]\n Key = v\n[Report \"Sub.X\"]\n  Sort-Order = 1\n", 0,
		    "a.b.key=v\nreport.Sub.X.sort-Order=1\n", "");
	check_parse("subsection escape", "[a \"Sub\\\"q\"]\n k = v\n", 0, "a.Sub\"q.k=v\n", "");
	check_parse("subsection blank before ]", "[a \"b\" ]\n k = v\n", 0, "", BAD(1));
	check_parse("subsection newline", "[a \"x\"\n]\n", 0, "", BAD(2));
	check_parse("empty subsection", "[a]\n b = 1\n[a \"\"]\n c = 2\n", 0, "a.b=1\na..c=2\n",
		    "");
	check_parse("header and variable on one line", "[a]b=c\n", 0, "a.b=c\n", "");
	check_parse("blanks squeezed", "[a] b = c d   e  \n", 0, "a.b=c d e\n", "");
	check_parse("quotes and comments", "[a]\n b = \"  x  \"  y # z\n c = ;\n", 0,
		    "a.b=  x   y\na.c=\n", "");
	check_parse("escapes", "[a]\n b = x\\ty\\\\z\\\"w\\nq\n", 0, "a.b=x\ty\\z\"w\nq\n", "");
	check_parse("unknown escape", "[a]\n b = x\\qy\n", 0, "", BAD(2));
	check_parse("continuation", "[a]\n b = one \\\ntwo\n c = 3\n", 0, "a.b=one two\na.c=3\n",
		    "");
	check_parse("open quote", "[a]\n b = \"open\n", 0, "", BAD(2));
	check_parse("quote across lines", "[a]\n b = \"x\ny\"\n", 0, "", BAD(2));
	check_parse("no value", "[a]\n b\n", 0, "", BAD(2));
	check_parse("no value at the end", "[a]\n b", 0, "", BAD(2));
	check_parse("no section", "b = c\n", 0, "", BAD(1));
	check_parse("empty section", "[]\n", 0, "", BAD(1));
	check_parse("open section", "[a\n", 0, "", BAD(2));
	check_parse("digit first", "[a]\n 1b = c\n", 0, "", BAD(2));
	check_parse("dot in a key", "[a]\n b.c = d\n", 0, "", BAD(2));
	check_parse("tabs", "[a]\n b\t=\tc\n", 0, "a.b=c\n", "");
	check_parse("empty values", "[a]\n b =\n c = \"\"\n", 0, "a.b=\na.c=\n", "");
	check_parse("no final newline", "[a]\n b = c", 0, "a.b=c\n", "");
	check_parse("bom", "\xef\xbb\xbf[a]\n b = c\n", 0, "a.b=c\n", "");
	check_parse("half a bom", "\xef\xbb[a]\n b = c\n", 0, "", BAD(1));
	check_parse("crlf", "[a]\r\n b = c\r\n d = e\r\n", 0, "a.b=c\na.d=e\n", "");
	/* what precedes a bad line stays; its number is the bad variable's line */
	check_parse("kept before a bad line", "[a]\n b = 1\n\n\n  bad line\n", 0, "a.b=1\n",
		    BAD(5));
	check_parse("continued last line", "[a]\n b = x\\\n", 0, "a.b=x\n", "");
	/* sections stay together in their first order; a later value replaces in place */
	check_parse("order", "# c\n; d\n[a] # x\n b = 1\n[c]\n d = 2\n[a]\n e = 3\n b = 4\n", 0,
		    "a.b=4\na.e=3\nc.d=2\n", "");

	/* limits: values of 1022 characters, names of 255 with the section, sections of 129 */
	n = sprintf(buf, "[a]\n b = ");
	memset(buf + n, 'x', 1022);
	strcpy(buf + n + 1022, "\n");
	check_parse("longest value", buf, 0, NULL, "");
	memset(buf + n, 'x', 1023);
	strcpy(buf + n + 1023, "\n");
	check_parse("value too long", buf, 0, "", BAD(2));
	n = sprintf(buf, "[a]\n ");
	memset(buf + n, 'k', 253);
	strcpy(buf + n + 253, " = 1\n");
	check_parse("longest key", buf, 0, NULL, "");
	memset(buf + n, 'k', 254);
	strcpy(buf + n + 254, " = 1\n");
	check_parse("key too long", buf, 0, "", BAD(2));
	n = sprintf(buf, "[");
	memset(buf + n, 's', 129);
	strcpy(buf + n + 129, "]\n k = 1\n");
	check_parse("longest section", buf, 0, NULL, "");
	memset(buf + n, 's', 130);
	strcpy(buf + n + 130, "]\n k = 1\n");
	check_parse("section too long", buf, 0, "", BAD(1));
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

struct load_case {
	struct config_files files;
	struct perf_config cfg;
};

static void do_load(void *arg)
{
	struct load_case *lc = arg;

	perf_config_load(&lc->cfg, &lc->files);
}

static char *load_listing(const char *system, const char *user, const char *exclusive,
			  char **err)
{
	struct load_case lc = { { exclusive, system, (char *)user } };
	char *e = capture_stderr(do_load, &lc);
	char *list = listing(&lc.cfg);

	if (err)
		*err = e;
	else
		free(e);
	perf_config_free(&lc.cfg);
	return list;
}

static void test_files(void)
{
	char *sys = xasprintf("%s/perfconfig", dir);
	char *user = xasprintf("%s/.perfconfig", dir);
	char *excl = xasprintf("%s/exclusive", dir);
	char *missing = xasprintf("%s/missing", dir);
	char *list, *err, *exp;
	struct config_files files;

	write_text(sys, "[stat]\n a = sys\n b = sys\n[sys]\n only = 1\n");
	write_text(user, "[stat]\n a = user\n c = user\n");
	write_text(excl, "[x]\n y = z\n");

	/* the user file wins, and its new variables join the system file's sections */
	list = load_listing(sys, user, NULL, NULL);
	CHECK_STR("system then user", "stat.a=user\nstat.b=sys\nstat.c=user\nsys.only=1\n", list);
	free(list);
	list = load_listing(NULL, user, NULL, NULL);
	CHECK_STR("user only", "stat.a=user\nstat.c=user\n", list);
	free(list);
	list = load_listing(sys, NULL, NULL, NULL);
	CHECK_STR("system only", "stat.a=sys\nstat.b=sys\nsys.only=1\n", list);
	free(list);
	list = load_listing(sys, user, excl, NULL);
	CHECK_STR("exclusive", "x.y=z\n", list);
	free(list);
	list = load_listing(sys, user, missing, &err);
	CHECK_STR("missing exclusive", "", list);
	CHECK_STR("missing exclusive: message", "", err);
	free(list);
	free(err);

	/* a bad system file stops the reading: the user file is not read */
	write_text(sys, "[sys]\n only = 1\nbad\n");
	list = load_listing(sys, user, NULL, &err);
	CHECK_STR("bad system file", "sys.only=1\n", list);
	exp = xasprintf("bad config file line 3 in %s\n", sys);
	CHECK_STR("bad system file: message", exp, err);
	free(exp);
	free(list);
	free(err);

	/* an empty user file is skipped, one owned by someone else too, with a warning */
	write_text(user, "");
	list = load_listing(NULL, user, NULL, NULL);
	CHECK_STR("empty user file", "", list);
	free(list);
	write_text(user, "[u]\n a = 1\n");
	if (geteuid() == 0 && !chown(user, 65534, 0)) {
		list = load_listing(NULL, user, NULL, &err);
		CHECK_STR("foreign user file", "", list);
		exp = xasprintf("File %s not owned by current user or root, ignoring it.\n", user);
		CHECK_STR("foreign user file: message", exp, err);
		free(exp);
		free(list);
		free(err);
		/* named by $PERF_CONFIG it is read all the same */
		list = load_listing(NULL, NULL, user, NULL);
		CHECK_STR("foreign exclusive file", "u.a=1\n", list);
		free(list);
	}

	/* the environment */
	setenv("HOME", dir, 1);
	unsetenv("PERF_CONFIG");
	unsetenv("PERF_CONFIG_NOSYSTEM");
	unsetenv("PERF_CONFIG_NOGLOBAL");
	config_files_from_env(&files);
	CHECK_STR("env: system", PERF_SYSTEM_CONFIG, files.system);
	CHECK_STR("env: user", user, files.user);
	CHECK_STR("env: exclusive", NULL, files.exclusive);
	config_files_free(&files);
	setenv("PERF_CONFIG", excl, 1);
	setenv("PERF_CONFIG_NOSYSTEM", "yes", 1);
	setenv("PERF_CONFIG_NOGLOBAL", "1", 1);
	config_files_from_env(&files);
	CHECK_STR("env: PERF_CONFIG", excl, files.exclusive);
	CHECK_STR("env: PERF_CONFIG_NOSYSTEM", NULL, files.system);
	CHECK_STR("env: PERF_CONFIG_NOGLOBAL", NULL, files.user);
	config_files_free(&files);
	setenv("PERF_CONFIG_NOSYSTEM", "0", 1);
	setenv("PERF_CONFIG_NOGLOBAL", "off", 1);
	setenv("HOME", "", 1);
	config_files_from_env(&files);
	CHECK_STR("env: PERF_CONFIG_NOSYSTEM=0", PERF_SYSTEM_CONFIG, files.system);
	CHECK_STR("env: empty HOME", NULL, files.user);
	config_files_free(&files);
	unsetenv("PERF_CONFIG");
	unsetenv("PERF_CONFIG_NOSYSTEM");
	unsetenv("PERF_CONFIG_NOGLOBAL");

	unlink(sys);
	unlink(user);
	unlink(excl);
	free(sys);
	free(user);
	free(excl);
	free(missing);
}

struct bool_case {
	const char *value;
	bool result;
};

static void do_bool(void *arg)
{
	struct bool_case *bc = arg;

	bc->result = config_parse_bool("x.y", bc->value);
}

static void test_bools(void)
{
	static const struct {
		const char *value;
		bool exp;
		bool warns;
	} cases[] = {
		{ "true", true }, { "Yes", true }, { "ON", true }, { "false", false },
		{ "no", false }, { "Off", false }, { "", false }, { "0", false }, { "1", true },
		{ "2", true }, { "0x0", false }, { "0x10", true }, { " 1", true }, { "1k", true },
		{ "0g", false }, { "4g", false }, { "foo", true, true }, { "5z", true, true },
		{ "1 ", true, true },
	};
	struct perf_config cfg = { 0 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct bool_case bc = { cases[i].value };
		char *err = capture_stderr(do_bool, &bc);
		char *label = xasprintf("bool '%s'", cases[i].value);

		CHECK(label, bc.result == cases[i].exp);
		CHECK_STR(label, cases[i].warns ? "bad config value for 'x.y', ignoring...\n" : "",
			  err);
		free(label);
		free(err);
	}
	CHECK("bool: no value is true", config_parse_bool("x.y", NULL));
	perf_config_set(&cfg, "stat.big-num", "off", false);
	CHECK("get_bool set", !perf_config_get_bool(&cfg, "stat.big-num", true));
	CHECK("get_bool default", perf_config_get_bool(&cfg, "stat.other", true));
	perf_config_free(&cfg);
}

static char *read_back(const char *path)
{
	char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return xstrdup("(missing)");
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void test_set_and_write(void)
{
	char *path = xasprintf("%s/written", dir);
	struct perf_config cfg = { 0 };
	struct parse_case pc = { 0 };
	char *text, *list, *again;
	FILE *f;

	CHECK_EQ("set without a dot", -EINVAL, perf_config_set(&cfg, "nodot", "1", false));
	perf_config_set(&cfg, "stat.a", "1", true);
	perf_config_set(&cfg, "report.Sub.X.order", "a b", false);
	perf_config_set(&cfg, "stat.b", "  lead # hash \"q\" back\\slash\ttab", false);
	perf_config_set(&cfg, "stat.a", "2", true);
	perf_config_set(&cfg, "report.plain", "p", false);
	CHECK_STR("get", "2", perf_config_get(&cfg, "stat.a"));
	CHECK_STR("get subsection", "a b", perf_config_get(&cfg, "report.Sub.X.order"));
	CHECK_STR("get missing", NULL, perf_config_get(&cfg, "stat.c"));
	CHECK_STR("get prefix", NULL, perf_config_get(&cfg, "sta.a"));
	list = listing(&cfg);
	CHECK_STR("set order",
		  "stat.a=2\nstat.b=  lead # hash \"q\" back\\slash\ttab\n"
		  "report.Sub.X.order=a b\nreport.plain=p\n", list);

	/* the user file leaves the system file's variables out */
	CHECK_OK("write", perf_config_write(&cfg, path, false));
	text = read_back(path);
	CHECK_STR("written",
		  "# this file is auto-generated.\n"
		  "[stat]\n\tb = \"  lead # hash \\\"q\\\" back\\\\slash\\ttab\"\n"
		  "[report \"Sub.X\"]\n\torder = a b\n[report]\n\tplain = p\n", text);
	free(text);

	/* with them, everything reads back the same */
	CHECK_OK("write all", perf_config_write(&cfg, path, true));
	pc.text = read_back(path);
	f = fmemopen((void *)pc.text, strlen(pc.text), "r");
	CHECK_OK("read back", perf_config_parse(&pc.cfg, f, path, false));
	fclose(f);
	again = listing(&pc.cfg);
	CHECK_STR("round trip", list, again);
	free(again);
	free((char *)pc.text);
	perf_config_free(&pc.cfg);

	CHECK_EQ("write to a missing directory", -ENOENT,
		 perf_config_write(&cfg, "/nonexistent/dir/file", false));
	unlink(path);
	free(list);
	free(path);
	perf_config_free(&cfg);
}

static void test_tokens(void)
{
	static const struct {
		const char *list;
		const char *name;
		bool exp;
	} cases[] = {
		{ "cycles", "cycles", true },
		{ "ref-cycles,cycles", "cycles", true },	/* perf 6.1 misses this one */
		{ "cpu-cycles", "cycles", false },
		{ "cycles", "cpu-cycles", false },
		{ "cycles,instructions", "instructions", true },
		{ "cycles,instructions", "instruction", false },
		{ "cycles,instructions", "cycles,instructions", false },
		{ "a,,b", "b", true },
		{ "a,", "a", true },
		{ ",a", "a", true },
		{ "cycles, page-faults", "page-faults", true },
		{ " cycles ,x", "cycles", true },
		{ "", "cycles", false },
		{ "cycles", "", false },
		{ NULL, "cycles", false },
		{ "cycles:u", "cycles", false },
		{ "cycles", "cycles:u", false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *label = xasprintf("token '%s' in '%s'", cases[i].name,
					cases[i].list ? cases[i].list : "(null)");

		CHECK(label, config_list_has_token(cases[i].list, cases[i].name) == cases[i].exp);
		free(label);
	}
}

static void test_stat_vars(void)
{
	char *user = xasprintf("%s/.perfconfig", dir);
	struct stat_config_vars vars;

	setenv("HOME", dir, 1);
	setenv("PERF_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("PERF_CONFIG");
	write_text(user, "[stat]\n bpf-counter-events = ref-cycles,page-faults\n"
			 " no-csv-summary = yes\n big-num = off\n");
	stat_config_vars_read(&vars);
	CHECK_STR("stat vars: bpf-counter-events", "ref-cycles,page-faults",
		  vars.bpf_counter_events);
	CHECK("stat vars: no-csv-summary", vars.no_csv_summary);
	CHECK_EQ("stat vars: big-num", 0, vars.big_num);
	stat_config_vars_free(&vars);
	write_text(user, "[other]\n x = 1\n");
	stat_config_vars_read(&vars);
	CHECK("stat vars unset: bpf-counter-events", !vars.bpf_counter_events);
	CHECK("stat vars unset: no-csv-summary", !vars.no_csv_summary);
	CHECK_EQ("stat vars unset: big-num", -1, vars.big_num);
	stat_config_vars_free(&vars);
	unsetenv("PERF_CONFIG_NOSYSTEM");
	unlink(user);
	free(user);
}

int main(void)
{
	char *path;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_syntax();
	test_files();
	test_bools();
	test_set_and_write();
	test_tokens();
	test_stat_vars();
	path = xasprintf("%s/stderr", dir);
	unlink(path);
	free(path);
	rmdir(dir);
	return check_exit("test_config");
}
