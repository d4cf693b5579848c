// SPDX-License-Identifier: GPL-2.0-only
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../events/evlist.h"

/* Messages about single bad records stop after this many; the count is kept. */
#define MAX_RECORD_MESSAGES 10

int data_build_id_next(const struct perf_data_reader *r, const struct feat_cursor *c,
		       size_t *pos, struct data_build_id *e)
{
	const unsigned char *p = c->data + *pos;
	struct rec_header h;
	const char *name;

	if (c->size - *pos < 36)
		return 0;
	memcpy(&h, p, sizeof(h));
	memcpy(&e->pid, p + 8, sizeof(e->pid));
	if (r->swap) {
		h.size = __builtin_bswap16(h.size);
		h.misc = __builtin_bswap16(h.misc);
		e->pid = (__s32)__builtin_bswap32((__u32)e->pid);
	}
	e->size = h.size;
	if (h.size < 37 || h.size > c->size - *pos)
		return -EINVAL;
	e->id = p + 12;
	e->id_size = 20;
	/* PERF_RECORD_MISC_BUILD_ID_SIZE: the size byte after the 20 id bytes is valid */
	if (h.misc & (1 << 15) && p[32] <= 20)
		e->id_size = p[32];
	name = (const char *)p + 36;
	e->filename = memchr(name, '\0', h.size - 36) && name[0] ? name : NULL;
	*pos += h.size;
	return 1;
}

/* HEADER_BUILD_ID: perf_record_header_build_id entries, each a header, pid, id and name. */
static int read_build_ids(struct data_session *s)
{
	struct feat_cursor c;
	struct data_build_id e;
	int ret = feat_cursor_load(&s->r, FEAT_BUILD_ID, &c);
	size_t pos = 0;

	if (ret <= 0)
		return ret;
	while ((ret = data_build_id_next(&s->r, &c, &pos, &e)) > 0)
		if (e.filename)
			data_dso_set_build_id(data_dsos_get(&s->machine.dsos, e.filename), e.id,
					      e.id_size);
	/* the entry that does not fit is where pos stopped */
	if (ret < 0)
		ret = data_error(&s->r, c.offset + pos, "build id entry of %u bytes", e.size);
	feat_cursor_free(&c);
	return ret;
}

/* perf's position of the event id in a sample and in a record's trailer, -1 if it has none */
static int perf_id_pos(__u64 type, bool trailer)
{
	if (type & PERF_SAMPLE_IDENTIFIER)
		return trailer ? 1 : 0;
	if (!(type & PERF_SAMPLE_ID))
		return -1;
	if (trailer)
		return 1 + !!(type & PERF_SAMPLE_CPU) + !!(type & PERF_SAMPLE_STREAM_ID);
	return !!(type & PERF_SAMPLE_IP) + !!(type & PERF_SAMPLE_TID) +
	       !!(type & PERF_SAMPLE_TIME) + !!(type & PERF_SAMPLE_ADDR);
}

/*
 * The attrs must let a reader tell each record's event, as perf requires: with several, each
 * has the id where the first has it, and all agree on sample_id_all; PERF_SAMPLE_READ needs
 * the values' ids. perf refuses other files ("non matching sample_type", ...): so does bperf.
 */
static int check_attrs(struct perf_data_reader *r)
{
	const struct perf_event_attr *first = &r->attrs[0].attr;
	int i;

	for (i = 1; i < r->nr_attrs; i++) {
		const struct perf_event_attr *a = &r->attrs[i].attr;
		__u64 at = r->header.attrs.offset + i * r->header.attr_size;

		if (perf_id_pos(a->sample_type, false) != perf_id_pos(first->sample_type, false) ||
		    perf_id_pos(a->sample_type, true) != perf_id_pos(first->sample_type, true) ||
		    perf_id_pos(a->sample_type, false) < 0)
			return data_error(r, at, "attr %d: sample_type %#llx does not place "
					  "the event id as the first attr's %#llx does (perf: non "
					  "matching sample_type)", i, (unsigned long long)a->sample_type,
					  (unsigned long long)first->sample_type);
		if (a->sample_id_all != first->sample_id_all)
			return data_error(r, at, "attr %d: sample_id_all differs from the first "
					  "attr's (perf: non matching sample_id_all)", i);
	}
	if (r->nr_attrs && first->sample_type & PERF_SAMPLE_READ &&
	    !(first->read_format & PERF_FORMAT_ID))
		return data_error(r, r->header.attrs.offset, "PERF_SAMPLE_READ without "
				  "PERF_FORMAT_ID (perf: non matching read_format)");
	return 0;
}

