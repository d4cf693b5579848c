// SPDX-License-Identifier: GPL-2.0-only
/*
 * Glue between a counting session and the perf.data writer. Event ids are bperf's own
 * numbers: the file only needs them to map each STAT record to its attr, and shared BPF
 * counters have no kernel event per session to take an id from.
 */
#include "stat_record.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "../data/writer.h"

#define BPERF_DATA_VERSION "bperf 0.1.0"

struct stat_recorder {
	struct perf_data_writer w;
	int argc;
	const char **argv;
	int nr_events;
	struct data_event *events;
	__u64 **ids;		/* [ev][cpu_idx * nr_threads + thread] */
	bool started;
	bool finished;
	int nr_rounds;
};

struct stat_recorder *stat_recorder_open(const char *path, int argc, const char **argv)
{
	struct stat_recorder *rec = xzalloc(sizeof(*rec));

	if (data_writer_open(&rec->w, path, false)) {
		free(rec);
		return NULL;
	}
	rec->argc = argc;
	rec->argv = argv;
	return rec;
}

static __u64 file_aggr_mode(enum aggr_mode mode)
{
	switch (mode) {
	case AGGR_NONE:
		return FILE_AGGR_NONE;
	case AGGR_THREAD:
		return FILE_AGGR_THREAD;
	case AGGR_CORE:
		return FILE_AGGR_CORE;
	case AGGR_DIE:
		return FILE_AGGR_DIE;
	case AGGR_SOCKET:
		return FILE_AGGR_SOCKET;
	case AGGR_NODE:
		return FILE_AGGR_NODE;
	case AGGR_GLOBAL:
		break;
	}
	return FILE_AGGR_GLOBAL;
}

/* Ids in open order, CPU by CPU, as perf's interleave. */
static void assign_ids(struct stat_recorder *rec, const struct stat_session *s)
{
	int nr_cpus = s->target.cpus.nr, nr_threads = s->target.threads.nr;
	__u64 next = 1;
	int cpu, ev, t;

	rec->ids = xzalloc(s->evlist->nr * sizeof(*rec->ids));
	for (ev = 0; ev < s->evlist->nr; ev++)
		if (s->supported[ev])
			rec->ids[ev] = xzalloc((size_t)nr_cpus * nr_threads * sizeof(__u64));
	for (cpu = 0; cpu < nr_cpus; cpu++)
		for (ev = 0; ev < s->evlist->nr; ev++)
			for (t = 0; rec->ids[ev] && t < nr_threads; t++)
				rec->ids[ev][cpu * nr_threads + t] = next++;
}

int stat_recorder_start(struct stat_recorder *rec, const struct stat_session *s)
{
	const struct stat_options *o = s->opts;
	const struct target *t = &s->target;
	int nr_ids = t->cpus.nr * t->threads.nr, ev;

	assign_ids(rec, s);
	rec->nr_events = s->evlist->nr;
	rec->events = xzalloc(rec->nr_events * sizeof(*rec->events));
	for (ev = 0; ev < rec->nr_events; ev++) {
		const struct evsel *e = &s->evlist->entries[ev];
		struct data_event *d = &rec->events[ev];

		d->attr = e->attr;
		/* perf stat record asks for the id in every read, but not into a pipe */
		if (!rec->w.pipe)
			d->attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
		d->name = e->name;
		d->ids = rec->ids[ev];
		d->nr_ids = rec->ids[ev] ? nr_ids : 0;
		d->unit = e->unit;
		d->scale = e->scale;
		d->leader_idx = e->leader_idx;
		d->nr_members = e->nr_members;
		d->group_name = e->group_name;
	}
	if (data_writer_begin(&rec->w, rec->events, rec->nr_events))
		return EXIT_FATAL;
	for (ev = 0; ev < rec->nr_events; ev++) {
		const struct data_event *d = &rec->events[ev];

		if (!d->nr_ids)
			continue;
		if (d->unit && d->unit[0])
			data_write_event_update_unit(&rec->w, d->ids[0], d->unit);
		if (d->scale != 1.0)
			data_write_event_update_scale(&rec->w, d->ids[0], d->scale);
		/* a pipe has no EVENT_DESC feature: names travel as records */
		if (rec->w.pipe)
			data_write_event_update_name(&rec->w, d->ids[0], d->name);
	}
	data_write_thread_map(&rec->w, t->threads.tids,
			      o->aggr_mode == AGGR_THREAD ? t->threads.comms : NULL, t->threads.nr);
	data_write_cpu_map(&rec->w, t->cpus.cpus, t->cpus.nr);
	data_write_stat_config(&rec->w, file_aggr_mode(o->aggr_mode), o->interval_ms, o->scale);
	rec->started = true;
	return rec->w.error ? EXIT_FATAL : 0;
}

void stat_recorder_counts(struct stat_recorder *rec, const struct stat_session *s)
{
	int ev, cpu, t;

	for (ev = 0; ev < s->evlist->nr && ev < rec->nr_events; ev++) {
		const struct counter *c = &s->counters[ev];

		if (!rec->ids[ev])
			continue;
		for (cpu = 0; cpu < c->nr_cpus; cpu++) {
			for (t = 0; t < c->nr_threads; t++) {
				int i = cpu * c->nr_threads + t;
				const struct raw_count *v = &c->counts[i];

				data_write_stat(&rec->w, rec->ids[ev][i], s->target.cpus.cpus[cpu], t,
						v->val, v->ena, v->run);
			}
		}
	}
}

void stat_recorder_round(struct stat_recorder *rec, bool final, __u64 time_ns)
{
	if (final)
		data_write_kernel_mmap(&rec->w);
	rec->nr_rounds++;
	data_write_stat_round(&rec->w, final ? STAT_ROUND_FINAL : STAT_ROUND_INTERVAL, time_ns);
}

int stat_recorder_finish(struct stat_recorder *rec, bool interval)
{
	struct data_features f = {
		.events = rec->events,
		.nr_events = rec->nr_events,
		.argv = rec->argv,
		.argc = rec->argc,
		.version = BPERF_DATA_VERSION,
	};

	if (!rec->started || rec->finished)
		return 0;
	rec->finished = true;
	/* with -I the last read has no round of its own, as perf leaves it */
	if (interval)
		data_write_kernel_mmap(&rec->w);
	/* nothing was counted (the workload could not run): perf ends with an empty final round */
	else if (!rec->nr_rounds)
		stat_recorder_round(rec, true, 0);
	return data_writer_finish(&rec->w, &f) ? EXIT_FATAL : 0;
}

void stat_recorder_free(struct stat_recorder *rec)
{
	int ev;

	if (!rec)
		return;
	/* the events could not even be opened: no empty file that no reader accepts */
	if (!rec->started && !rec->w.pipe && rec->w.path)
		unlink(rec->w.path);
	data_writer_close(&rec->w);
	for (ev = 0; ev < rec->nr_events; ev++)
		free(rec->ids[ev]);
	free(rec->ids);
	free(rec->events);
	free(rec);
}
