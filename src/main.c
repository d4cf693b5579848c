// SPDX-License-Identifier: GPL-2.0-only
/* bperf: perf stat's options, output and files, with shared BPF counters. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "cmd_data.h"
#include "common.h"
#include "config.h"
#include "events/evlist.h"
#include "stat/cmd_stat.h"

#define BPERF_VERSION "0.1.0"

static void usage(void)
{
	fprintf(stderr, "\n usage: bperf [--version] [--help] COMMAND [ARGS]\n\n"
			" The commands are:\n"
			"   config Get and set variables in perf's config files\n"
			"   data   Read perf record files: dump, csv tables, top functions\n"
			"   list   List the events bperf can count\n"
			"   stat   Run a command and count its events, like perf stat\n\n");
}

int main(int argc, char **argv)
{
	const char *cmd;

	/* perf does this too: the locale decides grouping and the decimal point. */
	setlocale(LC_ALL, "");
	if (argc < 2) {
		usage();
		return 1;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "stat"))
		return cmd_stat(argc - 1, (const char **)argv + 1);
	if (!strcmp(cmd, "data"))
		return cmd_data(argc - 1, (const char **)argv + 1);
	if (!strcmp(cmd, "config"))
		return cmd_config(argc - 1, (const char **)argv + 1);
	if (!strcmp(cmd, "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("bperf version %s\n", BPERF_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage();
		return 0;
	}
	pr_err("bperf: '%s' is not a bperf-command. See 'bperf --help'.", cmd);
	return 1;
}
