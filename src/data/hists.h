/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Samples and period summed per event, binary and function (perf report --sort dso,sym
 * without children): an unresolved ip keeps its own entry per address, as in perf.
 */
#ifndef BPERF_DATA_HISTS_H
#define BPERF_DATA_HISTS_H

#include "machine.h"

struct hist_entry {
	int attr_idx;
	struct data_location loc;	/* sym NULL: loc.addr tells the entry apart */
	__u64 samples, period;
};

struct data_hists {
	struct hist_entry *entries;
	size_t nr, cap;
	size_t *slots;		/* open addressing: entry index + 1, 0 for free */
	size_t nr_slots;
	int nr_attrs;
	__u64 *total_period;	/* per attr */
	__u64 *total_samples;
};

void data_hists_init(struct data_hists *h, int nr_attrs);
void data_hists_free(struct data_hists *h);
void data_hists_add(struct data_hists *h, int attr_idx, const struct data_location *loc,
		    __u64 period);
/* Orders the entries by event, then period (most first), then binary and function name. */
void data_hists_sort(struct data_hists *h);
/* "[unknown]" or the binary's short name; the function name or its address as perf shows */
const char *hist_dso_name(const struct hist_entry *e);
void hist_symbol_name(const struct hist_entry *e, char *buf, size_t size);

#endif
