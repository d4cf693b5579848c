// SPDX-License-Identifier: GPL-2.0-only
/*
 * Dispatch to the std/CSV/JSON printers, in perf's line order: evlist order
 * (global), event-major (-A), aggregate-major (--per-core/die/socket/node)
 * and event-major with threads sorted by count (--per-thread).
 */
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "metric_only.h"
#include "printer.h"

/* perf: max(4, longest unit among the counters that could be opened) */
static int unit_width(const struct stat_result *res)
{
	int width = 4, i;

	/* perf's report opens nothing, and only an open widens the column */
	if (res->replay)
		return width;
	for (i = 0; i < res->evlist->nr; i++) {
		const char *unit = event_unit(&res->evlist->entries[i]);

		if (res->supported && !res->supported[i])
			continue;
		if ((int)strlen(unit) > width)
			width = (int)strlen(unit);
	}
	return width;
}

static void format_interval_prefix(const struct output_config *cfg, const struct stat_result *res,
				   char *buf, size_t size)
{
	unsigned long long ns = llround(res->interval_ts * 1e9);
	unsigned long sec = ns / 1000000000ULL, nsec = ns % 1000000000ULL;

	buf[0] = '\0';
	if (!res->interval)
		return;
	switch (cfg->format) {
	case OUTPUT_STD:
		std_interval_prefix(buf, size, sec, nsec);
		break;
	case OUTPUT_CSV:
		csv_interval_prefix(buf, size, sec, nsec, cfg->csv_sep);
		break;
	case OUTPUT_JSON:
		json_interval_prefix(buf, size, sec, nsec);
		break;
	}
}

struct line_printer {
	const struct output_config *cfg;
	const struct stat_result *res;
	const char *prefix;
	int unit_width;
	struct footer_hints *hints;	/* NULL: no footer follows (-I) */
};

/* perf's evlist__has_hybrid: an event is on a hybrid CPU PMU (cpu_core, cpu_atom) */
static bool evlist_has_hybrid(const struct evlist *evlist)
{
	int i;

	for (i = 0; i < evlist->nr; i++) {
		const struct evsel *e = &evlist->entries[i];

		if (e->hybrid || (e->pmu_name && !strncmp(e->pmu_name, "cpu_", 4)))
			return true;
	}
	return false;
}

/*
 * perf's is_mixed_hw_group: evsel leads a group, and the whole list (not only the group) holds
 * events of two types other than software, which may join any group.
 */
static bool is_mixed_hw_group(const struct evlist *evlist, const struct evsel *evsel)
{
	__u32 type = evsel->attr.type;
	int i;

	if (evsel->nr_members < 2)
		return false;
	for (i = 0; i < evlist->nr; i++) {
		__u32 t = evlist->entries[i].attr.type;

		if (t == PERF_TYPE_SOFTWARE)
			continue;
		if (type == PERF_TYPE_SOFTWARE)
			type = t;
		else if (t != type)
			return true;
	}
	return false;
}

/* A supported event printed <not counted>: the footer's hints, as perf's printout sets them. */
static void note_not_counted(struct footer_hints *hints, const struct evlist *evlist,
			     const struct evsel *evsel)
{
	if (!hints || evlist_has_hybrid(evlist))
		return;
	hints->not_counted = true;
	if (is_mixed_hw_group(evlist, evsel))
		hints->mixed_group = true;
}

static void print_one(const struct line_printer *lp, int ev, int aggr)
{
	const struct stat_result *res = lp->res;
	const struct evsel *evsel = &res->evlist->entries[ev];
	const struct counter_value *val = result_value(res, ev, aggr);
	struct metric_line metrics[METRICS_MAX];
	struct counter_line cl = {
		.cfg = lp->cfg,
		.res = res,
		.evsel = evsel,
		.id = res->aggr_mode == AGGR_GLOBAL ? NULL : &res->aggr[aggr],
		.val = val,
		.prefix = lp->prefix,
		.uval = val->count * evsel->scale,
		.counted = val->run && val->ena,
		.supported = !res->supported || res->supported[ev],
		.summary_column = lp->cfg->format == OUTPUT_CSV && lp->cfg->summary &&
				  !lp->cfg->no_csv_summary && !res->interval,
		.unit_width = lp->unit_width,
		.metrics = metrics,
	};

	if (val->absent)
		return;
	if (!cl.counted && cl.supported)
		note_not_counted(lp->hints, res->evlist, evsel);
	if (cl.counted)
		cl.nr_metrics = metrics_compute(res, ev, aggr, metrics, METRICS_MAX);
	/* perf 6.1 finds no metric bases for a percore event's per-core lines under -A */
	if (cl.counted && line_is_percore(&cl)) {
		metrics[0] = (struct metric_line){ 0 };
		cl.nr_metrics = 1;
	}

	switch (lp->cfg->format) {
	case OUTPUT_STD:
		std_print_line(&cl);
		break;
	case OUTPUT_CSV:
		csv_print_line(&cl);
		break;
	case OUTPUT_JSON:
		json_print_line(&cl);
		break;
	}
}

struct thread_value {
	int aggr;
	uint64_t val;
};

/*
 * perf's comparator: the u64 difference truncated to int. Kept as is (with
 * glibc's stable qsort) so that ties and huge counts order like perf.
 */
