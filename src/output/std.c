// SPDX-License-Identifier: GPL-2.0-only
/*
 * The human ("std") format of perf stat 6.1: fixed-width columns, the
 * metric after '#', header and footer. Numbers follow LC_NUMERIC (decimal
 * point, and thousands grouping with big_num) exactly like perf.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "printer.h"

#define COUNTS_LEN 18
#define EVNAME_LEN 32
#define BAD_EVNAME_LEN 25	/* perf's narrower name column for <not counted> lines */
#define METRIC_LEN 35

void std_print_aggr_prefix(FILE *out, enum aggr_mode mode, const struct aggr_id *id, int nr)
{
	switch (mode) {
	case AGGR_CORE:
		fprintf(out, "S%d-D%d-C%-8d %4d ", id->socket, id->die, id->core, nr);
		break;
	case AGGR_DIE:
		fprintf(out, "S%d-D%-8d %4d ", id->socket, id->die, nr);
		break;
	case AGGR_SOCKET:
		fprintf(out, "S%-5d %4d ", id->socket, nr);
		break;
	case AGGR_NODE:
		fprintf(out, "N%-5d %4d ", id->node, nr);
		break;
	case AGGR_NONE:
		fprintf(out, "CPU%-7d ", id->cpu);
		break;
	case AGGR_THREAD:
		fprintf(out, "%16s-%-8d ", id->comm, id->tid);
		break;
	case AGGR_GLOBAL:
		break;
	}
}

static void print_line_prefix(const struct counter_line *cl)
{
	const struct aggr_id *id = cl->id;

	if (line_is_percore(cl))
		fprintf(cl->cfg->out, "S%d-D%d-C%-3d ", id->socket, id->die, id->core);
	else if (id)
		std_print_aggr_prefix(cl->cfg->out, cl->res->aggr_mode, id, cl->val->nr_cpus);
}

/* An extra metric line: indented so that its '#' lines up with the first one. */
static void start_metric_line(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;

	fputc('\n', out);
	fputs(cl->prefix, out);
	print_line_prefix(cl);
	if (cl->res->aggr_mode == AGGR_NONE)
		fputs("        ", out);
	fprintf(out, "%49s", "");
}

static void print_metrics(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	bool new_line = false;
	int i;

	for (i = 0; i < cl->nr_metrics; i++) {
		const struct metric_line *m = &cl->metrics[i];
		const char *format = m->format;
		int n;

		if (m->new_line)
			new_line = true;
		if (!format || !m->unit) {
			fprintf(out, "%-*s", METRIC_LEN, "");
			new_line = false;
			continue;
		}
		if (new_line)
			start_metric_line(cl);
		new_line = false;
		n = fprintf(out, " # ");
		n += fprintf(out, format, m->value);
		/* a negative width (value wider than the column) left-justifies, as in perf */
		fprintf(out, " %-*s", METRIC_LEN - n - 1, m->unit);
	}
}

static void print_count(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	bool frac = has_fractional_scale(cl->evsel);

	if (cl->cfg->big_num)
		fprintf(out, frac ? "%'*.2f " : "%'*.0f ", COUNTS_LEN, cl->uval);
	else
		fprintf(out, frac ? "%*.2f " : "%*.0f ", COUNTS_LEN, cl->uval);
}

void std_print_line(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	const struct counter_value *v = cl->val;

	fputs(cl->prefix, out);
	print_line_prefix(cl);

	if (cl->counted) {
		print_count(cl);
		fprintf(out, "%-*s ", cl->unit_width, event_unit(cl->evsel));
		fprintf(out, "%-*s", EVNAME_LEN, cl->evsel->name);
		if (lines_have_cgroup(cl))
			fprintf(out, " %s", line_cgroup(cl));
		print_metrics(cl);
	} else {
		fprintf(out, "%*s ", COUNTS_LEN, cl->supported ? CNTR_NOT_COUNTED : CNTR_NOT_SUPPORTED);
		fprintf(out, "%-*s ", cl->unit_width, event_unit(cl->evsel));
		fprintf(out, "%-*s", BAD_EVNAME_LEN, cl->evsel->name);
		if (lines_have_cgroup(cl))
			fprintf(out, " %s", line_cgroup(cl));
		fprintf(out, "%-*s", METRIC_LEN, "");
	}

	if (cl->res->run_count > 1 && line_noise_pct(cl))
		fprintf(out, "  ( +-%6.2f%% )", line_noise_pct(cl));
	if (v->run != v->ena)
		fprintf(out, "  (%.2f%%)", 100.0 * v->run / v->ena);
	fputc('\n', out);
}

