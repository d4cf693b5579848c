// SPDX-License-Identifier: GPL-2.0-only
/*
 * Metric maths. perf keeps "shadow" statistics keyed by the kind of base
 * event (cycles, branches, clock...), the aggregate and the exclude_* bits
 * of the event; a metric divides the event's value by the average of the
 * matching base events. Here the bases are looked up directly in the
 * stat_result, in the same aggregate, which gives the same numbers.
 */
#include "metrics.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

#include "../util/common.h"
#include "metric_set.h"
#include "topdown_metrics.h"

/* The kinds of base values metrics divide by (perf's STAT_* shadow types). */
enum metric_base {
	BASE_NONE,
	BASE_NSECS,		/* task-clock / cpu-clock, raw ns */
	BASE_CYCLES,
	BASE_STALLED_FRONT,
	BASE_STALLED_BACK,
	BASE_BRANCHES,
	BASE_CACHEREFS,
	BASE_L1_DCACHE,
	BASE_L1_ICACHE,
	BASE_LL_CACHE,
	BASE_DTLB,
	BASE_ITLB,
	BASE_SMI_NUM,
	BASE_APERF,
	BASE_TOPDOWN,		/* + enum topdown_kind: the topdown events, by name */
};

#define CONTEXT_CGROUP_SHIFT 8

/* The cgroup part of a context: perf's shadow stats are kept per cgroup, clocks included. */
static int context_cgroup(int ctx)
{
	return ctx >> CONTEXT_CGROUP_SHIFT;
}

/*
 * exclude_* bits: a ratio only pairs events counting the same contexts; above them, the
 * event's cgroup (-G, --for-each-cgroup), so that only events of one cgroup pair up.
 */
static int event_context(const struct evsel *evsel)
{
	const struct perf_event_attr *a = &evsel->attr;
	int cgroup = evsel->cgroup ? evsel->cgroup->idx : 0;

	return a->exclude_kernel << 1 | a->exclude_user | a->exclude_hv << 2 |
	       a->exclude_host << 3 | a->exclude_idle << 4 | cgroup << CONTEXT_CGROUP_SHIFT;
}

static bool is_hw(const struct evsel *evsel, __u64 config)
{
	return evsel->attr.type == PERF_TYPE_HARDWARE && evsel->attr.config == config;
}

static bool is_hw_cache(const struct evsel *evsel, __u64 config)
{
	return evsel->attr.type == PERF_TYPE_HW_CACHE && evsel->attr.config == config;
}

/* config of a "<cache>-load-misses" generic cache event */
static __u64 cache_read_miss(__u64 cache)
{
	return cache | PERF_COUNT_HW_CACHE_OP_READ << 8 | PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
}

/* perf identifies these two msr events by their printed name. */
static bool name_is(const struct evsel *evsel, const char *name)
{
	return evsel->name && !strcmp(evsel->name, name);
}

/* The topdown kind of an event, by its name and (as perf's evsel->pmu_name) its sysfs PMU. */
static enum topdown_kind topdown_kind(const struct evsel *evsel)
{
	return topdown_kind_of(evsel->name, evsel->sysfs_pmu || evsel->hybrid ? evsel->pmu_name :
										 NULL);
}

/* Same order of tests as perf's perf_stat__update_shadow_stats(). */
static enum metric_base base_of(const struct evsel *evsel)
{
	enum topdown_kind td;

