// SPDX-License-Identifier: GPL-2.0-only
#include "sample.h"

#include <byteswap.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../util/common.h"

static const char *const record_names[REC_TYPE_MAX] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT", [5] = "THROTTLE",
	[6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ", [9] = "SAMPLE", [10] = "MMAP2",
	[11] = "AUX", [12] = "ITRACE_START", [13] = "LOST_SAMPLES", [14] = "SWITCH",
	[15] = "SWITCH_CPU_WIDE", [16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
	[64] = "ATTR", [65] = "EVENT_TYPE", [66] = "TRACING_DATA", [67] = "BUILD_ID",
	[68] = "FINISHED_ROUND", [69] = "ID_INDEX", [70] = "AUXTRACE_INFO", [71] = "AUXTRACE",
	[72] = "AUXTRACE_ERROR", [73] = "THREAD_MAP", [74] = "CPU_MAP", [75] = "STAT_CONFIG",
	[76] = "STAT", [77] = "STAT_ROUND", [78] = "EVENT_UPDATE", [79] = "TIME_CONV",
	[80] = "FEATURE", [81] = "COMPRESSED", [82] = "FINISHED_INIT",
};

const char *data_record_name(__u32 type)
{
	return type < REC_TYPE_MAX ? record_names[type] : NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* u64 index of PERF_SAMPLE_ID in a sample of this type, -1 without it. */
static int sample_id_pos(__u64 type)
{
	int pos = 0;

	if (!(type & PERF_SAMPLE_ID))
		return -1;
	pos += !!(type & PERF_SAMPLE_IDENTIFIER);
	pos += !!(type & PERF_SAMPLE_IP);
	pos += !!(type & PERF_SAMPLE_TID);
	pos += !!(type & PERF_SAMPLE_TIME);
	pos += !!(type & PERF_SAMPLE_ADDR);
	return pos;
}

/* The id's u64 counted from the end of a trailer (1 = last), -1 without it. */
static int trailer_id_pos(__u64 type)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	return 1 + !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU);
}

int data_id_index_build(struct perf_data_reader *r, struct data_id_index *idx)
{
	struct { __u64 id; int attr; } *pairs;
	__u32 n = 0, k;
	int i;

	memset(idx, 0, sizeof(*idx));
	idx->identifier = r->nr_attrs > 0;
	idx->sample_id_pos = r->nr_attrs ? sample_id_pos(r->attrs[0].attr.sample_type) : -1;
	idx->trailer_id_pos = r->nr_attrs ? trailer_id_pos(r->attrs[0].attr.sample_type) : -1;
	for (i = 0; i < r->nr_attrs; i++) {
		__u64 type = r->attrs[i].attr.sample_type;

		idx->identifier &= !!(type & PERF_SAMPLE_IDENTIFIER);
		/* perf refuses files whose attrs put the id in different places */
		if (sample_id_pos(type) != idx->sample_id_pos)
			idx->sample_id_pos = -1;
		if (trailer_id_pos(type) != idx->trailer_id_pos)
			idx->trailer_id_pos = -1;
		n += r->attrs[i].nr_ids;
	}
	pairs = xzalloc((n + 1) * sizeof(*pairs));
	n = 0;
	for (i = 0; i < r->nr_attrs; i++)
		for (k = 0; k < r->attrs[i].nr_ids; k++) {
			pairs[n].id = r->attrs[i].ids[k];
			pairs[n++].attr = i;
		}
	/* the id is the struct's first member: sorting pairs sorts by id */
	qsort(pairs, n, sizeof(*pairs), cmp_u64);
	idx->ids = xzalloc((n + 1) * sizeof(*idx->ids));
	idx->attr_idx = xzalloc((n + 1) * sizeof(*idx->attr_idx));
	for (k = 0; k < n; k++) {
		idx->ids[k] = pairs[k].id;
		idx->attr_idx[k] = pairs[k].attr;
	}
	idx->nr = n;
	free(pairs);
	return 0;
}

void data_id_index_free(struct data_id_index *idx)
{
	free(idx->ids);
	free(idx->attr_idx);
	memset(idx, 0, sizeof(*idx));
}

