// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf stat report`: each STAT_ROUND of the file becomes one print of the live printers,
 * with the counts since the previous round aggregated by aggregate.c, as perf's report does.
 */
#include "stat_report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "../util/proc.h"
#include "../counters/counter.h"
#include "../data/env.h"
#include "../data/reader.h"
#include "../data/records.h"
#include "../util/parse_options.h"
#include "../metrics/aggregate.h"
#include "../counters/open_error.h"
#include "run_stats.h"

/* (cpus x threads) cells over all events: keeps a hostile map from asking for gigabytes */
#define MAX_COUNT_CELLS (1u << 22)

struct id_entry {
	__u64 id;
	int ev;
};

struct report {
	const struct report_options *ro;
	struct perf_data_reader reader;
	struct data_env env;

	struct evlist evlist;
	bool *supported;		/* counts came for it: else <not supported> */
	__u64 **ev_ids;			/* [ev] the ids of each event (pipe mode: from records) */
	__u32 *ev_nr_ids;
	struct id_entry *ids;		/* sorted, for STAT and EVENT_UPDATE records */
	int nr_ids;
	bool ids_stale;			/* events were added since the table was built */
	__u64 total_ids;		/* over all events */

	struct target target;		/* the maps of the recording */
	bool have_threads, have_cpus;
	int *cpu_idx;			/* CPU number -> index in target.cpus, -1 if absent */
	enum aggr_mode file_mode;
	__u64 interval_ms;
	bool scale;

	/* set up at the first count */
	struct counter *counters;
	struct raw_count **prev;
	enum aggr_mode mode;
	struct aggr_id *aggr;
	int nr_aggr;
	int *cpu_aggr;			/* topology modes: CPU index -> aggregate */
	struct counter_value *values;
	struct run_stats *shadow;	/* perf's shadow stats: running means over rounds */
	double *shadow_means;
	struct run_stats walltime;
	unsigned int nr_printed;
	char *target_desc;
};

static int report_error(struct report *rp, __u64 offset, const char *what)
{
	return data_error(&rp->reader, offset, "%s", what);
}

static enum aggr_mode aggr_mode_from_file(__u64 v)
{
	switch (v) {
	case FILE_AGGR_NONE:
		return AGGR_NONE;
	case FILE_AGGR_SOCKET:
		return AGGR_SOCKET;
	case FILE_AGGR_DIE:
		return AGGR_DIE;
	case FILE_AGGR_CORE:
		return AGGR_CORE;
	case FILE_AGGR_THREAD:
		return AGGR_THREAD;
	case FILE_AGGR_NODE:
		return AGGR_NODE;
	default:
		return AGGR_GLOBAL;
	}
}