	if (evsel->is_clock)
		return BASE_NSECS;
	if (is_hw(evsel, PERF_COUNT_HW_CPU_CYCLES))
		return BASE_CYCLES;
	td = topdown_kind(evsel);
	if (td != TD_NONE)
		return BASE_TOPDOWN + td;
	if (is_hw(evsel, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND))
		return BASE_STALLED_FRONT;
	if (is_hw(evsel, PERF_COUNT_HW_STALLED_CYCLES_BACKEND))
		return BASE_STALLED_BACK;
	if (is_hw(evsel, PERF_COUNT_HW_BRANCH_INSTRUCTIONS))
		return BASE_BRANCHES;
	if (is_hw(evsel, PERF_COUNT_HW_CACHE_REFERENCES))
		return BASE_CACHEREFS;
	/* the bare cache ids are the "<cache>-loads" events (read access) */
	if (is_hw_cache(evsel, PERF_COUNT_HW_CACHE_L1D))
		return BASE_L1_DCACHE;
	if (is_hw_cache(evsel, PERF_COUNT_HW_CACHE_L1I))
		return BASE_L1_ICACHE;
	if (is_hw_cache(evsel, PERF_COUNT_HW_CACHE_LL))
		return BASE_LL_CACHE;
	if (is_hw_cache(evsel, PERF_COUNT_HW_CACHE_DTLB))
		return BASE_DTLB;
	if (is_hw_cache(evsel, PERF_COUNT_HW_CACHE_ITLB))
		return BASE_ITLB;
	if (name_is(evsel, "msr/smi/"))
		return BASE_SMI_NUM;
	if (name_is(evsel, "msr/aperf/"))
		return BASE_APERF;
	return BASE_NONE;
}

/* A base event's value: its mean over the -r runs, as perf's shadow stats keep it. */
static double shadow_count(const struct stat_result *res, int ev, int aggr)
{
	if (res->shadow_counts)
		return res->shadow_counts[ev * res->nr_aggr + aggr];
	return result_value(res, ev, aggr)->count;
}

struct base_stat {
	int n;		/* how many events of this kind were counted */
	double avg;	/* their mean value */
};

/*
 * Mean value of the base events of one kind in aggregate aggr. Clock
 * events contribute raw nanoseconds whatever their context; the others
 * their unit-scaled count, truncated to an integer as perf stores it.
 */
static struct base_stat base_stat(const struct stat_result *res, int aggr,
				  enum metric_base kind, int ctx)
{
	struct base_stat st = { 0, 0.0 };
	double sum = 0;
	int i;

	for (i = 0; i < res->evlist->nr; i++) {
		const struct evsel *evsel = &res->evlist->entries[i];
		double count;

		if (res->supported && !res->supported[i] && !res->replay)
			continue;
		if (base_of(evsel) != kind)
			continue;
		/* a <not counted> base (e.g. a group whose read failed) feeds no metric */
		if ((!result_value(res, i, aggr)->run || !result_value(res, i, aggr)->ena) &&
		    !res->replay)
			continue;
		if (kind != BASE_NSECS && event_context(evsel) != ctx)
			continue;
		if (context_cgroup(event_context(evsel)) != context_cgroup(ctx))
			continue;
		count = shadow_count(res, i, aggr);
		if (kind != BASE_NSECS)
			count = (double)double_to_u64(count * evsel->scale);
		sum += count;
		st.n++;
	}
	if (st.n)
		st.avg = sum / st.n;
	return st;
}

struct metric_out {
	struct metric_line *lines;
	int max;
	int nr;
	bool pending_new_line;
};

static void emit(struct metric_out *mo, const char *format, const char *unit, double value)
{
	if (mo->nr >= mo->max)
		return;
	mo->lines[mo->nr++] = (struct metric_line){
		.value = value,
		.format = format,
		.unit = unit,
		.new_line = mo->pending_new_line,
	};
	mo->pending_new_line = false;
}

/* perf's get_ratio_color() kinds: a ratio above the lowest threshold gets a colour */
enum ratio_kind { RATIO_STALLED_FRONT, RATIO_STALLED_BACK, RATIO_CACHE_MISSES };

/* the last metric's colour: perf's "" below the lowest threshold, a colour above */
static void ratio_color(struct metric_out *mo, enum ratio_kind kind, double ratio)
{
	static const double lowest[] = {
		[RATIO_STALLED_FRONT] = 10.0, [RATIO_STALLED_BACK] = 20.0,
		[RATIO_CACHE_MISSES] = 5.0,
	};

	if (mo->nr)
		mo->lines[mo->nr - 1].color = ratio > lowest[kind] ? METRIC_COLORED :
								     METRIC_COLOR_NORMAL;
}

