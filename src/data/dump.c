// SPDX-License-Identifier: GPL-2.0-only
#include "dump.h"

#include <inttypes.h>
#include <string.h>

static const char *const feature_names[FEAT_LAST] = {
	[FEAT_TRACING_DATA] = "tracing_data", [FEAT_BUILD_ID] = "build_id",
	[FEAT_HOSTNAME] = "hostname", [FEAT_OSRELEASE] = "osrelease",
	[FEAT_VERSION] = "version", [FEAT_ARCH] = "arch", [FEAT_NRCPUS] = "nrcpus",
	[FEAT_CPUDESC] = "cpudesc", [FEAT_CPUID] = "cpuid", [FEAT_TOTAL_MEM] = "total_mem",
	[FEAT_CMDLINE] = "cmdline", [FEAT_EVENT_DESC] = "event_desc",
	[FEAT_CPU_TOPOLOGY] = "cpu_topology", [FEAT_NUMA_TOPOLOGY] = "numa_topology",
	[FEAT_BRANCH_STACK] = "branch_stack", [FEAT_PMU_MAPPINGS] = "pmu_mappings",
	[FEAT_GROUP_DESC] = "group_desc", [FEAT_AUXTRACE] = "auxtrace", [FEAT_STAT] = "stat",
	[FEAT_CACHE] = "cache", [FEAT_SAMPLE_TIME] = "sample_time",
	[FEAT_MEM_TOPOLOGY] = "mem_topology", [FEAT_CLOCKID] = "clockid",
	[FEAT_DIR_FORMAT] = "dir_format", [FEAT_BPF_PROG_INFO] = "bpf_prog_info",
	[FEAT_BPF_BTF] = "bpf_btf", [FEAT_COMPRESSED] = "compressed",
	[FEAT_CPU_PMU_CAPS] = "cpu_pmu_caps", [FEAT_CLOCK_DATA] = "clock_data",
	[FEAT_HYBRID_TOPOLOGY] = "hybrid_topology", [FEAT_PMU_CAPS] = "pmu_caps",
};

void data_dump_header(struct data_session *s, FILE *out)
{
	const struct perf_file_header *h = &s->r.header;
	struct perf_file_section sec;
	int i, feat;
	__u32 k;

	fprintf(out, "file %s: %s-endian, header %llu bytes, attrs %#llx+%llu, data %#llx+%llu\n",
		s->r.path, s->r.swap ? "foreign" : "host", (unsigned long long)h->size,
		(unsigned long long)h->attrs.offset, (unsigned long long)h->attrs.size,
		(unsigned long long)h->data.offset, (unsigned long long)h->data.size);
	for (i = 0; i < s->r.nr_attrs; i++) {
		const struct data_attr *a = &s->r.attrs[i];

		fprintf(out, "attr %d '%s': type %u config %#llx sample_period %llu "
			"sample_type %#llx read_format %#llx freq %u sample_id_all %u ids",
			i, data_session_event_name(s, i), a->attr.type,
			(unsigned long long)a->attr.config,
			(unsigned long long)a->attr.sample_period,
			(unsigned long long)a->attr.sample_type,
			(unsigned long long)a->attr.read_format, a->attr.freq,
			a->attr.sample_id_all);
		for (k = 0; k < a->nr_ids; k++)
			fprintf(out, " %llu", (unsigned long long)a->ids[k]);
		fputc('\n', out);
	}
	for (feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		if (data_reader_feature(&s->r, feat, &sec) <= 0)
			continue;
		fprintf(out, "feature %d %s: %#llx+%llu\n", feat,
			feat < FEAT_LAST && feature_names[feat] ? feature_names[feat] : "unknown",
			(unsigned long long)sec.offset, (unsigned long long)sec.size);
		data_dump_feature(s, feat, out);
	}
}

static void dump_sample_id(const struct data_sample_id *sid, FILE *out)
{
	if (sid->has_tid)
		fprintf(out, " pid %u tid %u", sid->pid, sid->tid);
	if (sid->has_time)
		fprintf(out, " time %llu", (unsigned long long)sid->time);
	if (sid->id)
		fprintf(out, " id %llu", (unsigned long long)sid->id);
	if (sid->stream_id)
		fprintf(out, " stream_id %llu", (unsigned long long)sid->stream_id);
	if (sid->has_cpu)
		fprintf(out, " cpu %u", sid->cpu);
}

