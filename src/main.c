// SPDX-License-Identifier: GPL-2.0-only
/* bperf: perf stat's options, output and files, with shared BPF counters. */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "check/cmd_check.h"
#include "cmd_data.h"
#include "util/common.h"
#include "config.h"
#include "daemon/daemon.h"
#include "events/evlist.h"
#include "events/tracepoint.h"
#include "stat/cmd_stat.h"

/* perf's usage(): the usage line on stderr, exit 129. */
static void __attribute__((noreturn)) top_usage_error(void)
{
	fprintf(stderr, "\n Usage: %s\n", BPERF_USAGE_STRING);
	exit(EXIT_USAGE);
}

/*
 * perf's --debug NAME[=N][,...]: verbose sets the -v level of every command (perf keeps 0 to
 * 10, else 0), perf-event-open prints each attr and open as -vv does. perf's stderr,
 * ordered-events and data-convert are accepted: bperf's debug lines go to stderr anyway and it
 * has no ordered-events or data-convert debug output.
 */
static int parse_debug(const char *arg, struct top_opts *top)
{
	char *s = xstrdup(arg), *save = NULL, *name;

	for (name = strtok_r(s, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		char *value = strchr(name, '=');
		int v = 1;

		if (value) {
			*value++ = '\0';
			v = atoi(value);
		}
		if (!strcmp(name, "verbose")) {
			top->verbose = v;
		} else if (!strcmp(name, "perf-event-open")) {
			top->trace_opens = v != 0;
		} else if (strcmp(name, "stderr") && strcmp(name, "ordered-events") &&
			   strcmp(name, "data-convert")) {
			fprintf(stderr, "Unknown option name '%s'\n", name);
			free(s);
			return -1;
		}
	}
	if (top->verbose < 0 || top->verbose > 10)
		top->verbose = 0;
	free(s);
	return 0;
}

static const char *const top_option_names[] = {
	"--help", "--version", "--paginate", "--no-pager", "--debugfs-dir", "--list-cmds",
	"--list-opts", "--debug",
};

/* The tracefs mount, for perf's "dir: ..." line after --debugfs-dir=DIR. */
static void print_tracing_mount(void)
{
	char *events = tracing_events_dir(NULL);
	size_t len = strlen(events);

	/* perf prints its tracing path: the mount with a '/' */
	if (len > 6 && !strcmp(events + len - 6, "events"))
		events[len - 6] = '\0';
	fprintf(stderr, "dir: %s\n", events);
	free(events);
}

/*
 * perf's options before the command, with its rules: -h, -v and -vv stand for help, version
 * and version --build-options; --exec-path, --html-path and --buildid-dir are left out (bperf
 * has no helper programs, HTML pages or build-id cache to point at). Returns how many argv
 * entries were options; *argv0 may be rewritten to the command they stand for.
 */
static int handle_options(int argc, const char **argv, struct top_opts *top)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *opt = argv[i];

		if (opt[0] != '-' || !strcmp(opt, "--help") || !strcmp(opt, "--version"))
			break;
		if (!strcmp(opt, "-h")) {
			argv[i] = "--help";
			break;
		}
		if (!strcmp(opt, "-v")) {
			argv[i] = "--version";
			break;
		}
		if (!strcmp(opt, "-vv")) {
			argv[i] = "version";
			top->build_options = true;
			break;
		}
		if (!strcmp(opt, "-p") || !strcmp(opt, "--paginate")) {
			/* perf 6.1 takes it and does nothing with it */
		} else if (!strcmp(opt, "--no-pager")) {
			top->no_pager = true;
		} else if (!strcmp(opt, "--debugfs-dir")) {
			/* perf 6.1 takes it and still looks up the mounted tracefs */
			if (i + 1 >= argc) {
				fprintf(stderr, "No directory given for --debugfs-dir.\n");
				top_usage_error();
			}
			i++;
		} else if (!strncmp(opt, "--debugfs-dir=", 14)) {
			print_tracing_mount();
		} else if (!strcmp(opt, "--list-cmds")) {
			print_command_names();
			exit(0);
		} else if (!strcmp(opt, "--list-opts")) {
			for (size_t j = 0; j < ARRAY_SIZE(top_option_names); j++)
				printf("%s ", top_option_names[j]);
			putchar('\n');
			exit(0);
		} else if (!strcmp(opt, "--debug")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "No variable specified for --debug.\n");
				top_usage_error();
			}
			if (parse_debug(argv[++i], top))
				top_usage_error();
		} else {
			fprintf(stderr, "Unknown option: %s\n", opt);
			top_usage_error();
		}
	}
	return i;
}

/* The commands, as bpftool's table: each takes the options given before it. */
struct command {
	const char *name;
	int (*run)(int argc, const char **argv, const struct top_opts *top);
};

static const struct command commands[] = {
	{ "stat", cmd_stat },
	{ "daemon", cmd_daemon },
	{ "data", cmd_data },
	{ "config", cmd_config },
	{ "check", cmd_check },
	{ "list", cmd_list },
	{ "version", cmd_version },
	{ "help", cmd_help },
};

int main(int argc, char **argv)
{
	struct top_opts top = { 0 };
	const char **args = (const char **)argv + 1;
	const char *cmd;
	int n;

	/* perf does this too: the locale decides grouping and the decimal point. */
	setlocale(LC_ALL, "");
	n = handle_options(argc - 1, args, &top);
	args += n;
	argc -= n + 1;
	if (!argc) {
		print_main_usage();
		return 1;
	}
	/* as in perf, --help and --version are the commands help and version */
	if (!strncmp(args[0], "--", 2))
		args[0] += 2;
	/* perf: `CMD --help` is `help CMD` */
	if (argc > 1 && !strcmp(args[1], "--help")) {
		args[1] = args[0];
		args[0] = "help";
	}
	cmd = args[0];
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(cmd, commands[i].name))
			return commands[i].run(argc, args, &top);
	pr_err("bperf: '%s' is not a bperf-command. See 'bperf --help'.", cmd);
	return 1;
}