/* value / base * 100 as "%7.2f%%", or the empty metric when no base event exists */
static void miss_ratio(struct metric_out *mo, const struct stat_result *res, int aggr, int ctx,
		       enum metric_base kind, double avg, const char *unit)
{
	struct base_stat base = base_stat(res, aggr, kind, ctx);
	double ratio = 0.0;

	if (!base.n) {
		emit(mo, NULL, unit, 0);
		return;
	}
	if (base.avg)
		ratio = avg / base.avg * 100.0;
	emit(mo, "%7.2f%%", unit, ratio);
	ratio_color(mo, RATIO_CACHE_MISSES, ratio);
}

static void insn_per_cycle(struct metric_out *mo, const struct stat_result *res, int aggr,
			   int ctx, double avg)
{
	double cycles = base_stat(res, aggr, BASE_CYCLES, ctx).avg;
	double front = base_stat(res, aggr, BASE_STALLED_FRONT, ctx).avg;
	double back = base_stat(res, aggr, BASE_STALLED_BACK, ctx).avg;
	double stalled = front > back ? front : back;

	if (cycles)
		emit(mo, "%7.2f ", "insn per cycle", avg / cycles);
	else
		emit(mo, NULL, "insn per cycle", 0);

	if (stalled && avg) {
		mo->pending_new_line = true;
		emit(mo, "%7.2f ", "stalled cycles per insn", stalled / avg);
	}
}

/* perf's convert_unit_double(): K, M, G while the value exceeds 1000 */
static const char *rate_unit(double *value)
{
	static const char *const units[] = { "/sec", "K/sec", "M/sec", "G/sec" };
	int i = 0;

	while (i < 3 && *value > 1000.0) {
		*value /= 1000.0;
		i++;
	}
	return units[i];
}

/* System management interrupts: cost as the share of aperf cycles not seen by cycles. */
static void smi_cost(struct metric_out *mo, const struct stat_result *res, int aggr, int ctx)
{
	double smi = base_stat(res, aggr, BASE_SMI_NUM, ctx).avg;
	double aperf = base_stat(res, aggr, BASE_APERF, ctx).avg;
	double cycles = base_stat(res, aggr, BASE_CYCLES, ctx).avg;
	double cost = 0.0;

	/* perf prints nothing at all here, not even the blank metric column */
	if (cycles == 0 || aperf == 0)
		return;
	if (smi)
		cost = (aperf - cycles) / aperf * 100.0;
	emit(mo, "%8.1f%%", "SMI cycles%", cost);
	if (cost > 10)
		mo->lines[mo->nr - 1].color = METRIC_COLORED;
	emit(mo, "%4.0f", "SMI#", smi);
}

/* perf's topdown metrics of an event of kind td; false when it has none here. */
static bool topdown_lines(struct metric_out *mo, const struct stat_result *res, int aggr, int ctx,
			  enum topdown_kind td)
{
	struct topdown_bases b = {
		.level = res->topdown_level,
		.no_recovery_bubbles = res->topdown_no_recovery_bubbles,
	};
	int k, n;

	for (k = TD_NONE + 1; k < TD_NR; k++)
		b.avg[k] = base_stat(res, aggr, BASE_TOPDOWN + k, ctx).avg;
	n = topdown_metrics(td, &b, mo->lines + mo->nr, mo->max - mo->nr);
	mo->nr += n;
	return n > 0;
}

/*
 * A -b runs line: every other counted event's count for the same program, divided by its runs
 * (raw counts, so time events in ns), one metric per line. Per program values only exist as
 * totals: with -A there is no per-CPU average.
 */