int data_id_index_find(const struct perf_data_reader *r, const struct data_id_index *idx,
		       __u64 id)
{
	__u32 lo = 0, hi = idx->nr;

	if (r->nr_attrs == 1)
		return 0;
	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (idx->ids[mid] == id)
			return idx->attr_idx[mid];
		if (idx->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A run of u64s in a record, read front to back with bounds checks. */
struct u64_cursor {
	const __u64 *p;
	size_t nr, pos;
};

static bool take(struct u64_cursor *c, __u64 *v)
{
	if (c->pos >= c->nr)
		return false;
	memcpy(v, c->p + c->pos++, 8);
	return true;
}

/*
 * Two u32s sharing a u64 (pid/tid, cpu/res). A foreign file's u64 was byte-swapped whole,
 * which also exchanged the two halves.
 */
static void split_u32s(const struct perf_data_reader *r, __u64 v, __u32 *first, __u32 *second)
{
	__u32 w[2];

	memcpy(w, &v, 8);
	*first = r->swap ? w[1] : w[0];
	*second = r->swap ? w[0] : w[1];
}

static int weight(__u64 mask)
{
	return __builtin_popcountll(mask);
}

/* Skips n u64s; false if they are not there. */
static bool skip(struct u64_cursor *c, __u64 n)
{
	if (n > c->nr - c->pos)
		return false;
	c->pos += n;
	return true;
}

static int decode_read(const struct perf_event_attr *a, struct u64_cursor *c,
		       struct data_sample *s)
{
	__u64 fmt = a->read_format, nr = 1, per = 1 + !!(fmt & PERF_FORMAT_ID) +
		!!(fmt & PERF_FORMAT_LOST);
	size_t start = c->pos;
	__u64 words;

	if (fmt & PERF_FORMAT_GROUP) {
		if (!take(c, &nr))
			return -1;
		words = !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
		if (nr > (c->nr - c->pos) / per)
			return -1;
		words += nr * per;
	} else {
		words = per + !!(fmt & PERF_FORMAT_TOTAL_TIME_ENABLED) +
			!!(fmt & PERF_FORMAT_TOTAL_TIME_RUNNING);
	}
	if (!skip(c, words))
		return -1;
	s->read = c->p + start;
	s->nr_read = c->pos - start;
	return 0;
}

static int decode_tail(const struct perf_event_attr *a, struct u64_cursor *c,
		       struct data_sample *s, const struct perf_data_reader *r)
{
	__u64 type = a->sample_type, v, n;
	__u32 size, pad;

	if (type & PERF_SAMPLE_READ && decode_read(a, c, s))
		return -1;
	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (!take(c, &s->nr_callchain))
			return -1;
		s->callchain = c->p + c->pos;
		if (!skip(c, s->nr_callchain))
			return -1;
	}
	if (type & PERF_SAMPLE_RAW) {
		if (!take(c, &v))
			return -1;
		split_u32s(r, v, &size, &pad);
		/* the u32 size and the data end on a u64 boundary */
		if ((4 + (__u64)size) % 8 || (size - 4) / 8 > c->nr - c->pos)
			return -1;
		s->raw = (const unsigned char *)(c->p + c->pos - 1) + 4;
		s->raw_size = size;
		c->pos += (size - 4) / 8;
	}
	if (type & PERF_SAMPLE_BRANCH_STACK) {
		if (!take(c, &n))
			return -1;
		if (a->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX && !skip(c, 1))
			return -1;
		if (n > c->nr || !skip(c, 3 * n))
			return -1;
	}
	if (type & PERF_SAMPLE_REGS_USER) {
		if (!take(c, &v) || (v && !skip(c, weight(a->sample_regs_user))))
			return -1;
	}
	if (type & PERF_SAMPLE_STACK_USER) {
		if (!take(c, &n) || n % 8 || !skip(c, n / 8) || (n && !skip(c, 1)))
			return -1;
	}
	if (type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_DATA_SRC && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_TRANSACTION && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_REGS_INTR) {
		if (!take(c, &v) || (v && !skip(c, weight(a->sample_regs_intr))))
			return -1;
	}
	if (type & PERF_SAMPLE_PHYS_ADDR && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_CGROUP && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE && !skip(c, 1))
		return -1;
	if (type & PERF_SAMPLE_AUX) {
		if (!take(c, &n) || n % 8 || !skip(c, n / 8))
			return -1;
	}
	return 0;
}

static int sample_attr(const struct perf_data_reader *r, const struct data_id_index *idx,
		       const struct u64_cursor *c)
{
	__u64 id;

	if (r->nr_attrs == 1)
		return 0;
	if (idx->identifier && c->nr >= 1) {
		memcpy(&id, c->p, 8);
		return data_id_index_find(r, idx, id);
	}
	if (idx->sample_id_pos >= 0 && (size_t)idx->sample_id_pos < c->nr) {
		memcpy(&id, c->p + idx->sample_id_pos, 8);
		return data_id_index_find(r, idx, id);
	}
	return -1;
}

int data_decode_sample(struct perf_data_reader *r, const struct data_id_index *idx,
		       const struct data_record *rec, struct data_sample *s)
{
	struct u64_cursor c = {
		.p = (const __u64 *)((const char *)rec->data + sizeof(struct rec_header)),
		.nr = (rec->header.size - sizeof(struct rec_header)) / 8,
	};
	const struct perf_event_attr *a;
	__u64 type, v = 0;
	bool ok = true;

	memset(s, 0, sizeof(*s));
	s->sid.attr_idx = sample_attr(r, idx, &c);
	if (s->sid.attr_idx < 0)
		return data_error(r, rec->offset, "sample of an unknown event");
	a = &r->attrs[s->sid.attr_idx].attr;
	type = a->sample_type;
	if (type & PERF_SAMPLE_IDENTIFIER)
		ok &= take(&c, &s->sid.id);
	if (type & PERF_SAMPLE_IP)
		ok &= s->has_ip = take(&c, &s->ip);
	if (type & PERF_SAMPLE_TID) {
		ok &= s->sid.has_tid = take(&c, &v);
		split_u32s(r, v, &s->sid.pid, &s->sid.tid);
	}
	if (type & PERF_SAMPLE_TIME)
		ok &= s->sid.has_time = take(&c, &s->sid.time);
	if (type & PERF_SAMPLE_ADDR)
		ok &= s->has_addr = take(&c, &s->addr);
	if (type & PERF_SAMPLE_ID)
		ok &= take(&c, &s->sid.id);
	if (type & PERF_SAMPLE_STREAM_ID)
		ok &= take(&c, &s->sid.stream_id);
	if (type & PERF_SAMPLE_CPU) {
		__u32 res;

		ok &= s->sid.has_cpu = take(&c, &v);
		split_u32s(r, v, &s->sid.cpu, &res);
	}
	if (type & PERF_SAMPLE_PERIOD)
		ok &= s->has_period = take(&c, &s->period);
	if (!ok || decode_tail(a, &c, s, r))
		return data_error(r, rec->offset, "sample of %u bytes is too short for its "
				  "sample_type %#llx", rec->header.size,
				  (unsigned long long)type);
	if (!s->has_period)
		s->period = a->freq ? 1 : a->sample_period;
	return 0;
}

static __u64 trailer_u64(const struct perf_data_reader *r, const unsigned char *p)
{
	__u64 v;

	memcpy(&v, p, 8);
	return r->swap ? bswap_64(v) : v;
}

int data_decode_sample_id(struct perf_data_reader *r, const struct data_id_index *idx,
			  const struct data_record *rec, size_t fixed, struct data_sample_id *sid)
{
	const unsigned char *end = (const unsigned char *)rec->data + rec->header.size, *p;
	const struct perf_event_attr *a;
	__u64 type, v;
	size_t n;

	memset(sid, 0, sizeof(*sid));
	sid->attr_idx = -1;
	if (!r->nr_attrs)
		return 0;
	if (r->nr_attrs == 1) {
		sid->attr_idx = 0;
	} else if (idx->trailer_id_pos > 0) {
		if (rec->header.size < fixed + 8 * idx->trailer_id_pos)
			return data_error(r, rec->offset, "%s record too short for its sample id",
					  data_record_name(rec->header.type));
		v = trailer_u64(r, end - 8 * idx->trailer_id_pos);
		sid->attr_idx = data_id_index_find(r, idx, v);
	}
	if (sid->attr_idx < 0)
		return 0;
	a = &r->attrs[sid->attr_idx].attr;
	if (!a->sample_id_all)
		return 0;
	type = a->sample_type;
	n = !!(type & PERF_SAMPLE_TID) + !!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ID) +
	    !!(type & PERF_SAMPLE_STREAM_ID) + !!(type & PERF_SAMPLE_CPU) +
	    !!(type & PERF_SAMPLE_IDENTIFIER);
	if (rec->header.size < fixed + 8 * n)
		return data_error(r, rec->offset, "%s record of %u bytes too short for its "
				  "sample id", data_record_name(rec->header.type),
				  rec->header.size);
	p = end - 8 * n;
	if (type & PERF_SAMPLE_TID) {
		sid->has_tid = true;
		split_u32s(r, trailer_u64(r, p), &sid->pid, &sid->tid);
		p += 8;
	}
	if (type & PERF_SAMPLE_TIME) {
		sid->has_time = true;
		sid->time = trailer_u64(r, p);
		p += 8;
	}
	if (type & PERF_SAMPLE_ID) {
		sid->id = trailer_u64(r, p);
		p += 8;
	}
	if (type & PERF_SAMPLE_STREAM_ID) {
		sid->stream_id = trailer_u64(r, p);
		p += 8;
	}
	if (type & PERF_SAMPLE_CPU) {
		__u32 res;

		sid->has_cpu = true;
		split_u32s(r, trailer_u64(r, p), &sid->cpu, &res);
		p += 8;
	}
	if (type & PERF_SAMPLE_IDENTIFIER)
		sid->id = trailer_u64(r, p);
	return 0;
}