static int cmp_id_entry(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void build_id_table(struct report *rp)
{
	int ev, n = 0;
	__u32 k;

	for (ev = 0; ev < rp->evlist.nr; ev++)
		n += rp->ev_nr_ids[ev];
	free(rp->ids);
	rp->ids = xzalloc((n + 1) * sizeof(*rp->ids));
	rp->nr_ids = 0;
	for (ev = 0; ev < rp->evlist.nr; ev++)
		for (k = 0; k < rp->ev_nr_ids[ev]; k++)
			rp->ids[rp->nr_ids++] = (struct id_entry){ rp->ev_ids[ev][k], ev };
	qsort(rp->ids, rp->nr_ids, sizeof(*rp->ids), cmp_id_entry);
}

static int event_of_id(struct report *rp, __u64 id)
{
	struct id_entry key = { .id = id }, *e;

	if (rp->ids_stale) {
		build_id_table(rp);
		rp->ids_stale = false;
	}
	e = bsearch(&key, rp->ids, rp->nr_ids, sizeof(*rp->ids), cmp_id_entry);
	return e ? e->ev : -1;
}

static enum tool_event tool_of(const char *name)
{
	if (!strcmp(name, "duration_time"))
		return TOOL_DURATION_TIME;
	if (!strcmp(name, "user_time"))
		return TOOL_USER_TIME;
	if (!strcmp(name, "system_time"))
		return TOOL_SYSTEM_TIME;
	return TOOL_NONE;
}

static void add_event(struct report *rp, const struct perf_event_attr *attr, const char *name,
		      const __u64 *ids, __u32 nr_ids)
{
	struct evlist *el = &rp->evlist;
	struct evsel *e;
	int n = el->nr;

	el->entries = xrealloc(el->entries, (n + 1) * sizeof(*el->entries));
	rp->ev_ids = xrealloc(rp->ev_ids, (n + 1) * sizeof(*rp->ev_ids));
	rp->ev_nr_ids = xrealloc(rp->ev_nr_ids, (n + 1) * sizeof(*rp->ev_nr_ids));
	rp->supported = xrealloc(rp->supported, (n + 1) * sizeof(*rp->supported));
	e = &el->entries[n];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->parsed_attr = *attr;
	e->name = name ? xstrdup(name) : xasprintf("%u:%llu", attr->type,
						   (unsigned long long)attr->config);
	/* perf's defaults for a new evsel; the file's EVENT_UPDATE records override them */
	e->unit = "";
	e->scale = 1.0;
	e->idx = n;
	e->leader_idx = n;
	e->nr_members = 1;
	e->tool = tool_of(e->name);
	e->is_clock = attr->type == PERF_TYPE_SOFTWARE &&
		      (attr->config == PERF_COUNT_SW_CPU_CLOCK ||
		       attr->config == PERF_COUNT_SW_TASK_CLOCK);
	if (e->is_clock) {
		e->unit = "msec";
		e->scale = 1e-6;
	}
	rp->ev_ids[n] = xzalloc((nr_ids + 1) * sizeof(__u64));
	if (nr_ids)
		memcpy(rp->ev_ids[n], ids, nr_ids * sizeof(__u64));
	rp->ev_nr_ids[n] = nr_ids;
	rp->total_ids += nr_ids;
	/* as in perf's report, an event is supported once counts for it come (see on_stat) */
	rp->supported[n] = false;
	el->nr++;
}

/* File mode: the attrs of the header, named by EVENT_DESC (same order). */
static void events_from_header(struct report *rp)
{
	int i;

	for (i = 0; i < rp->reader.nr_attrs; i++) {
		const struct data_attr *a = &rp->reader.attrs[i];
		const char *name = i < rp->env.nr_events ? rp->env.events[i].name : NULL;

		add_event(rp, &a->attr, name, a->ids, a->nr_ids);
	}
	build_id_table(rp);
}

static int on_header_attr(struct report *rp, const struct data_record *rec)
{
	struct perf_event_attr attr;
	const __u64 *raw_ids;
	__u64 *ids;
	__u32 nr;

	if (rp->counters)
		return report_error(rp, rec->offset, "event attr after the first counts");
	if (data_decode_header_attr(&rp->reader, rec, &attr, &raw_ids, &nr))
		return -EINVAL;
	if (rp->evlist.nr >= DATA_MAX_ATTRS || rp->total_ids + nr > DATA_MAX_IDS)
		return report_error(rp, rec->offset, "too many event attrs or ids");
	/* the ids may be unaligned in the record */
	ids = xzalloc((nr + 1) * sizeof(__u64));
	memcpy(ids, raw_ids, nr * sizeof(__u64));
	add_event(rp, &attr, NULL, ids, nr);
	free(ids);
	rp->ids_stale = true;
	return 0;
}

static int on_event_update(struct report *rp, const struct data_record *rec)
{
	struct data_event_update u;
	struct evsel *e;
	int ev;

	if (data_decode_event_update(&rp->reader, rec, &u))
		return -EINVAL;
	ev = event_of_id(rp, u.id);
	if (ev < 0)
		return data_error(&rp->reader, rec->offset, "event update for unknown id %llu",
				  (unsigned long long)u.id);
	e = &rp->evlist.entries[ev];
	switch (u.type) {
	case EVENT_UPDATE_NAME:
		free(e->name);
		e->name = xstrdup(u.text);
		e->tool = tool_of(e->name);
		break;
	case EVENT_UPDATE_UNIT:
		if (e->unit_owned)
			free((char *)e->unit);
		e->unit = xstrdup(u.text);
		e->unit_owned = true;
		break;
	case EVENT_UPDATE_SCALE:
		e->scale = u.scale;
		break;
	default:
		break;	/* CPUS: the counts carry their CPU numbers anyway */
	}
	return 0;
}

static int on_thread_map(struct report *rp, const struct data_record *rec)
{
	struct thread_map *tm = &rp->target.threads;
	struct data_thread_map map;

	if (rp->have_threads)
		return report_error(rp, rec->offset, "a second thread map");
	if (data_decode_thread_map(&rp->reader, rec, &map))
		return -EINVAL;
	tm->nr = map.nr;
	tm->tids = map.pids;
	tm->comms = map.comms;
	rp->have_threads = true;
	return 0;
}

static int on_cpu_map(struct report *rp, const struct data_record *rec)
{
	struct cpu_map *m = &rp->target.cpus;
	int i;

	if (rp->have_cpus)
		return report_error(rp, rec->offset, "a second cpu map");
	if (data_decode_cpu_map(&rp->reader, rec, &m->cpus, &m->nr))
		return -EINVAL;
	rp->have_cpus = true;
	rp->cpu_idx = xzalloc((DATA_CPU_ANY + 1) * sizeof(int));
	memset(rp->cpu_idx, 0xff, (DATA_CPU_ANY + 1) * sizeof(int));
	for (i = 0; i < m->nr; i++) {
		int cpu = m->cpus[i] < 0 ? DATA_CPU_ANY : m->cpus[i];

		if (rp->cpu_idx[cpu] >= 0)
			return data_error(&rp->reader, rec->offset, "cpu %d twice in the cpu map",
					  m->cpus[i]);
		rp->cpu_idx[cpu] = i;
	}
	return 0;
}

static int on_stat_config(struct report *rp, const struct data_record *rec)
{
	struct data_stat_config cfg = {
		.aggr_mode = FILE_AGGR_GLOBAL,
		.interval_ms = rp->interval_ms,
		.scale = rp->scale,
	};

	if (data_decode_stat_config(&rp->reader, rec, &cfg))
		return -EINVAL;
	rp->file_mode = aggr_mode_from_file(cfg.aggr_mode);
	rp->interval_ms = cfg.interval_ms;
	rp->scale = cfg.scale;
	return 0;
}

static bool per_task(const struct report *rp)
{
	return rp->target.cpus.nr == 1 && rp->target.cpus.cpus[0] < 0;
}

static void choose_aggregation(struct report *rp)
{
	const struct cpu_map *cpus = &rp->target.cpus;
	struct cpu_topology topo = {
		.nr = rp->env.nr_cpus_avail,
		.socket = rp->env.socket_id,
		.die = rp->env.die_id,
		.core = rp->env.core_id,
		.node = rp->env.node_id,
	};

	rp->mode = rp->file_mode;
	if (rp->ro->aggr_mode_given) {
		/* perf keeps a per-task recording's own mode */
		if (per_task(rp))
			pr_err("warning: processing task data, aggregation mode not set");
		else
			rp->mode = rp->ro->aggr_mode;
	}
	switch (rp->mode) {
	case AGGR_SOCKET:
	case AGGR_DIE:
	case AGGR_CORE:
	case AGGR_NODE:
		rp->nr_aggr = aggr_ids_build_topology(rp->mode, cpus, &topo, &rp->aggr,
						      &rp->cpu_aggr);
		break;
	default:
		rp->nr_aggr = aggr_ids_build(rp->mode, &rp->target, &rp->aggr);
		break;
	}
}

static int setup_counters(struct report *rp, __u64 offset)
{
	int nr_ev = rp->evlist.nr, ev;
	size_t cells;

	if (!rp->have_threads || !rp->have_cpus)
		return report_error(rp, offset, "counts before the thread and cpu maps");
	cells = (size_t)rp->target.cpus.nr * rp->target.threads.nr;
	if (cells * (nr_ev ? nr_ev : 1) > MAX_COUNT_CELLS)
		return data_error(&rp->reader, offset, "%d events on %d cpus and %d threads: too "
				  "many counts", nr_ev, rp->target.cpus.nr, rp->target.threads.nr);
	choose_aggregation(rp);
	rp->counters = xzalloc((nr_ev + 1) * sizeof(*rp->counters));
	rp->prev = xzalloc((nr_ev + 1) * sizeof(*rp->prev));
	for (ev = 0; ev < nr_ev; ev++) {
		struct counter *c = &rp->counters[ev];

		c->evsel = &rp->evlist.entries[ev];
		c->leader = c;
		c->nr_cpus = rp->target.cpus.nr;
		c->nr_threads = rp->target.threads.nr;
		c->counts = xzalloc(cells * sizeof(*c->counts));
		c->supported = rp->ev_nr_ids[ev] > 0;
		rp->prev[ev] = xzalloc(cells * sizeof(*rp->prev[ev]));
	}
	rp->values = xzalloc(((size_t)nr_ev * rp->nr_aggr + 1) * sizeof(*rp->values));
	rp->shadow = xzalloc(((size_t)nr_ev * rp->nr_aggr + 1) * sizeof(*rp->shadow));
	rp->shadow_means = xzalloc(((size_t)nr_ev * rp->nr_aggr + 1) * sizeof(double));
	return 0;
}

static int on_stat(struct report *rp, const struct data_record *rec)
{
	struct rec_stat st;
	struct counter *c;
	int ev, cpu_idx;

	if (data_decode_stat(&rp->reader, rec, &st))
		return -EINVAL;
	if (!rp->counters && setup_counters(rp, rec->offset))
		return -EINVAL;
	ev = event_of_id(rp, st.id);
	if (ev < 0)
		return data_error(&rp->reader, rec->offset, "counts for unknown event id %llu",
				  (unsigned long long)st.id);
	cpu_idx = st.cpu == (__u32)-1 ? rp->cpu_idx[DATA_CPU_ANY] :
		  st.cpu < DATA_CPU_ANY ? rp->cpu_idx[st.cpu] : -1;
	if (cpu_idx < 0)
		return data_error(&rp->reader, rec->offset, "counts for cpu %d, not in the cpu map",
				  (int)st.cpu);
	if (st.thread >= (__u32)rp->target.threads.nr)
		return data_error(&rp->reader, rec->offset, "counts for thread index %u of %d",
				  st.thread, rp->target.threads.nr);
	c = &rp->counters[ev];
	*counter_count(c, cpu_idx, st.thread) = (struct raw_count){ st.val, st.ena, st.run };
	rp->supported[ev] = true;
	return 0;
}

static char *cmdline_desc(const struct data_env *env)
{
	size_t len = 3;
	char *s;
	int i;

	if (!env->nr_cmdline)
		return xstrdup("'pipe'");
	for (i = 0; i < env->nr_cmdline; i++)
		len += strlen(env->cmdline[i]) + 1;
	s = xzalloc(len);
	strcat(s, "'");
	for (i = 0; i < env->nr_cmdline; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, env->cmdline[i]);
	}
	strcat(s, "'");
	return s;
}