static int cmp_thread_value(const void *a, const void *b)
{
	const struct thread_value *ta = a, *tb = b;

	return (int)(tb->val - ta->val);
}

static void print_event_per_thread(const struct line_printer *lp, int ev)
{
	const struct stat_result *res = lp->res;
	double scale = res->evlist->entries[ev].scale;
	struct thread_value *tv;
	int i, n = 0;

	if (!res->nr_aggr)
		return;
	tv = calloc(res->nr_aggr, sizeof(*tv));
	if (!tv) {
		pr_err("cannot sort aggr thread");
		return;
	}
	for (i = 0; i < res->nr_aggr; i++) {
		double count = result_value(res, ev, i)->count;

		/* -a --per-thread would otherwise list every idle thread */
		if (count * scale == 0.0 && res->per_thread_drop_zero)
			continue;
		tv[n].aggr = i;
		tv[n].val = double_to_u64(count);
		n++;
	}
	qsort(tv, n, sizeof(*tv), cmp_thread_value);
	for (i = 0; i < n; i++)
		print_one(lp, ev, tv[i].aggr);
	free(tv);
}

/* metric_header: --metric-only prints its header line first; hints: NULL or what to note */
static void print_lines(const struct output_config *cfg, const struct stat_result *res,
			bool metric_header, struct footer_hints *hints)
{
	char prefix[64];
	struct line_printer lp = {
		.cfg = cfg,
		.res = res,
		.prefix = prefix,
		.unit_width = unit_width(res),
		.hints = hints,
	};
	int nr_ev = res->evlist->nr, ev, a;

	format_interval_prefix(cfg, res, prefix, sizeof(prefix));
	if (cfg->metric_only) {
		print_metric_only(cfg, res, prefix, metric_header);
		return;
	}

	switch (res->aggr_mode) {
	case AGGR_GLOBAL:
		for (ev = 0; ev < nr_ev; ev++)
			print_one(&lp, ev, 0);
		break;
	case AGGR_NONE:
		for (ev = 0; ev < nr_ev; ev++)
			for (a = 0; a < res->nr_aggr; a++)
				print_one(&lp, ev, a);
		break;
	case AGGR_THREAD:
		for (ev = 0; ev < nr_ev; ev++)
			print_event_per_thread(&lp, ev);
		break;
	case AGGR_CORE:
	case AGGR_DIE:
	case AGGR_SOCKET:
	case AGGR_NODE:
		for (a = 0; a < res->nr_aggr; a++)
			for (ev = 0; ev < nr_ev; ev++)
				print_one(&lp, ev, a);
		break;
	}
}

/*
 * CSV and JSON numbers are printed under the C locale (a deliberate
 * difference from perf, which localizes them and so emits invalid JSON and
 * ambiguous CSV under e.g. de_DE). The std format keeps the user's locale.
 */
static void print_lines_in_locale(const struct output_config *cfg, const struct stat_result *res,
				  bool metric_header, struct footer_hints *hints)
{
	locale_t c_locale, old = (locale_t)0;

	if (cfg->format == OUTPUT_STD) {
		print_lines(cfg, res, metric_header, hints);
		return;
	}
	c_locale = newlocale(LC_NUMERIC_MASK, "C", duplocale(LC_GLOBAL_LOCALE));
	if (c_locale)
		old = uselocale(c_locale);
	print_lines(cfg, res, metric_header, hints);
	if (c_locale) {
		uselocale(old);
		freelocale(c_locale);
	}
}

void print_counter_lines(const struct output_config *cfg, const struct stat_result *res)
{
	print_lines_in_locale(cfg, res, true, NULL);
}

void print_header(const struct output_config *cfg, const struct run_summary *sum)
{
	if (cfg->format == OUTPUT_STD)
		std_print_header(cfg->out, sum);
}

void print_footer(const struct output_config *cfg, const struct run_summary *sum,
		  const struct footer_hints *hints)
{
	if (cfg->format == OUTPUT_STD)
		std_print_footer(cfg->out, sum, hints);
}

void print_counters(const struct output_config *cfg, const struct stat_result *res,
		    const struct run_summary *sum)
{
	struct footer_hints hints = { 0 };

	fflush(stdout);
	if (!res->interval)
		print_header(cfg, sum);
	print_lines_in_locale(cfg, res, true, &hints);
	if (!res->interval)
		print_footer(cfg, sum, &hints);
	fflush(cfg->out);
}

#define CONSOLE_CLEAR "\033[H\033[2J"
/* perf repeats the interval header line every 25 prints */
#define INTERVAL_HEADER_EVERY 25

void print_interval(const struct output_config *cfg, const struct stat_result *res,
		    unsigned int nr_printed)
{
	bool header = nr_printed % INTERVAL_HEADER_EVERY == 0 || cfg->interval_clear;

	if (cfg->interval_clear)
		puts(CONSOLE_CLEAR);
	/*
	 * --metric-only has its own header, in every format; perf also prints this one for
	 * CSV/JSON with --interval-clear
	 */
	if (!cfg->metric_only && ((cfg->format == OUTPUT_STD && header) || cfg->interval_clear))
		std_print_interval_header(cfg, res->aggr_mode, unit_width(res));
	print_lines_in_locale(cfg, res, header, NULL);
	fflush(cfg->out);
}
