// SPDX-License-Identifier: GPL-2.0-only
#include "percore.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

static bool same_core(const struct aggr_id *a, const struct aggr_id *b)
{
	return a->socket == b->socket && a->die == b->die && a->core == b->core;
}

bool evlist_has_percore(const struct evlist *evlist)
{
	int i;

	for (i = 0; i < evlist->nr; i++)
		if (evlist->entries[i].percore)
			return true;
	return false;
}

void percore_sum(const struct evlist *evlist, const struct aggr_id *ids, int nr_aggr,
		 bool show_thread, struct counter_value *values)
{
	struct counter_value *sums = xzalloc(nr_aggr * sizeof(*sums));
	int ev, a, b;

	for (ev = 0; ev < evlist->nr; ev++) {
		struct counter_value *row = &values[ev * nr_aggr];

		if (!evlist->entries[ev].percore)
			continue;
		for (a = 0; a < nr_aggr; a++) {
			bool first = true;

			sums[a] = row[a];
			sums[a].count = 0;
			sums[a].ena = sums[a].run = 0;
			for (b = 0; b < nr_aggr; b++) {
				if (!same_core(&ids[a], &ids[b]))
					continue;
				if (b < a)
					first = false;
				sums[a].count += row[b].count;
				sums[a].ena += row[b].ena;
				sums[a].run += row[b].run;
			}
			if (!show_thread && !first)
				sums[a].absent = true;
		}
		memcpy(row, sums, nr_aggr * sizeof(*sums));
	}
	free(sums);
}