static void print_round(struct report *rp, bool interval, __u64 time_ns)
{
	struct stat_result res = {
		.evlist = &rp->evlist,
		.supported = rp->supported,
		.aggr_mode = rp->mode,
		.nr_aggr = rp->nr_aggr,
		.aggr = rp->aggr,
		.values = rp->values,
		.shadow_counts = rp->shadow_means,
		.wall_ns = rp->walltime.mean,
		.run_count = 1,
		.interval = interval,
		.interval_ts = (double)time_ns / 1e9,
		.replay = true,
	};
	struct run_summary sum = {
		.target_desc = rp->target_desc,
		.run_count = 1,
		.elapsed_s = rp->walltime.mean / 1e9,
	};

	if (interval) {
		print_interval(&rp->ro->out, &res, rp->nr_printed++);
		return;
	}
	sum.nmi_watchdog = nmi_watchdog_enabled();
	print_counters(&rp->ro->out, &res, &sum);
}

static int on_stat_round(struct report *rp, const struct data_record *rec)
{
	struct rec_stat_round round;
	int nr_ev = rp->evlist.nr, ev, i;

	if (data_decode_stat_round(&rp->reader, rec, &round))
		return -EINVAL;
	if (!rp->counters && setup_counters(rp, rec->offset))
		return -EINVAL;
	aggregate_counts_mapped(rp->counters, nr_ev, (const struct raw_count *const *)rp->prev,
				rp->mode, rp->nr_aggr, rp->cpu_aggr, rp->scale, rp->values);
	/* perf's report keeps its shadow stats over all rounds: rates use their means */
	for (i = 0; i < nr_ev * rp->nr_aggr; i++) {
		run_stats_update(&rp->shadow[i], rp->values[i].count);
		rp->shadow_means[i] = rp->shadow[i].mean;
	}
	for (ev = 0; ev < nr_ev; ev++) {
		const struct counter *c = &rp->counters[ev];

		memcpy(rp->prev[ev], c->counts, (size_t)c->nr_cpus * c->nr_threads *
		       sizeof(*c->counts));
	}
	if (round.type == STAT_ROUND_FINAL)
		run_stats_update(&rp->walltime, (double)round.time);
	print_round(rp, rp->interval_ms && round.time, round.time);
	return 0;
}

