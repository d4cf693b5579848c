// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf data: `perf record` files read in one streaming pass. dump prints every record,
 * csv writes readperf's four tables, top prints functions by period as
 * `perf report --stdio --sort dso,sym --no-children` does.
 */
#include "cmd_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/common.h"
#include "data/dump.h"
#include "data/hists.h"
#include "data/session.h"
#include "data/tables.h"

enum data_mode { DATA_DUMP, DATA_CSV, DATA_TOP };

struct data_cmd {
	enum data_mode mode;
	const char *input;
	const char *outdir;
	const char *kallsyms;	/* NULL: /proc/kallsyms */
	bool show_nr_samples;
	bool quiet;
	struct data_hists hists;
	FILE *out;		/* dump and top: stdout; csv: overview.csv */
};

static void usage(void)
{
	fprintf(stderr, "\n usage: bperf data dump [-i FILE]\n"
			"    or: bperf data csv [-i FILE] [-o DIR]\n"
			"    or: bperf data top [-i FILE] [-n] [-q] [--kallsyms FILE]\n\n"
			"    -i, --input <file>    input file name (default perf.data)\n"
			"    -o, --output <dir>    csv: where the four tables go (default .)\n"
			"    -n, --show-nr-samples top: show the number of samples\n"
			"        --kallsyms <file> kernel symbols (default /proc/kallsyms)\n"
			"    -q, --quiet           no warnings about missing binaries\n\n");
}

static int on_record(void *ctx, struct data_session *s, const struct data_record *rec)
{
	struct data_cmd *cmd = ctx;

	if (cmd->mode == DATA_DUMP)
		data_dump_record(s, rec, cmd->out);
	return 0;
}

static int on_ordered(void *ctx, struct data_session *s, const struct data_record *rec,
		      const struct data_sample *smp, const struct data_location *loc)
{
	struct data_cmd *cmd = ctx;

	if (smp && loc)
		data_hists_add(&cmd->hists, smp->sid.attr_idx, loc, smp->period);
	if (cmd->mode == DATA_CSV)
		tables_overview_record(s, rec, smp, loc, cmd->out);
	return 0;
}

static const struct data_session_ops data_ops = {
	.record = on_record,
	.ordered = on_ordered,
};

/* perf's sample count with a K/M/G unit past a thousand */
static void print_nr_samples(FILE *out, __u64 n)
{
	const char *units = "KMG";
	char unit = 0;

	while (n > 1000 && *units) {
		n /= 1000;
		unit = *units++;
	}
	fprintf(out, "# Samples: %llu%c of event '", (unsigned long long)n, unit ? unit : ' ');
}

static void print_top(struct data_cmd *cmd, struct data_session *s)
{
	const struct data_hists *h = &cmd->hists;
	size_t i, dso_width = strlen("Shared Object");
	int attr;
	char sym[256];

	for (i = 0; i < h->nr; i++)
		if (strlen(hist_dso_name(&h->entries[i])) > dso_width)
			dso_width = strlen(hist_dso_name(&h->entries[i]));
	for (attr = 0; attr < s->r.nr_attrs; attr++) {
		print_nr_samples(cmd->out, h->total_samples[attr]);
		fprintf(cmd->out, "%s'\n# Event count (approx.): %llu\n#\n",
			data_session_event_name(s, attr),
			(unsigned long long)h->total_period[attr]);
		fprintf(cmd->out, "# Overhead%s  %-*s  Symbol\n#\n",
			cmd->show_nr_samples ? "       Samples" : "", (int)dso_width,
			"Shared Object");
		for (i = 0; i < h->nr; i++) {
			const struct hist_entry *e = &h->entries[i];

			if (e->attr_idx != attr)
				continue;
			hist_symbol_name(e, sym, sizeof(sym));
			fprintf(cmd->out, "%9.2f%%", h->total_period[attr] ?
				100.0 * e->period / h->total_period[attr] : 0.0);
			if (cmd->show_nr_samples)
				fprintf(cmd->out, "  %12llu", (unsigned long long)e->samples);
			fprintf(cmd->out, "  %-*s  [%c] %s\n", (int)dso_width, hist_dso_name(e),
				e->loc.level, sym);
		}
		fputs("\n\n", cmd->out);
	}
}

