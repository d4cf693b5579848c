// SPDX-License-Identifier: GPL-2.0-only
/* `bperf help` and `bperf version`, in perf's layout: the commands, the man page, the build. */
#include <bpf/libbpf.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "util/common.h"
#include "util/parse_options.h"

struct command_help {
	const char *name;
	const char *help;
	bool common;	/* in the list `bperf help` prints */
};

/* In the order `--list-cmds` prints them. */
static const struct command_help commands[] = {
	{ "check", "Check what this machine can count, and that sharing is exact here", true },
	{ "config", "Get and set variables in perf's config files", true },
	{ "daemon", "Count shared events per CPU and cgroup for Prometheus", true },
	{ "data", "Read perf record files: dump, csv tables, top functions", true },
	{ "help", "Show the commands, or bperf's manual", false },
	{ "list", "List the events bperf can count", true },
	{ "stat", "Run a command and count its events, like perf stat", true },
	{ "version", "Show bperf's version", true },
};

static const char more_info[] =
	"See 'bperf help COMMAND' for more information on a specific command.";

static void print_commands(bool all)
{
	int longest = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if ((all || commands[i].common) && (int)strlen(commands[i].name) > longest)
			longest = (int)strlen(commands[i].name);
	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (all || commands[i].common)
			printf("   %-*s   %s\n", longest, commands[i].name, commands[i].help);
}

void print_main_usage(void)
{
	printf("\n usage: %s\n\n", BPERF_USAGE_STRING);
	puts(" The most commonly used bperf commands are:");
	print_commands(false);
	printf("\n %s\n\n", more_info);
}

void print_command_names(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		printf("%s ", commands[i].name);
	putchar('\n');
}

static bool is_command(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return true;
	return false;
}

/*
 * bperf has one manual page for every command, bperf(1). From a build tree it is the tree's
 * man/bperf.1 (`man -l`); installed, PREFIX/share/man beside PREFIX/bin comes first in MANPATH,
 * as perf puts its own man directory first. Returns only when man could not be run.
 */
static int show_man_page(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	fflush(NULL);
	if (n > 0) {
		const char *old = getenv("MANPATH");
		char *dir, *page, *path;

		exe[n] = '\0';
		dir = dirname(exe);
		page = xasprintf("%s/man/bperf.1", dir);
		if (!access(page, R_OK))
			execlp("man", "man", "-l", page, (char *)NULL);
		else {
			/* the ':' keeps man's own search path after ours */
			path = xasprintf("%s/../share/man:%s", dir, old ? old : "");
			setenv("MANPATH", path, 1);
			free(path);
			execlp("man", "man", "bperf", (char *)NULL);
		}
		free(page);
	} else {
		execlp("man", "man", "bperf", (char *)NULL);
	}
	pr_err("failed to exec 'man': %s", strerror(errno));
	pr_err("no man viewer handled the request");
	return EXIT_FATAL;
}

static const char *const help_usage[] = {
	"bperf help [--all] [--man] [command]",
	NULL,
};

int cmd_help(int argc, const char **argv, const struct top_opts *top)
{
	bool all = false, man = true;
	const struct option options[] = {
		{ OPT_BOOLEAN, 'a', "all", &all, NULL, "print all available commands" },
		{ OPT_BOOLEAN, 'm', "man", &man, NULL, "show man page" },
		{ OPT_END },
	};
	int first = parse_options(argc, argv, options, help_usage);

	if (first == PARSE_OPT_HELP)
		usage_with_options(help_usage, options);
	if (first < 0)
		return EXIT_USAGE;
	if (all) {
		printf("\n Usage: %s\n\n", BPERF_USAGE_STRING);
		puts(" The bperf commands are:");
		print_commands(true);
		printf("\n %s\n\n", more_info);
		return 0;
	}
	if (first >= argc) {
		print_main_usage();
		return 0;
	}
	/* man(1)'s words and status when it has no page, as perf's help passes them on */
	if (!is_command(argv[first])) {
		fprintf(stderr, "No manual entry for bperf-%s\n", argv[first]);
		return 16;
	}
	return show_man_page();
}

static const char *const version_usage[] = {
	"bperf version [<options>]",
	NULL,
};

/* perf's "%22s: [ on  ]  # ..." lines: what this bperf is built with. */
static void print_build_options(void)
{
	printf("%22s: [ %-3s ]  # %s\n", "libbpf", "on", libbpf_version_string());
	printf("%22s: [ %-3s ]  # %s\n", "libelf", "on", "bperf data's symbols");
}

int cmd_version(int argc, const char **argv, const struct top_opts *top)
{
	bool build_options = top->build_options;
	const struct option options[] = {
		{ OPT_BOOLEAN, 0, "build-options", &build_options, NULL,
		  "display the build options" },
		{ OPT_END },
	};
	int first = parse_options(argc, argv, options, version_usage);

	if (first == PARSE_OPT_HELP)
		usage_with_options(version_usage, options);
	if (first < 0)
		return EXIT_USAGE;
	printf("bperf version %s\n", BPERF_VERSION);
	if (build_options)
		print_build_options();
	return 0;
}