static int on_record(struct report *rp, const struct data_record *rec)
{
	switch (rec->header.type) {
	case REC_HEADER_ATTR:
		return on_header_attr(rp, rec);
	case REC_EVENT_UPDATE:
		return on_event_update(rp, rec);
	case REC_THREAD_MAP:
		return on_thread_map(rp, rec);
	case REC_CPU_MAP:
		return on_cpu_map(rp, rec);
	case REC_STAT_CONFIG:
		return on_stat_config(rp, rec);
	case REC_STAT:
		return on_stat(rp, rec);
	case REC_STAT_ROUND:
		return on_stat_round(rp, rec);
	default:
		return 0;	/* other records (MMAP, newer types) are skipped by their size */
	}
}

static void report_free(struct report *rp)
{
	int ev;

	for (ev = 0; ev < rp->evlist.nr; ev++) {
		if (rp->counters)
			free(rp->counters[ev].counts);
		if (rp->prev)
			free(rp->prev[ev]);
		free(rp->ev_ids[ev]);
	}
	free(rp->counters);
	free(rp->prev);
	free(rp->ev_ids);
	free(rp->ev_nr_ids);
	free(rp->ids);
	free(rp->supported);
	evlist_free(&rp->evlist);
	target_free(&rp->target);
	free(rp->cpu_idx);
	free(rp->aggr);
	free(rp->cpu_aggr);
	free(rp->values);
	free(rp->shadow);
	free(rp->shadow_means);
	free(rp->target_desc);
	data_env_free(&rp->env);
	data_reader_close(&rp->reader);
}