size_t data_record_fixed_size(const struct data_record *rec)
{
	switch (rec->header.type) {
	case REC_MMAP:
		return 40;
	case REC_MMAP2:
		return 72;
	case REC_COMM:
	case REC_LOST_SAMPLES:
		return 16;
	case REC_FORK:
	case REC_EXIT:
	case REC_THROTTLE:
	case REC_UNTHROTTLE:
		return 32;
	case REC_LOST:
	case REC_KSYMBOL:
		return 24;
	default:
		return sizeof(struct rec_header);
	}
}

static int too_short(struct perf_data_reader *r, const struct data_record *rec)
{
	return data_error(r, rec->offset, "%s record of %u bytes, at least %zu needed",
			  data_record_name(rec->header.type), rec->header.size,
			  data_record_fixed_size(rec) + 1);
}

/* A NUL-terminated string from offset off to the record's end. */
static const char *record_string(const struct data_record *rec, size_t off)
{
	const char *s = (const char *)rec->data + off;

	return memchr(s, '\0', rec->header.size - off) ? s : NULL;
}

int data_decode_mmap(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_mmap *m)
{
	const unsigned char *p = rec->data;
	size_t fixed = data_record_fixed_size(rec);

	memset(m, 0, sizeof(*m));
	if (rec->header.size <= fixed)
		return too_short(r, rec);
	memcpy(&m->pid, p + 8, 4);
	memcpy(&m->tid, p + 12, 4);
	memcpy(&m->start, p + 16, 8);
	memcpy(&m->len, p + 24, 8);
	memcpy(&m->pgoff, p + 32, 8);
	if (rec->header.type == REC_MMAP2) {
		if (rec->header.misc & REC_MISC_MMAP_BUILD_ID) {
			m->build_id_size = p[40] <= 20 ? p[40] : 20;
			m->build_id = p + 44;
		}
		memcpy(&m->prot, p + 64, 4);
		memcpy(&m->flags, p + 68, 4);
	} else if (!(rec->header.misc & REC_MISC_MMAP_DATA)) {
		m->prot = PROT_EXEC;	/* perf's reading of an MMAP: code unless marked data */
	}
	m->filename = record_string(rec, fixed);
	if (!m->filename)
		return data_error(r, rec->offset, "%s file name is not NUL-terminated",
				  data_record_name(rec->header.type));
	return 0;
}

int data_decode_comm(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_comm *c)
{
	const unsigned char *p = rec->data;

	memset(c, 0, sizeof(*c));
	if (rec->header.size <= 16)
		return too_short(r, rec);
	memcpy(&c->pid, p + 8, 4);
	memcpy(&c->tid, p + 12, 4);
	c->exec = rec->header.misc & REC_MISC_COMM_EXEC;
	c->comm = record_string(rec, 16);
	if (!c->comm)
		return data_error(r, rec->offset, "COMM name is not NUL-terminated");
	return 0;
}

int data_decode_fork(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_fork *f)
{
	const unsigned char *p = rec->data;

	memset(f, 0, sizeof(*f));
	if (rec->header.size < 32)
		return too_short(r, rec);
	memcpy(&f->pid, p + 8, 4);
	memcpy(&f->ppid, p + 12, 4);
	memcpy(&f->tid, p + 16, 4);
	memcpy(&f->ptid, p + 20, 4);
	memcpy(&f->time, p + 24, 8);
	return 0;
}