void std_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec)
{
	snprintf(buf, size, "%6lu.%09lu ", sec, nsec);
}

void std_print_interval_header(const struct output_config *cfg, enum aggr_mode mode,
			       int unit_width)
{
	static const char *const lead[] = {
		[AGGR_GLOBAL] = "#           time",
		[AGGR_NONE] = "#           time CPU    ",
		[AGGR_THREAD] = "#           time             comm-pid",
		[AGGR_CORE] = "#           time core            cpus",
		[AGGR_DIE] = "#           time die          cpus",
		[AGGR_SOCKET] = "#           time socket cpus",
		[AGGR_NODE] = "#           time node   cpus",
	};
	/* the counts column heading is not aligned the same way in every mode */
	static const char *const counts[] = {
		[AGGR_GLOBAL] = "             counts",
		[AGGR_NONE] = "                counts",
		[AGGR_THREAD] = "                  counts",
		[AGGR_CORE] = "             counts",
		[AGGR_DIE] = "             counts",
		[AGGR_SOCKET] = "             counts",
		[AGGR_NODE] = "             counts",
	};

	fprintf(cfg->out, "%s%s %*s events\n", lead[mode], counts[mode], unit_width, "unit");
}

void std_print_header(FILE *out, const struct run_summary *sum)
{
	fprintf(out, "\n Performance counter stats for %s", sum->target_desc);
	if (sum->run_count > 1)
		fprintf(out, " (%d runs)", sum->run_count);
	fprintf(out, ":\n\n");
}

/* Decimals worth printing for a value known to +- sd (perf's get_precision()). */
static int precision_of(double sd)
{
	double digits;

	if (sd > 1)
		return 0;
	digits = ceil(-log10(sd));
	/* sd == 0: x86's lround(inf) gives LONG_MIN, which perf truncates to int 0 */
	if (!isfinite(digits) || digits > INT_MAX)
		return 0;
	return (int)lround(digits);
}

static void print_run_table(FILE *out, const struct run_summary *sum, int precision, double avg)
{
	char tmp[64];
	int indent = 0, i;

	snprintf(tmp, sizeof(tmp), " %17.*f", precision, avg);
	while (tmp[indent] == ' ')
		indent++;

	fprintf(out, "%*s# Table of individual measurements:\n", indent, "");
	for (i = 0; i < sum->run_count; i++) {
		double run = sum->run_elapsed_s[i];
		int bars = 1 + abs((int)(100.0 * (run - avg) / run) / 5);

		fprintf(out, " %17.*f (%+.*f) ", precision, run, precision, run - avg);
		while (bars--)
			fputc('#', out);
		fputc('\n', out);
	}
	fprintf(out, "\n%*s# Final result:\n", indent, "");
}

void std_print_footer(FILE *out, const struct run_summary *sum, const struct footer_hints *hints)
{
	double avg = sum->elapsed_s;

	if (!sum->null_run)
		fputc('\n', out);

	if (sum->run_count <= 1) {
		fprintf(out, " %17.9f seconds time elapsed", avg);
		if (sum->show_rusage) {
			fprintf(out, "\n\n");
			fprintf(out, " %17.9f seconds user\n", sum->user_s);
			fprintf(out, " %17.9f seconds sys\n", sum->sys_s);
		}
	} else {
		double sd = sum->elapsed_stddev_s;
		/* at most two more significant digits than the stddev allows */
		int precision = precision_of(sd) + 2;
		double pct = avg ? 100.0 * sd / avg : 0.0;

		if (sum->print_table && sum->run_elapsed_s)
			print_run_table(out, sum, precision, avg);
		fprintf(out, " %17.*f +- %.*f seconds time elapsed", precision, avg, precision, sd);
		if (pct)
			fprintf(out, "  ( +-%6.2f%% )", pct);
	}
	fprintf(out, "\n\n");

	if (hints->not_counted && sum->nmi_watchdog)
		fprintf(out, "Some events weren't counted. Try disabling the NMI watchdog:\n"
			"\techo 0 > /proc/sys/kernel/nmi_watchdog\n"
			"\tbperf stat ...\n"
			"\techo 1 > /proc/sys/kernel/nmi_watchdog\n");
	if (hints->mixed_group)
		fprintf(out, "The events in group usually have to be from the same PMU. "
			"Try reorganizing the group.\n");
}
