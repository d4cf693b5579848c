// SPDX-License-Identifier: GPL-2.0-only
/*
 * Topdown metrics as perf 6.1 computes them. The older events count slots (the kernel's .scale
 * files turn cycles into slots): bad speculation = (issued - retired + recovery bubbles) /
 * total, retiring = retired / total, frontend bound = fetch bubbles / total, backend bound the
 * rest. The perf-metrics events are each a metric times slots: a ratio is the event over the
 * sum of the four level 1 events; a level 2 event splits its parent in two.
 */
#include "topdown_metrics.h"

#include <string.h>

static const char *const kind_names[TD_NR] = {
	[TD_TOTAL_SLOTS] = "topdown-total-slots",
	[TD_SLOTS_ISSUED] = "topdown-slots-issued",
	[TD_SLOTS_RETIRED] = "topdown-slots-retired",
	[TD_FETCH_BUBBLES] = "topdown-fetch-bubbles",
	[TD_RECOVERY_BUBBLES] = "topdown-recovery-bubbles",
	[TD_RETIRING] = "topdown-retiring",
	[TD_BAD_SPEC] = "topdown-bad-spec",
	[TD_FE_BOUND] = "topdown-fe-bound",
	[TD_BE_BOUND] = "topdown-be-bound",
	[TD_HEAVY_OPS] = "topdown-heavy-ops",
	[TD_BR_MISPREDICT] = "topdown-br-mispredict",
	[TD_FETCH_LAT] = "topdown-fetch-lat",
	[TD_MEM_BOUND] = "topdown-mem-bound",
};

#define PERCENT "%8.1f%%"

enum topdown_kind topdown_kind_of(const char *name, const char *pmu)
{
	int k;

	for (k = TD_NONE + 1; name && k < TD_NR; k++)
		if (!strcmp(name, kind_names[k]) ||
		    (strstr(name, kind_names[k]) && pmu && strstr(name, pmu)))
			return k;
	return TD_NONE;
}

struct td_out {
	struct metric_line *lines;
	int max;
	int nr;
};

/* colored: the value is above perf's threshold for it (perf colours it then, else passes none) */
static void emit(struct td_out *o, const char *format, const char *unit, double value,
		 bool colored)
{
	if (o->nr < o->max)
		o->lines[o->nr++] = (struct metric_line){
			.value = value, .format = format, .unit = unit,
			.color = colored ? METRIC_COLORED : METRIC_NO_COLOR,
		};
}

/* perf rounds small negative shares, from counters read at slightly different times, to 0 */
static double sanitize(double x)
{
	return x < 0 && x >= -0.02 ? 0.0 : x;
}

static double share_of_total(const struct topdown_bases *b, double slots)
{
	double total = b->avg[TD_TOTAL_SLOTS];

	return total ? slots / total : 0;
}

static double bad_spec(const struct topdown_bases *b)
{
	return sanitize(share_of_total(b, b->avg[TD_SLOTS_ISSUED] - b->avg[TD_SLOTS_RETIRED] +
					  b->avg[TD_RECOVERY_BUBBLES]));
}

static double backend_bound(const struct topdown_bases *b)
{
	double sum = share_of_total(b, b->avg[TD_FETCH_BUBBLES]) + bad_spec(b) +
		     share_of_total(b, b->avg[TD_SLOTS_RETIRED]);

	return sum == 0 ? 0 : sanitize(1.0 - sum);
}

/* A perf-metrics event's share of the four level 1 events' sum. */
static double metric_ratio(const struct topdown_bases *b, enum topdown_kind kind)
{
	double sum = b->avg[TD_RETIRING] + b->avg[TD_FE_BOUND] + b->avg[TD_BE_BOUND] +
		     b->avg[TD_BAD_SPEC];

	return sum ? b->avg[kind] / sum : 0;
}

