// SPDX-License-Identifier: GPL-2.0-only
#include "tables.h"

#include <string.h>

void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void tables_overview_header(FILE *out)
{
	fputs("time,record,cpu,pid,tid,event,ip,period,dso,symbol,detail\n", out);
}

void tables_overview_record(struct data_session *s, const struct data_record *rec,
			    const struct data_sample *smp, const struct data_location *loc,
			    FILE *out)
{
	const char *name = data_record_name(rec->header.type);
	struct data_sample_id sid = { .attr_idx = -1 };
	struct data_mmap mm;
	struct data_comm cm;
	char sym[256];

	if (smp)
		sid = smp->sid;
	else if (rec->header.type < 64)
		data_decode_sample_id(&s->r, &s->idx, rec, data_record_fixed_size(rec), &sid);
	if (sid.has_time)
		fprintf(out, "%llu", (unsigned long long)sid.time);
	fprintf(out, ",%s,", name ? name : "UNKNOWN");
	if (sid.has_cpu)
		fprintf(out, "%u", sid.cpu);
	fputc(',', out);
	if (sid.has_tid)
		fprintf(out, "%u,%u", sid.pid, sid.tid);
	else
		fputc(',', out);
	fputc(',', out);
	if (sid.attr_idx >= 0)
		csv_field(out, data_session_event_name(s, sid.attr_idx));
	if (smp) {
		struct hist_entry e = { .loc = loc ? *loc : (struct data_location){ 0 } };

		e.loc.addr = loc ? loc->addr : smp->ip;
		hist_symbol_name(&e, sym, sizeof(sym));
		fprintf(out, ",%#llx,%llu,", (unsigned long long)smp->ip,
			(unsigned long long)smp->period);
		csv_field(out, hist_dso_name(&e));
		fputc(',', out);
		csv_field(out, sym);
		fputs(",\n", out);
		return;
	}
	fputs(",,,,,", out);
	if ((rec->header.type == REC_MMAP || rec->header.type == REC_MMAP2) &&
	    !data_decode_mmap(&s->r, rec, &mm))
		csv_field(out, mm.filename);
	else if (rec->header.type == REC_COMM && !data_decode_comm(&s->r, rec, &cm))
		csv_field(out, cm.comm);
	fputc('\n', out);
}

void tables_write_stat(const struct data_session *s, FILE *out)
{
	__u32 t;

	fputs("record,count\n", out);
	fprintf(out, "TOTAL,%llu\n", (unsigned long long)s->total);
	for (t = 1; t < REC_TYPE_MAX; t++)
		if (s->counts[t])
			fprintf(out, "%s,%llu\n", data_record_name(t) ? data_record_name(t) :
				"UNKNOWN", (unsigned long long)s->counts[t]);
	if (s->counts[0])
		fprintf(out, "UNKNOWN,%llu\n", (unsigned long long)s->counts[0]);
}

void tables_write_processes(const struct data_session *s, FILE *out)
{
	size_t i;

	fputs("pid,ppid,comm,threads,samples,period,start_time,exit_time\n", out);
	for (i = 0; i < s->machine.nr_all; i++) {
		const struct data_process *p = s->machine.all[i];

		fprintf(out, "%d,%d,", (int)p->pid, (int)p->ppid);
		csv_field(out, p->comm);
		fprintf(out, ",%u,%llu,%llu,", p->nr_threads, (unsigned long long)p->samples,
			(unsigned long long)p->period);
		if (p->start_time)
			fprintf(out, "%llu", (unsigned long long)p->start_time);
		fputc(',', out);
		if (p->exited)
			fprintf(out, "%llu", (unsigned long long)p->exit_time);
		fputc('\n', out);
	}
}

void tables_write_results(const struct data_session *s, const struct data_hists *h, FILE *out)
{
	char sym[256];
	size_t i;

	fputs("event,dso,symbol,samples,period,percent\n", out);
	for (i = 0; i < h->nr; i++) {
		const struct hist_entry *e = &h->entries[i];
		__u64 total = h->total_period[e->attr_idx];

		csv_field(out, data_session_event_name(s, e->attr_idx));
		fputc(',', out);
		csv_field(out, hist_dso_name(e));
		fputc(',', out);
		hist_symbol_name(e, sym, sizeof(sym));
		csv_field(out, sym);
		fprintf(out, ",%llu,%llu,%.2f\n", (unsigned long long)e->samples,
			(unsigned long long)e->period,
			total ? 100.0 * e->period / total : 0.0);
	}
}