int stat_report_file(const struct report_options *ro)
{
	struct report rp = { .ro = ro, .file_mode = AGGR_GLOBAL, .scale = true };
	struct data_record rec;
	int err;

	err = data_reader_open(&rp.reader, ro->input ? ro->input : "perf.data");
	if (!err)
		err = data_env_read(&rp.reader, &rp.env);
	if (!err) {
		rp.target_desc = cmdline_desc(&rp.env);
		events_from_header(&rp);
		while ((err = data_reader_next(&rp.reader, &rec)) > 0) {
			err = on_record(&rp, &rec);
			if (err)
				break;
		}
	}
	if (ro->out.out)
		fflush(ro->out.out);
	report_free(&rp);
	return err ? EXIT_FATAL : 0;
}

static const char *const report_usage[] = {
	"bperf stat report [<options>]",
	NULL,
};

int cmd_stat_report(const struct stat_options *o, int argc, const char **argv)
{
	struct report_options ro = { 0 };
	bool per_socket = false, per_die = false, per_core = false, per_node = false;
	bool no_aggr = false, json = o->json;
	const char *sep = o->csv_sep;
	const struct option table[] = {
		{ OPT_BOOLEAN, 'A', "no-aggr", &no_aggr, NULL, "one line per CPU, no aggregation" },
		{ OPT_STRING, 'i', "input", &ro.input, "<file>", "input file name" },
		{ OPT_BOOLEAN, 'j', "json-output", &json, NULL, "print counts as JSON lines" },
		{ OPT_STRING, 'x', "field-separator", &sep, "<separator>",
		  "CSV output with this separator" },
		{ OPT_BOOLEAN, 0, "per-core", &per_core, NULL, "aggregate counts per core" },
		{ OPT_BOOLEAN, 0, "per-die", &per_die, NULL, "aggregate counts per die" },
		{ OPT_BOOLEAN, 0, "per-node", &per_node, NULL, "aggregate counts per NUMA node" },
		{ OPT_BOOLEAN, 0, "per-socket", &per_socket, NULL,
		  "aggregate counts per processor socket" },
		{ OPT_END },
	};
	int first = parse_options(argc, argv, table, report_usage);

	if (first == PARSE_OPT_HELP) {
		usage_with_options(report_usage, table);
		return EXIT_USAGE;
	}
	if (first < 0)
		return EXIT_USAGE;
	/* perf ignores words after the options here: so does bperf */
	/* the last of perf's OPT_SET_UINT options wins; here a fixed order decides */
	ro.aggr_mode_given = no_aggr || per_socket || per_die || per_core || per_node;
	ro.aggr_mode = per_socket ? AGGR_SOCKET : per_die ? AGGR_DIE : per_core ? AGGR_CORE :
		       per_node ? AGGR_NODE : AGGR_NONE;
	if (sep && !strcmp(sep, "\\t"))
		sep = "\t";
	ro.out.out = stderr;
	ro.out.format = json ? OUTPUT_JSON : sep ? OUTPUT_CSV : OUTPUT_STD;
	ro.out.csv_sep = sep ? sep : " ";
	ro.out.big_num = o->big_num && !sep;
	ro.out.no_csv_summary = o->no_csv_summary;
	return stat_report_file(&ro);
}