int data_session_open(struct data_session *s, const char *path)
{
	int err, i;

	memset(s, 0, sizeof(*s));
	data_machine_init(&s->machine);
	err = data_reader_open_partial(&s->r, path);
	if (err)
		return err;
	if (s->r.pipe) {
		pr_err("bperf: %s: perf's pipe format is not supported by bperf data", path);
		return -EINVAL;
	}
	err = check_attrs(&s->r);
	if (err)
		return err;
	data_id_index_build(&s->r, &s->idx);
	s->attr_samples = xzalloc((s->r.nr_attrs + 1) * sizeof(*s->attr_samples));
	s->attr_names = xzalloc((s->r.nr_attrs + 1) * sizeof(*s->attr_names));
	for (i = 0; i < s->r.nr_attrs; i++)
		s->attr_names[i] = evsel_name_from_attr(&s->r.attrs[i].attr);
	/*
	 * names and build ids only help: a damaged section leaves them out, not the samples, but
	 * the file is damaged all the same
	 */
	if (data_env_read(&s->r, &s->env)) {
		data_env_free(&s->env);
		s->damaged = true;
	}
	if (read_build_ids(s))
		s->damaged = true;
	return 0;
}

const char *data_session_event_name(const struct data_session *s, int attr_idx)
{
	if (attr_idx < 0 || attr_idx >= s->r.nr_attrs)
		return "unknown";
	if (attr_idx < s->env.nr_events && s->env.events[attr_idx].name)
		return s->env.events[attr_idx].name;
	return s->attr_names[attr_idx];
}

static int sample_id_of(struct data_session *s, const struct data_record *rec,
			struct data_sample_id *sid)
{
	return data_decode_sample_id(&s->r, &s->idx, rec, data_record_fixed_size(rec), sid);
}

/* Takes a record into the processes, in time order. */
static int apply(struct data_session *s, const struct data_record *rec, __u64 time,
		 struct data_sample *smp, struct data_location *loc)
{
	struct data_machine *m = &s->machine;
	struct data_mmap mm;
	struct data_comm cm;
	struct data_fork fk;
	struct data_process *p;

	switch (rec->header.type) {
	case REC_SAMPLE:
		if (data_decode_sample(&s->r, &s->idx, rec, smp))
			return -EINVAL;
		s->attr_samples[smp->sid.attr_idx]++;
		if (!s->resolve)
			return 0;
		data_machine_resolve(m, smp->sid.pid, rec->header.misc & REC_MISC_CPUMODE_MASK,
				     smp->ip, loc);
		p = data_machine_process(m, smp->sid.pid);
		p->samples++;
		p->period += smp->period;
		data_machine_thread_seen(m, smp->sid.pid, smp->sid.tid);
		return 0;
	case REC_MMAP:
	case REC_MMAP2:
		if (data_decode_mmap(&s->r, rec, &mm))
			return -EINVAL;
		data_machine_mmap(m, &mm);
		return 0;
	case REC_COMM:
		if (data_decode_comm(&s->r, rec, &cm))
			return -EINVAL;
		data_machine_comm(m, cm.pid, cm.tid, cm.comm);
		return 0;
	case REC_FORK:
		if (data_decode_fork(&s->r, rec, &fk))
			return -EINVAL;
		data_machine_fork(m, fk.pid, fk.ppid, fk.tid, time);
		data_machine_thread_seen(m, fk.pid, fk.tid);
		return 0;
	case REC_EXIT:
		if (data_decode_fork(&s->r, rec, &fk))
			return -EINVAL;
		data_machine_exit(m, fk.pid, fk.tid, time);
		return 0;
	default:
		return 0;
	}
}

static int deliver(void *ctx, const struct data_record *rec, __u64 time)
{
	struct data_session *s = ctx;
	struct data_location loc = { 0 };
	struct data_sample smp = { 0 };

	/* a bad record is reported and left out; the others still count */
	s->r.quiet = s->bad_records >= MAX_RECORD_MESSAGES;
	if (apply(s, rec, time, &smp, &loc)) {
		s->bad_records++;
		rec = NULL;
	}
	s->r.quiet = false;
	if (!rec || !s->ops || !s->ops->ordered)
		return 0;
	return s->ops->ordered(s->ctx, s, rec,
			       rec->header.type == REC_SAMPLE ? &smp : NULL,
			       rec->header.type == REC_SAMPLE && s->resolve ? &loc : NULL);
}

/* The time a record sorts by; false if it has none (delivered as it comes). */
static bool record_time(struct data_session *s, const struct data_record *rec, __u64 *time)
{
	struct data_sample_id sid;
	struct data_sample smp;
	bool ok;

	if (rec->header.type >= 64)
		return false;
	/* a bad record goes out at once and is reported then, once */
	s->r.quiet = true;
	if (rec->header.type == REC_SAMPLE) {
		ok = !data_decode_sample(&s->r, &s->idx, rec, &smp) && smp.sid.has_time;
		*time = smp.sid.time;
	} else {
		ok = !sample_id_of(s, rec, &sid) && sid.has_time;
		*time = sid.time;
	}
	s->r.quiet = false;
	return ok;
}