/* PERF_SAMPLE_RAW's bytes (a tracepoint's fields) as perf -D shows a record: hex, then text */
static void dump_raw(const unsigned char *raw, __u32 size, FILE *out)
{
	__u32 line, i;

	for (line = 0; line < size; line += 16) {
		fprintf(out, "..... raw %04x: ", line);
		for (i = line; i < line + 16; i++)
			if (i < size)
				fprintf(out, " %02x", raw[i]);
			else
				fputs("   ", out);
		fputs("  ", out);
		for (i = line; i < line + 16 && i < size; i++)
			fputc(raw[i] >= 0x20 && raw[i] < 0x7f ? raw[i] : '.', out);
		fputc('\n', out);
	}
}

static void dump_sample(struct data_session *s, const struct data_record *rec, FILE *out)
{
	struct data_sample smp;
	__u64 i;

	if (data_decode_sample(&s->r, &s->idx, rec, &smp)) {
		fputs(" (bad)\n", out);
		return;
	}
	fprintf(out, " event '%s'", data_session_event_name(s, smp.sid.attr_idx));
	if (smp.has_ip)
		fprintf(out, " ip %#llx", (unsigned long long)smp.ip);
	dump_sample_id(&smp.sid, out);
	if (smp.has_addr)
		fprintf(out, " addr %#llx", (unsigned long long)smp.addr);
	fprintf(out, " period %llu", (unsigned long long)smp.period);
	if (smp.read) {
		fputs(" read", out);
		for (i = 0; i < smp.nr_read; i++)
			fprintf(out, " %llu", (unsigned long long)data_word(smp.read, i));
	}
	if (smp.raw)
		fprintf(out, " raw %u bytes", smp.raw_size);
	fputc('\n', out);
	if (smp.callchain) {
		fprintf(out, "... callchain: nr %llu\n", (unsigned long long)smp.nr_callchain);
		for (i = 0; i < smp.nr_callchain; i++)
			fprintf(out, "..... %2llu: %016llx\n", (unsigned long long)i,
				(unsigned long long)data_word(smp.callchain, i));
	}
	if (smp.raw)
		dump_raw(smp.raw, smp.raw_size, out);
}

void data_dump_record(struct data_session *s, const struct data_record *rec, FILE *out)
{
	const char *name = data_record_name(rec->header.type);
	struct data_sample_id sid;
	struct data_mmap mm;
	struct data_comm cm;
	struct data_fork fk;

	fprintf(out, "%#llx [%#x]: ", (unsigned long long)rec->offset, rec->header.size);
	if (name)
		fprintf(out, "PERF_RECORD_%s", name);
	else
		fprintf(out, "unknown record type %u", rec->header.type);
	fprintf(out, " misc %#x", rec->header.misc);
	switch (rec->header.type) {
	case REC_SAMPLE:
		dump_sample(s, rec, out);
		return;
	case REC_MMAP:
	case REC_MMAP2:
		if (!data_decode_mmap(&s->r, rec, &mm))
			fprintf(out, " %u/%u: [%#llx(%#llx) @ %#llx]: %s", mm.pid, mm.tid,
				(unsigned long long)mm.start, (unsigned long long)mm.len,
				(unsigned long long)mm.pgoff, mm.filename);
		break;
	case REC_COMM:
		if (!data_decode_comm(&s->r, rec, &cm))
			fprintf(out, "%s: %s:%u/%u", cm.exec ? " exec" : "", cm.comm, cm.pid,
				cm.tid);
		break;
	case REC_FORK:
	case REC_EXIT:
		if (!data_decode_fork(&s->r, rec, &fk))
			fprintf(out, " (%u:%u):(%u:%u)", fk.pid, fk.tid, fk.ppid, fk.ptid);
		break;
	default:
		break;
	}
	if (rec->header.type < 64 &&
	    !data_decode_sample_id(&s->r, &s->idx, rec, data_record_fixed_size(rec), &sid))
		dump_sample_id(&sid, out);
	fputc('\n', out);
}

void data_dump_stats(const struct data_session *s, FILE *out)
{
	__u32 t;

	fprintf(out, "\nAggregated stats:\n%16s events: %10llu\n", "TOTAL",
		(unsigned long long)s->total);
	for (t = 0; t < REC_TYPE_MAX; t++) {
		const char *name = t ? data_record_name(t) : "UNKNOWN";

		if (s->counts[t])
			fprintf(out, "%16s events: %10llu\n", name ? name : "UNKNOWN",
				(unsigned long long)s->counts[t]);
	}
}
