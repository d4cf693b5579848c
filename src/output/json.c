// SPDX-License-Identifier: GPL-2.0-only
/*
 * The -j format of perf stat 6.1: one object per line, keys in perf's
 * order. Names are not escaped, as in perf. Deliberate difference from
 * perf: output.c prints this format under the "C" numeric locale, so the
 * numbers stay valid JSON whatever LC_NUMERIC says (perf writes 100,00
 * under de_DE).
 */
#include <inttypes.h>

#include "printer.h"

void json_print_aggr_keys(FILE *out, enum aggr_mode mode, const struct aggr_id *id, int nr)
{
	switch (mode) {
	case AGGR_CORE:
		fprintf(out, "\"core\" : \"S%d-D%d-C%d\", \"aggregate-number\" : %d, ",
			id->socket, id->die, id->core, nr);
		break;
	case AGGR_DIE:
		fprintf(out, "\"die\" : \"S%d-D%d\", \"aggregate-number\" : %d, ",
			id->socket, id->die, nr);
		break;
	case AGGR_SOCKET:
		fprintf(out, "\"socket\" : \"S%d\", \"aggregate-number\" : %d, ", id->socket, nr);
		break;
	case AGGR_NODE:
		fprintf(out, "\"node\" : \"N%d\", \"aggregate-number\" : %d, ", id->node, nr);
		break;
	case AGGR_NONE:
		fprintf(out, "\"cpu\" : \"%d\", ", id->cpu);
		break;
	case AGGR_THREAD:
		fprintf(out, "\"thread\" : \"%s-%d\", ", id->comm, id->tid);
		break;
	case AGGR_GLOBAL:
		break;
	}
}

/* "{" (unless the -I prefix already opened the object) and the aggregate's keys */
static void print_object_start(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	const struct aggr_id *id = cl->id;

	fputs(cl->prefix, out);
	if (!cl->res->interval)
		fputc('{', out);
	if (!id)
		return;
	/* perf 6.1 leaves out the ", " after this key (invalid JSON); bperf does not */
	if (line_is_percore(cl)) {
		fprintf(out, "\"core\" : \"S%d-D%d-C%d\", ", id->socket, id->die, id->core);
		return;
	}
	json_print_aggr_keys(out, cl->res->aggr_mode, id, cl->val->nr_cpus);
}

static void print_metric(FILE *out, const struct metric_line *m)
{
	/* perf passes a NULL unit to printf here, which glibc prints as "(null)" */
	fprintf(out, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}", m->value,
		m->unit ? m->unit : "(null)");
}

void json_print_line(const struct counter_line *cl)
{
	FILE *out = cl->cfg->out;
	const struct counter_value *v = cl->val;
	double enabled_pct = 100;
	int i;

	print_object_start(cl);
	if (cl->counted)
		fprintf(out, "\"counter-value\" : \"%f\", ", cl->uval);
	else
		fprintf(out, "\"counter-value\" : \"%s\", ",
			cl->supported ? CNTR_NOT_COUNTED : CNTR_NOT_SUPPORTED);
	fprintf(out, "\"unit\" : \"%s\", ", event_unit(cl->evsel));
	fprintf(out, "\"event\" : \"%s\", ", cl->evsel->name);
	if (lines_have_cgroup(cl))
		fprintf(out, "\"cgroup\" : \"%s\", ", line_cgroup(cl));

	if (cl->res->run_count > 1)
		fprintf(out, "\"variance\" : %.2f, ", line_noise_pct(cl));
	/* perf computes the percentage in integer arithmetic */
	if (v->run != v->ena && v->ena)
		enabled_pct = (double)(100 * v->run / v->ena);
	fprintf(out, "\"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f, ",
		(uint64_t)v->run, enabled_pct);

	if (!cl->counted) {
		fprintf(out, "\"metric-value\" : %f, \"metric-unit\" : \"\"}", 0.0);
	} else {
		for (i = 0; i < cl->nr_metrics; i++) {
			if (cl->metrics[i].new_line) {
				fputc('\n', out);
				print_object_start(cl);
			}
			print_metric(out, &cl->metrics[i]);
		}
	}
	fputc('\n', out);
}

void json_interval_prefix(char *buf, size_t size, unsigned long sec, unsigned long nsec)
{
	snprintf(buf, size, "{\"interval\" : %lu.%09lu, ", sec, nsec);
}