/* perf shows perf-metrics ratios only when at least two of the level 1 values are positive. */
static bool enough_level1(const struct topdown_bases *b)
{
	int n = (b->avg[TD_RETIRING] > 0) + (b->avg[TD_BE_BOUND] > 0) +
		(b->avg[TD_FE_BOUND] > 0) + (b->avg[TD_BAD_SPEC] > 0);

	return n >= 2;
}

/* Level 1: perf colours a share above its threshold (retiring green, the others red). */
static const struct {
	const char *unit;
	double threshold;
} level1[TD_NR] = {
	[TD_RETIRING] = { "Retiring", 0.7 },
	[TD_BAD_SPEC] = { "Bad Speculation", 0.1 },
	[TD_FE_BOUND] = { "Frontend Bound", 0.2 },
	[TD_BE_BOUND] = { "Backend Bound", 0.2 },
};

/*
 * Level 2: the event's share and what is left of its parent's; perf colours each when the parent
 * is above its level 1 threshold and the part above its own.
 */
static const struct {
	enum topdown_kind parent;
	const char *unit;
	double threshold;
	const char *rest_unit;
	double rest_threshold;
} level2[TD_NR] = {
	[TD_HEAVY_OPS] = { TD_RETIRING, "Heavy Operations", 0.1, "Light Operations", 0.6 },
	[TD_BR_MISPREDICT] = { TD_BAD_SPEC, "Branch Mispredict", 0.05, "Machine Clears", 0.05 },
	[TD_FETCH_LAT] = { TD_FE_BOUND, "Fetch Latency", 0.15, "Fetch Bandwidth", 0.1 },
	[TD_MEM_BOUND] = { TD_BE_BOUND, "Memory Bound", 0.2, "Core Bound", 0.1 },
};

int topdown_metrics(enum topdown_kind kind, const struct topdown_bases *b,
		    struct metric_line *out, int max)
{
	struct td_out o = { .lines = out, .max = max };

	double x, parent;

	switch (kind) {
	case TD_FETCH_BUBBLES:
		x = share_of_total(b, b->avg[kind]);
		emit(&o, PERCENT, "frontend bound", x * 100., x > 0.2);
		break;
	case TD_SLOTS_RETIRED:
		x = share_of_total(b, b->avg[kind]);
		emit(&o, PERCENT, "retiring", x * 100., x > 0.7);
		break;
	case TD_RECOVERY_BUBBLES:
		x = bad_spec(b);
		emit(&o, PERCENT, "bad speculation", x * 100., x > 0.1);
		break;
	case TD_SLOTS_ISSUED: {
		const char *unit = b->no_recovery_bubbles ? "backend bound/bad spec" :
							    "backend bound";

		x = backend_bound(b);
		if (b->avg[TD_TOTAL_SLOTS] > 0)
			emit(&o, PERCENT, unit, x * 100., x > 0.2);
		else
			emit(&o, NULL, unit, 0, false);
		break;
	}
	case TD_RETIRING:
	case TD_BAD_SPEC:
	case TD_FE_BOUND:
	case TD_BE_BOUND:
		if (!enough_level1(b))
			break;
		x = metric_ratio(b, kind);
		emit(&o, PERCENT, level1[kind].unit, x * 100., x > level1[kind].threshold);
		break;
	case TD_HEAVY_OPS:
	case TD_BR_MISPREDICT:
	case TD_FETCH_LAT:
	case TD_MEM_BOUND:
		if (!enough_level1(b) || b->level <= 1)
			break;
		parent = metric_ratio(b, level2[kind].parent);
		x = metric_ratio(b, kind);
		emit(&o, PERCENT, level2[kind].unit, x * 100.,
		     parent > level1[level2[kind].parent].threshold && x > level2[kind].threshold);
		x = parent - x;
		emit(&o, PERCENT, level2[kind].rest_unit, x * 100.,
		     parent > level1[level2[kind].parent].threshold &&
		     x > level2[kind].rest_threshold);
		break;
	default:
		break;
	}
	return o.nr;
}
