/* SPDX-License-Identifier: GPL-2.0-only */
/* Running mean and variance over -r runs (Welford), as perf's stats helpers. */
#ifndef BPERF_RUN_STATS_H
#define BPERF_RUN_STATS_H

#include <math.h>

struct run_stats {
	double n;
	double mean;
	double m2;
};

static inline void run_stats_update(struct run_stats *s, double v)
{
	double delta;

	s->n++;
	delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

/* The standard deviation of the mean: what perf prints as +- and ( +- x% ). */
static inline double run_stats_stddev_mean(const struct run_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(s->m2 / (s->n - 1) / s->n);
}

#endif