static void per_run_averages(struct metric_out *mo, const struct stat_result *res, int ev,
			     int aggr)
{
	const struct evsel *runs_evsel = &res->evlist->entries[ev];
	int prog = runs_evsel->bpf_prog_idx, i;
	double runs;

	/* "" rather than perf's NULL: no "(null)" unit in JSON for lines perf does not have */
	if (!res->prog_values || res->aggr_mode != AGGR_GLOBAL) {
		emit(mo, NULL, "", 0);
		return;
	}
	runs = res->prog_values[ev * res->nr_progs + prog].count;
	for (i = 0; i < res->evlist->nr; i++) {
		const struct evsel *e = &res->evlist->entries[i];
		const struct counter_value *v = &res->prog_values[i * res->nr_progs + prog];

		if (!e->per_run_unit || (res->supported && !res->supported[i]) || !v->run ||
		    !v->ena)
			continue;
		if (e->bpf_prog_stat != BPF_PROG_STAT_NONE && e->bpf_prog_idx != prog)
			continue;
		if (runs)
			emit(mo, "%10.2f", e->per_run_unit, v->count / runs);
		else
			emit(mo, NULL, e->per_run_unit, 0);
		mo->pending_new_line = true;
	}
	if (!mo->nr)
		emit(mo, NULL, "", 0);
}

struct expr_values {
	const struct stat_result *res;
	int aggr;
};

/*
 * An event's unit-scaled count for a -M expression; none when it was not counted, or when its
 * line was merged into another's.
 */
static int expr_event_value(void *ctx, int ev, double *value)
{
	const struct expr_values *ev_ctx = ctx;
	const struct stat_result *res = ev_ctx->res;
	const struct counter_value *v = result_value(res, ev, ev_ctx->aggr);

	if ((res->supported && !res->supported[ev]) || !v->run || !v->ena || v->absent)
		return -ENOENT;
	*value = shadow_count(res, ev, ev_ctx->aggr) * res->evlist->entries[ev].scale;
	return 0;
}

/*
 * The -M metrics this event leads, after its own metric (each on a new line), or instead of
 * the empty one; one that cannot be computed prints empty, as perf's generic_metric().
 */
static void expression_metrics(struct metric_out *mo, const struct stat_result *res, int ev,
			       int aggr)
{
	const struct metric_set *set = res->metric_set;
	struct expr_values ctx = { .res = res, .aggr = aggr };
	bool first = true;
	int i;

	for (i = 0; set && i < set->nr; i++) {
		const struct metric_instance *m = &set->metrics[i];
		double value;

		if (m->leader != ev)
			continue;
		if (first && mo->nr == 1 && !mo->lines[0].format && !mo->lines[0].unit)
			mo->nr = 0;
		mo->pending_new_line = mo->nr > 0;
		first = false;
		if (!metric_instance_eval(m, set, expr_event_value, &ctx, &value))
			emit(mo, m->def.scale_unit ? "%8.1f" : "%8.2f", m->unit, value);
		else
			emit(mo, NULL, m->unit, 0);
	}
}

/* cache-misses: the share of cache-references. */
static void cache_miss_ratio(struct metric_out *mo, const struct stat_result *res, int aggr,
			     int ctx, double avg)
{
	struct base_stat refs = base_stat(res, aggr, BASE_CACHEREFS, ctx);
	double ratio = refs.avg ? avg * 100 / refs.avg : 0.0;

	if (refs.n)
		emit(mo, "%8.3f %%", "of all cache refs", ratio);
	else
		emit(mo, NULL, "of all cache refs", 0);
}

/* stalled-cycles-frontend and -backend: the share of cycles; perf prints no zero frontend. */
static void stalled_cycles(struct metric_out *mo, const struct stat_result *res, int aggr,
			   int ctx, double avg, bool frontend)
{
	double total = base_stat(res, aggr, BASE_CYCLES, ctx).avg;
	double ratio = total ? avg / total * 100.0 : 0.0;
	const char *unit = frontend ? "frontend cycles idle" : "backend cycles idle";

	if (frontend && !ratio) {
		emit(mo, NULL, unit, 0);
		return;
	}
	emit(mo, "%7.2f%%", unit, ratio);
	ratio_color(mo, frontend ? RATIO_STALLED_FRONT : RATIO_STALLED_BACK, ratio);
}