/*
 * A record of a type perf 6.1 does not know: perf stops at a user type past its last ("failed
 * to process type"), counts a kernel type as an unknown event ("a perf.data file generated by
 * a more recent tool?") and fails. bperf says so and leaves the record out.
 */
static void unknown_record(struct data_session *s, const struct data_record *rec)
{
	s->r.quiet = s->bad_records++ >= MAX_RECORD_MESSAGES;
	if (rec->header.type >= 64)
		data_error(&s->r, rec->offset, "failed to process type: %u (a record of %u bytes "
			   "of no type perf knows, left out)", rec->header.type, rec->header.size);
	else
		data_error(&s->r, rec->offset, "unknown record type %u (%u bytes) left out: is "
			   "the file from a more recent perf?", rec->header.type, rec->header.size);
	s->r.quiet = false;
}

/* What the recording lost, as perf report warns of it: lines on stderr, but no damage. */
static void count_lost(struct data_session *s, const struct data_record *rec)
{
	__u64 lost;

	if (rec->header.type == REC_LOST) {
		s->lost_chunks++;
	} else if (rec->header.type == REC_LOST_SAMPLES && rec->header.size >= 16) {
		memcpy(&lost, (const char *)rec->data + 8, sizeof(lost));
		s->lost_samples += lost;
	}
}

static void warn_lost(const struct data_session *s)
{
	__u64 samples = s->counts[REC_SAMPLE] + s->lost_samples;

	if (s->lost_chunks)
		pr_err("bperf: %s: processed %llu events and lost %llu chunks: check IO/CPU "
		       "overload", s->r.path, (unsigned long long)s->total,
		       (unsigned long long)s->lost_chunks);
	/* perf's threshold: more than 5% of the samples */
	if (samples && s->lost_samples * 20 > samples)
		pr_err("bperf: %s: processed %llu samples and lost %3.2f%%", s->r.path,
		       (unsigned long long)samples, 100.0 * s->lost_samples / samples);
}

int data_session_run(struct data_session *s)
{
	struct data_record rec;
	__u64 time;
	int ret;

	ordered_queue_init(&s->queue, s->queue_max_bytes, deliver, s);
	while ((ret = data_reader_next(&s->r, &rec)) > 0) {
		s->total++;
		s->counts[rec.header.type < REC_TYPE_MAX ? rec.header.type : 0]++;
		if (s->ops && s->ops->record && (ret = s->ops->record(s->ctx, s, &rec)))
			break;
		count_lost(s, &rec);
		if (!data_record_name(rec.header.type))
			unknown_record(s, &rec);
		else if (rec.header.type == REC_FINISHED_ROUND)
			ret = ordered_queue_round(&s->queue);
		else if (record_time(s, &rec, &time))
			ret = ordered_queue_push(&s->queue, &rec, time);
		else
			ret = deliver(s, &rec, 0);
		if (ret)
			break;
	}
	/* what was read before any damage is still worth showing */
	if (ordered_queue_flush(&s->queue) && !ret)
		ret = -EINVAL;
	if (s->bad_records > MAX_RECORD_MESSAGES)
		pr_err("bperf: %s: %d bad records left out", s->r.path, s->bad_records);
	if (s->queue.nr_unordered)
		pr_err("bperf: %s: %llu records out of time order (older than records a round "
		       "delivered before them)", s->r.path,
		       (unsigned long long)s->queue.nr_unordered);
	warn_lost(s);
	/* the results are printed, but the file was damaged or odd: fail */
	if (!ret && (s->bad_records || s->queue.nr_unordered || s->damaged))
		ret = -EINVAL;
	/* the results are printed, but without what perf record -z compressed: say so, fail */
	if (s->counts[REC_COMPRESSED]) {
		pr_err("bperf: %s: %llu records compressed by perf record -z (zstd) are not read: "
		       "the results leave them out", s->r.path,
		       (unsigned long long)s->counts[REC_COMPRESSED]);
		if (!ret)
			ret = -EOPNOTSUPP;
	}
	return ret < 0 ? ret : 0;
}

void data_session_close(struct data_session *s)
{
	int i;

	ordered_queue_free(&s->queue);
	data_id_index_free(&s->idx);
	data_env_free(&s->env);
	data_machine_free(&s->machine);
	for (i = 0; s->attr_names && i < s->r.nr_attrs; i++)
		free(s->attr_names[i]);
	free(s->attr_names);
	data_reader_close(&s->r);
	free(s->attr_samples);
}
