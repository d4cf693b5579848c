// SPDX-License-Identifier: GPL-2.0-only
/*
 * Writes a synthetic `perf stat record` file with the bperf writer: any number of CPUs,
 * events and interval rounds, in either byte order. For tests and benchmarks of the reader
 * where the machine has too few CPUs to record such a file.
 *
 *	synth-stat-data -o FILE [-c CPUS] [-e EVENTS] [-r ROUNDS] [-I MS] [--swap]
 *			[--attr-extra BYTES]
 *
 * --swap writes the other byte order (a big-endian host's file here); --attr-extra makes each
 * attr that many bytes longer, as a newer perf's would be.
 *
 * Events cycle through cpu-clock, context-switches, page-faults and cpu-migrations; values
 * grow with the round so that each interval has non-zero deltas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/writer.h"

static const struct {
	const char *name;
	__u64 config;
} sw_events[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
};

struct synth_args {
	const char *path;
	int cpus, events, rounds, interval_ms;
	bool swap;
	unsigned int attr_extra;
};

static int parse_args(int argc, char **argv, struct synth_args *a)
{
	int i;

	*a = (struct synth_args){ .cpus = 64, .events = 2, .rounds = 100, .interval_ms = 100 };
	for (i = 1; i < argc; i++) {
		const char *next = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--swap")) {
			a->swap = true;
			continue;
		}
		if (!next)
			return -1;
		if (!strcmp(argv[i], "-o"))
			a->path = next;
		else if (!strcmp(argv[i], "-c"))
			a->cpus = atoi(next);
		else if (!strcmp(argv[i], "-e"))
			a->events = atoi(next);
		else if (!strcmp(argv[i], "-r"))
			a->rounds = atoi(next);
		else if (!strcmp(argv[i], "-I"))
			a->interval_ms = atoi(next);
		else if (!strcmp(argv[i], "--attr-extra"))
			a->attr_extra = atoi(next);
		else
			return -1;
		i++;
	}
	return a->path && a->cpus > 0 && a->cpus <= 4096 && a->events > 0 && a->events <= 64 &&
	       a->rounds >= 0 && a->interval_ms >= 0 ? 0 : -1;
}

/* a final-only file still needs a non-zero time */
static __u64 round_ns(const struct synth_args *a)
{
	return a->interval_ms ? a->interval_ms * 1000000ull : 1000000000ull;
}

static void write_counts(struct perf_data_writer *w, const struct synth_args *a, int round)
{
	__u64 ns = (__u64)round * round_ns(a);
	int ev, cpu;

	for (cpu = 0; cpu < a->cpus; cpu++) {
		for (ev = 0; ev < a->events; ev++) {
			__u64 id = 1 + (__u64)ev * a->cpus + cpu;
			__u64 val = ev % 4 == 0 ? ns - ns / (cpu + 3) :
						  (__u64)round * (ev * 7 + cpu);

			data_write_stat(w, id, cpu, 0, val, ns, ns);
		}
	}
}

int main(int argc, char **argv)
{
	struct synth_args a;
	struct perf_data_writer w;
	struct data_event *events;
	__u64 *ids;
	int cpus_list[4096], pid = -1, ev, cpu, round;

	if (parse_args(argc, argv, &a)) {
		fprintf(stderr, "usage: %s -o FILE [-c CPUS] [-e EVENTS] [-r ROUNDS] [-I MS] "
				"[--swap] [--attr-extra BYTES]\n", argv[0]);
		return 129;
	}
	if (data_writer_open(&w, a.path, a.swap))
		return 1;
	w.attr_extra = a.attr_extra & ~7u;
	events = calloc(a.events, sizeof(*events));
	ids = calloc((size_t)a.events * a.cpus, sizeof(*ids));
	for (ev = 0; ev < a.events; ev++) {
		struct data_event *e = &events[ev];

		e->attr.type = PERF_TYPE_SOFTWARE;
		e->attr.size = sizeof(e->attr);
		e->attr.config = sw_events[ev % 4].config;
		e->attr.sample_type = PERF_SAMPLE_IDENTIFIER;
		e->attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
		e->attr.disabled = 1;
		e->attr.inherit = 1;
		e->name = sw_events[ev % 4].name;
		e->ids = ids + (size_t)ev * a.cpus;
		e->nr_ids = a.cpus;
		e->scale = 1.0;
		e->leader_idx = ev;
		e->nr_members = 1;
		for (cpu = 0; cpu < a.cpus; cpu++)
			ids[(size_t)ev * a.cpus + cpu] = 1 + (__u64)ev * a.cpus + cpu;
	}
	for (cpu = 0; cpu < a.cpus; cpu++)
		cpus_list[cpu] = cpu;
	data_writer_begin(&w, events, a.events);
	for (ev = 0; ev < a.events; ev += 4) {
		data_write_event_update_unit(&w, events[ev].ids[0], "msec");
		data_write_event_update_scale(&w, events[ev].ids[0], 1e-6);
	}
	data_write_thread_map(&w, &pid, NULL, 1);
	data_write_cpu_map(&w, cpus_list, a.cpus);
	data_write_stat_config(&w, 1, a.interval_ms, true);
	for (round = 1; round <= a.rounds; round++) {
		write_counts(&w, &a, round);
		data_write_stat_round(&w, a.interval_ms ? STAT_ROUND_INTERVAL : STAT_ROUND_FINAL,
				      (__u64)round * round_ns(&a) + 123);
	}
	data_write_kernel_mmap(&w);
	{
		struct data_features f = {
			.events = events,
			.nr_events = a.events,
			.argv = (const char *const *)argv + 1,
			.argc = argc - 1,
			.version = "bperf synth",
		};
		int err = data_writer_finish(&w, &f);

		data_writer_close(&w);
		free(events);
		free(ids);
		return err ? 1 : 0;
	}
}