int metrics_compute(const struct stat_result *res, int ev, int aggr, struct metric_line *out,
		    int max)
{
	const struct evsel *evsel = &res->evlist->entries[ev];
	double avg = result_value(res, ev, aggr)->count * evsel->scale;
	struct metric_out mo = { .lines = out, .max = max };
	int ctx = event_context(evsel);
	double total, ratio = 0.0;
	struct base_stat nsecs;
	enum topdown_kind td = topdown_kind(evsel);

	if (evsel->bpf_prog_stat == BPF_PROG_STAT_RUNS) {
		per_run_averages(&mo, res, ev, aggr);
	} else if (evsel->bpf_prog_stat == BPF_PROG_STAT_RUN_TIME) {
		emit(&mo, NULL, "", 0);
	} else if (is_hw(evsel, PERF_COUNT_HW_INSTRUCTIONS)) {
		insn_per_cycle(&mo, res, aggr, ctx, avg);
	} else if (is_hw(evsel, PERF_COUNT_HW_BRANCH_MISSES)) {
		miss_ratio(&mo, res, aggr, ctx, BASE_BRANCHES, avg, "of all branches");
	} else if (is_hw_cache(evsel, cache_read_miss(PERF_COUNT_HW_CACHE_L1D))) {
		miss_ratio(&mo, res, aggr, ctx, BASE_L1_DCACHE, avg, "of all L1-dcache accesses");
	} else if (is_hw_cache(evsel, cache_read_miss(PERF_COUNT_HW_CACHE_L1I))) {
		miss_ratio(&mo, res, aggr, ctx, BASE_L1_ICACHE, avg, "of all L1-icache accesses");
	} else if (is_hw_cache(evsel, cache_read_miss(PERF_COUNT_HW_CACHE_DTLB))) {
		miss_ratio(&mo, res, aggr, ctx, BASE_DTLB, avg, "of all dTLB cache accesses");
	} else if (is_hw_cache(evsel, cache_read_miss(PERF_COUNT_HW_CACHE_ITLB))) {
		miss_ratio(&mo, res, aggr, ctx, BASE_ITLB, avg, "of all iTLB cache accesses");
	} else if (is_hw_cache(evsel, cache_read_miss(PERF_COUNT_HW_CACHE_LL))) {
		miss_ratio(&mo, res, aggr, ctx, BASE_LL_CACHE, avg, "of all LL-cache accesses");
	} else if (is_hw(evsel, PERF_COUNT_HW_CACHE_MISSES)) {
		cache_miss_ratio(&mo, res, aggr, ctx, avg);
	} else if (is_hw(evsel, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND)) {
		stalled_cycles(&mo, res, aggr, ctx, avg, true);
	} else if (is_hw(evsel, PERF_COUNT_HW_STALLED_CYCLES_BACKEND)) {
		stalled_cycles(&mo, res, aggr, ctx, avg, false);
	} else if (is_hw(evsel, PERF_COUNT_HW_CPU_CYCLES)) {
		total = base_stat(res, aggr, BASE_NSECS, ctx).avg;
		if (total)
			emit(&mo, "%8.3f", "GHz", avg / total);
		else
			emit(&mo, NULL, "Ghz", 0); /* sic: perf's spelling when there is no clock */
	} else if (evsel->is_clock) {
		if (res->wall_ns)
			emit(&mo, "%8.3f", "CPUs utilized", avg / (res->wall_ns * evsel->scale));
		else
			emit(&mo, NULL, "CPUs utilized", 0);
	} else if (td != TD_NONE && topdown_lines(&mo, res, aggr, ctx, td)) {
		/* printed */
	} else if ((nsecs = base_stat(res, aggr, BASE_NSECS, ctx)).n) {
		/* events per second of counted CPU time, not of wall time */
		const char *unit;

		if (nsecs.avg)
			ratio = 1e9 * avg / nsecs.avg;
		unit = rate_unit(&ratio);
		emit(&mo, "%8.3f", unit, ratio);
	} else if (base_of(evsel) == BASE_SMI_NUM) {
		smi_cost(&mo, res, aggr, ctx);
	} else {
		emit(&mo, NULL, NULL, 0);
	}
	expression_metrics(&mo, res, ev, aggr);
	return mo.nr;
}
