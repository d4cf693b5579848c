// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -x SEP format of perf stat 6.1:
 *   [summary SEP][time SEP][aggr fields]value SEP unit SEP event[SEP variance]
 *   SEP run SEP pcnt SEP metric-value SEP metric-unit
 * Deliberate difference from perf: output.c prints this format under the
 * "C" numeric locale, so values always use '.' (perf writes "0,45" under
 * de_DE, which collides with a ',' separator).
 */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "printer.h"

/* Empty fields an extra metric line starts with (perf's table, NODE 0 included). */
static int aggr_fields(enum aggr_mode mode)
{
	switch (mode) {
	case AGGR_NONE:
	case AGGR_THREAD:
		return 1;
	case AGGR_SOCKET:
	case AGGR_DIE:
	case AGGR_CORE:
		return 2;
	case AGGR_NODE:
	case AGGR_GLOBAL:
		break;
	}
	return 0;
}

void csv_print_aggr_fields(FILE *out, const char *sep, enum aggr_mode mode,
			   const struct aggr_id *id, int nr)
{
	switch (mode) {
	case AGGR_CORE:
		fprintf(out, "S%d-D%d-C%d%s%d%s", id->socket, id->die, id->core, sep, nr, sep);
		break;
	case AGGR_DIE:
		fprintf(out, "S%d-D%d%s%d%s", id->socket, id->die, sep, nr, sep);
		break;
	case AGGR_SOCKET:
		fprintf(out, "S%d%s%d%s", id->socket, sep, nr, sep);
		break;
	case AGGR_NODE:
		fprintf(out, "N%d%s%d%s", id->node, sep, nr, sep);
		break;
	case AGGR_NONE:
		fprintf(out, "CPU%d%s", id->cpu, sep);
		break;
	case AGGR_THREAD:
		fprintf(out, "%s-%d%s", id->comm, id->tid, sep);
		break;
	case AGGR_GLOBAL:
		break;
	}
}

static void print_line_fields(const struct counter_line *cl)
{
	const struct aggr_id *id = cl->id;
	const char *sep = cl->cfg->csv_sep;

	if (line_is_percore(cl))
		fprintf(cl->cfg->out, "S%d-D%d-C%d%s", id->socket, id->die, id->core, sep);
	else if (id)
		csv_print_aggr_fields(cl->cfg->out, sep, cl->res->aggr_mode, id, cl->val->nr_cpus);
}

static void start_metric_line(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	const char *sep = cl->cfg->csv_sep;
	int i;

	/* perf 6.1's new_line_csv: the prefix (an interval's ends with the separator) and no more */
	fprintf(out, "\n%s", cl->prefix);
	print_line_fields(cl);
	for (i = 0; i < 3 + aggr_fields(cl->res->aggr_mode) + lines_have_cgroup(cl); i++)
		fputs(sep, out);
}

/* The metric value without padding, cut at the first character not a digit or '.'. */
static void print_metric(const struct counter_line *cl, const struct metric_line *m)
{
	FILE *out = cl->cfg->out;
	const char *sep = cl->cfg->csv_sep;
	char buf[64], *val, *end;
	const char *unit;

	if (!m->format || !m->unit) {
		fprintf(out, "%s%s", sep, sep);
		return;
	}
	snprintf(buf, sizeof(buf), m->format, m->value);
	val = buf;
	while (isspace((unsigned char)*val))
		val++;
	end = val;
	while (isdigit((unsigned char)*end) || *end == '.')
		end++;
	*end = '\0';
	unit = m->unit;
	while (isspace((unsigned char)*unit))
		unit++;
	fprintf(out, "%s%s%s%s", sep, val, sep, unit);
}

void csv_print_line(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	const char *sep = cl->cfg->csv_sep;
	const struct counter_value *v = cl->val;
	/* perf computes the percentage in integer arithmetic */
	double enabled_pct = 100;
	int i;

	if (cl->summary_column)
		fprintf(out, "%16s%s", "summary", sep);
	fputs(cl->prefix, out);
	print_line_fields(cl);

	if (cl->counted)
		fprintf(out, has_fractional_scale(cl->evsel) ? "%.2f%s" : "%.0f%s", cl->uval, sep);
	else
		fprintf(out, "%s%s", cl->supported ? CNTR_NOT_COUNTED : CNTR_NOT_SUPPORTED, sep);
	fprintf(out, "%s%s%s", event_unit(cl->evsel), sep, cl->evsel->name);
	if (lines_have_cgroup(cl))
		fprintf(out, "%s%s", sep, line_cgroup(cl));

	if (cl->res->run_count > 1)
		fprintf(out, "%s%.2f%%", sep, line_noise_pct(cl));
	if (v->run != v->ena && v->ena)
		enabled_pct = (double)(100 * v->run / v->ena);
	fprintf(out, "%s%" PRIu64 "%s%.2f", sep, (uint64_t)v->run, sep, enabled_pct);

	if (!cl->counted) {
		fprintf(out, "%s%s", sep, sep);
	} else {
		for (i = 0; i < cl->nr_metrics; i++) {
			if (cl->metrics[i].new_line)
				start_metric_line(cl);
			print_metric(cl, &cl->metrics[i]);
		}
	}
	fputc('\n', out);
}

void csv_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec,
			 const char *sep)
{
	snprintf(buf, size, "%6lu.%09lu%s", sec, nsec, sep);
}
