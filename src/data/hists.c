// SPDX-License-Identifier: GPL-2.0-only
#include "hists.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

void data_hists_init(struct data_hists *h, int nr_attrs)
{
	memset(h, 0, sizeof(*h));
	h->nr_attrs = nr_attrs;
	h->total_period = xzalloc((nr_attrs + 1) * sizeof(*h->total_period));
	h->total_samples = xzalloc((nr_attrs + 1) * sizeof(*h->total_samples));
	h->nr_slots = 1024;
	h->slots = xzalloc(h->nr_slots * sizeof(*h->slots));
}

void data_hists_free(struct data_hists *h)
{
	free(h->entries);
	free(h->slots);
	free(h->total_period);
	free(h->total_samples);
	memset(h, 0, sizeof(*h));
}

/*
 * perf's dso,sym sort keys: binaries by the name shown (two builds of one program, or one path
 * mapped by two processes, are one line), functions by their start, else the address.
 */
static size_t key_hash(int attr_idx, const struct data_location *loc)
{
	__u64 k = (loc->dso ? loc->dso->short_hash : 0) * 31 +
		  (loc->sym ? loc->sym->start : loc->addr) + !!loc->sym;

	k = (k ^ (k >> 29) ^ (__u64)attr_idx * 0x9e3779b97f4a7c15ull ^ loc->level) *
	    0xbf58476d1ce4e5b9ull;
	return k ^ (k >> 32);
}

static bool same_dso(const struct data_dso *a, const struct data_dso *b)
{
	if (a == b)
		return true;
	return a && b && a->short_hash == b->short_hash && !strcmp(a->short_name, b->short_name);
}

static bool same_key(const struct hist_entry *e, int attr_idx, const struct data_location *loc)
{
	if (e->attr_idx != attr_idx || e->loc.level != loc->level ||
	    !same_dso(e->loc.dso, loc->dso) || !e->loc.sym != !loc->sym)
		return false;
	return loc->sym ? e->loc.sym->start == loc->sym->start : e->loc.addr == loc->addr;
}

static void rehash(struct data_hists *h)
{
	size_t i;

	free(h->slots);
	h->nr_slots *= 2;
	h->slots = xzalloc(h->nr_slots * sizeof(*h->slots));
	for (i = 0; i < h->nr; i++) {
		size_t s = key_hash(h->entries[i].attr_idx, &h->entries[i].loc) &
			   (h->nr_slots - 1);

		while (h->slots[s])
			s = (s + 1) & (h->nr_slots - 1);
		h->slots[s] = i + 1;
	}
}

void data_hists_add(struct data_hists *h, int attr_idx, const struct data_location *loc,
		    __u64 period)
{
	size_t s = key_hash(attr_idx, loc) & (h->nr_slots - 1);
	struct hist_entry *e;

	if (attr_idx < 0 || attr_idx >= h->nr_attrs)
		return;
	h->total_period[attr_idx] += period;
	h->total_samples[attr_idx]++;
	while (h->slots[s] && !same_key(&h->entries[h->slots[s] - 1], attr_idx, loc))
		s = (s + 1) & (h->nr_slots - 1);
	if (!h->slots[s]) {
		if (h->nr == h->cap) {
			h->cap = h->cap ? 2 * h->cap : 256;
			h->entries = xrealloc(h->entries, h->cap * sizeof(*h->entries));
		}
		e = &h->entries[h->nr++];
		memset(e, 0, sizeof(*e));
		e->attr_idx = attr_idx;
		e->loc = *loc;
		if (loc->sym)
			e->loc.addr = 0;
		h->slots[s] = h->nr;
		if (2 * h->nr > h->nr_slots) {
			rehash(h);
			e = &h->entries[h->nr - 1];
		}
	} else {
		e = &h->entries[h->slots[s] - 1];
	}
	e->samples++;
	e->period += period;
}

const char *hist_dso_name(const struct hist_entry *e)
{
	return e->loc.dso ? e->loc.dso->short_name : "[unknown]";
}

void hist_symbol_name(const struct hist_entry *e, char *buf, size_t size)
{
	if (e->loc.sym)
		snprintf(buf, size, "%s", e->loc.sym->name);
	else
		snprintf(buf, size, "0x%016llx", (unsigned long long)e->loc.addr);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct hist_entry *x = a, *y = b;
	char sx[256], sy[256];
	int c;

	if (x->attr_idx != y->attr_idx)
		return x->attr_idx - y->attr_idx;
	if (x->period != y->period)
		return x->period > y->period ? -1 : 1;
	c = strcmp(hist_dso_name(x), hist_dso_name(y));
	if (c)
		return c;
	hist_symbol_name(x, sx, sizeof(sx));
	hist_symbol_name(y, sy, sizeof(sy));
	return strcmp(sx, sy);
}

void data_hists_sort(struct data_hists *h)
{
	/* the slots point at the old order: sorting ends the adding */
	if (h->nr)
		qsort(h->entries, h->nr, sizeof(*h->entries), cmp_entry);
	memset(h->slots, 0, h->nr_slots * sizeof(*h->slots));
	rehash(h);
}