static FILE *open_table(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(path, "we");

	if (!f)
		pr_err("bperf: cannot write %s: %s", path, strerror(errno));
	free(path);
	return f;
}

static int write_tables(struct data_cmd *cmd, struct data_session *s)
{
	static const char *const names[] = { "stat.csv", "processes.csv", "results.csv" };
	size_t i;
	int err = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		FILE *f = open_table(cmd->outdir, names[i]);

		if (!f)
			return -EIO;
		if (i == 0)
			tables_write_stat(s, f);
		else if (i == 1)
			tables_write_processes(s, f);
		else
			tables_write_results(s, &cmd->hists, f);
		if (fclose(f))
			err = -EIO;
	}
	return err;
}

static int parse_args(struct data_cmd *cmd, int argc, const char **argv)
{
	int i;

	if (argc < 2)
		return -EINVAL;
	if (!strcmp(argv[1], "dump"))
		cmd->mode = DATA_DUMP;
	else if (!strcmp(argv[1], "csv"))
		cmd->mode = DATA_CSV;
	else if (!strcmp(argv[1], "top"))
		cmd->mode = DATA_TOP;
	else
		return -EINVAL;
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if ((!strcmp(a, "-i") || !strcmp(a, "--input")) && i + 1 < argc)
			cmd->input = argv[++i];
		else if (!strncmp(a, "--input=", 8))
			cmd->input = a + 8;
		else if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
			cmd->outdir = argv[++i];
		else if (!strncmp(a, "--output=", 9))
			cmd->outdir = a + 9;
		else if (!strcmp(a, "-n") || !strcmp(a, "--show-nr-samples"))
			cmd->show_nr_samples = true;
		else if (!strcmp(a, "--kallsyms") && i + 1 < argc)
			cmd->kallsyms = argv[++i];
		else if (!strncmp(a, "--kallsyms=", 11))
			cmd->kallsyms = a + 11;
		else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
			cmd->quiet = true;
		else
			return -EINVAL;
	}
	return 0;
}

int cmd_data(int argc, const char **argv, const struct top_opts *top)
{
	struct data_cmd cmd = { .input = "perf.data", .outdir = ".", .out = stdout };
	struct data_session s;
	bool cut_short;
	int err;

	if (parse_args(&cmd, argc, argv)) {
		usage();
		return EXIT_USAGE;
	}
	if (cmd.mode == DATA_CSV && mkdir(cmd.outdir, 0777) && errno != EEXIST) {
		pr_err("bperf: cannot create %s: %s", cmd.outdir, strerror(errno));
		return EXIT_FATAL;
	}
	err = data_session_open(&s, cmd.input);
	if (err) {
		data_session_close(&s);
		return EXIT_FATAL;
	}
	s.ops = &data_ops;
	s.ctx = &cmd;
	s.resolve = cmd.mode != DATA_DUMP;
	s.machine.dsos.quiet = cmd.quiet;
	if (cmd.kallsyms)
		s.machine.dsos.kallsyms_path = cmd.kallsyms;
	data_hists_init(&cmd.hists, s.r.nr_attrs);
	if (cmd.mode == DATA_DUMP)
		data_dump_header(&s, cmd.out);
	if (cmd.mode == DATA_CSV) {
		cmd.out = open_table(cmd.outdir, "overview.csv");
		if (!cmd.out) {
			err = -EIO;
			goto out;
		}
		tables_overview_header(cmd.out);
	}
	/* a damaged file still gets what was read before the damage */
	err = data_session_run(&s);
	data_hists_sort(&cmd.hists);
	if (cmd.mode == DATA_DUMP)
		data_dump_stats(&s, cmd.out);
	else if (cmd.mode == DATA_TOP)
		print_top(&cmd, &s);
	else if (write_tables(&cmd, &s) && !err)
		err = -EIO;
	if (cmd.mode == DATA_CSV && fclose(cmd.out) && !err)
		err = -EIO;
out:
	data_hists_free(&cmd.hists);
	cut_short = s.r.cut_short;
	data_session_close(&s);
	/* a cut file's results are printed, but they are not the whole recording */
	return err || cut_short ? EXIT_FATAL : 0;
}
