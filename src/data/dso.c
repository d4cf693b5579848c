// SPDX-License-Identifier: GPL-2.0-only
#include "dso.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

void data_dsos_init(struct data_dsos *d)
{
	memset(d, 0, sizeof(*d));
	d->kallsyms_path = "/proc/kallsyms";
	d->kernel = data_dsos_get(d, "[kernel.kallsyms]");
	d->kernel->kernel = true;
}

static void dso_free(struct data_dso *dso)
{
	size_t i;

	for (i = 0; i < dso->nr_syms; i++)
		free(dso->syms[i].name);
	free(dso->syms);
	if (dso->jit)
		free(dso->short_name);	/* its own "[JIT] tid N", not a part of name */
	free(dso->name);
	free(dso);
}

void data_dsos_free(struct data_dsos *d)
{
	size_t i;

	for (i = 0; i < d->nr; i++)
		dso_free(d->dsos[i]);
	free(d->dsos);
	dso_demangler_close(d);
	memset(d, 0, sizeof(*d));
}

static __u64 name_hash(const char *s)
{
	__u64 h = 14695981039346656037ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

struct data_dso *data_dsos_get(struct data_dsos *d, const char *name)
{
	struct data_dso *dso;
	char *slash;
	size_t i;

	/* binaries are few (they come from mmaps, not samples): a list will do */
	for (i = 0; i < d->nr; i++)
		if (!strcmp(d->dsos[i]->name, name))
			return d->dsos[i];
	if (!(d->nr & (d->nr - 1)))
		d->dsos = xrealloc(d->dsos, (d->nr ? 2 * d->nr : 1) * sizeof(*d->dsos));
	dso = xzalloc(sizeof(*dso));
	dso->name = xstrdup(name);
	slash = name[0] == '[' ? NULL : strrchr(dso->name, '/');
	dso->short_name = slash ? slash + 1 : dso->name;
	dso->short_hash = name_hash(dso->short_name);
	d->dsos[d->nr++] = dso;
	return dso;
}

struct data_dso *data_dsos_get_jit(struct data_dsos *d, __u32 pid)
{
	char name[64];
	struct data_dso *dso;

	snprintf(name, sizeof(name), "/tmp/perf-%u.map", pid);
	dso = data_dsos_get(d, name);
	if (!dso->jit) {
		dso->jit = true;
		dso->short_name = xasprintf("[JIT] tid %u", pid);
		dso->short_hash = name_hash(dso->short_name);
	}
	return dso;
}

void data_dso_set_build_id(struct data_dso *dso, const unsigned char *id, size_t size)
{
	if (size > DSO_BUILD_ID_MAX)
		size = DSO_BUILD_ID_MAX;
	memcpy(dso->build_id, id, size);
	dso->build_id_size = size;
}

static int cmp_symbol(const void *a, const void *b)
{
	const struct data_symbol *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void fixup_ends(struct data_dso *dso)
{
	size_t i, n = dso->nr_syms;

	for (i = 0; i < n; i++) {
		struct data_symbol *s = &dso->syms[i];

		if (s->end <= s->start)
			s->end = i + 1 < n ? dso->syms[i + 1].start : s->start + 1;
	}
}

void dso_fixup_kallsyms(struct data_dso *dso)
{
	size_t i, n = 0;

	if (!dso->nr_syms)
		return;
	qsort(dso->syms, dso->nr_syms, sizeof(*dso->syms), cmp_symbol);
	fixup_ends(dso);
	for (i = 0; i < dso->nr_syms; i++) {
		struct data_symbol *s = &dso->syms[i];

		if (n && dso->syms[n - 1].start == s->start) {
			struct data_symbol *kept = &dso->syms[n - 1];

			if (!symbol_kept_over(kept, s)) {
				struct data_symbol tmp = *kept;

				*kept = *s;
				*s = tmp;
			}
			free(s->name);
			continue;
		}
		dso->syms[n++] = *s;
	}
	dso->nr_syms = n;
	fixup_ends(dso);
}

static void dso_load(struct data_dsos *d, struct data_dso *dso)
{
	if (dso->loaded)
		return;
	dso->loaded = true;
	if (dso == d->kernel)
		dso_load_kallsyms(d, dso);
	else if (dso->jit)
		dso_load_perf_map(d, dso);
	else if (dso->name[0] == '/' || !strcmp(dso->name, "[vdso]"))
		dso_load_elf(d, dso);
}

const struct data_symbol *data_dso_find(struct data_dsos *d, struct data_dso *dso, __u64 addr)
{
	size_t lo = 0, hi;

	dso_load(d, dso);
	if (dso->tree)
		return symtree_find(dso, addr);
	hi = dso->nr_syms;
	/* the last symbol starting at or below addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (dso->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= dso->syms[lo - 1].end)
		return NULL;
	return &dso->syms[lo - 1];
}
