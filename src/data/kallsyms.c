// SPDX-License-Identifier: GPL-2.0-only
/* The kernel's functions from /proc/kallsyms, modules split off as "[name]" binaries. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "dso.h"

/* perf keeps text, weak, data and bss symbols: each ends where the next begins */
static bool wanted_type(char type)
{
	type = toupper((unsigned char)type);
	return type == 'T' || type == 'W' || type == 'D' || type == 'B';
}

/*
 * A recording from another boot (KASLR): the kernel's own functions (not modules, which load
 * anywhere) move by the difference between its _text then and now, as perf's do.
 */
static void relocate_kernel(struct data_dso *kernel, __u64 text_then, __u64 text_now)
{
	__u64 delta = text_then - text_now;
	size_t i;

	if (!text_then || !text_now || !delta)
		return;
	for (i = 0; i < kernel->nr_syms; i++)
		if (!kernel->syms[i].module)
			kernel->syms[i].start += delta;
}

int dso_load_kallsyms(struct data_dsos *d, struct data_dso *kernel)
{
	FILE *f = fopen(d->kallsyms_path, "re");
	size_t cap = 0, i;
	char line[512];
	bool all_zero = true;
	__u64 text = 0;

	if (!f) {
		int err = -errno;

		if (!d->quiet)
			pr_err("bperf: cannot read %s: kernel samples stay unresolved",
			       d->kallsyms_path);
		return err;
	}
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], module[128] = "";
		unsigned long long addr;
		struct data_symbol *s;

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, module) < 3 ||
		    !wanted_type(type))
			continue;
		all_zero &= !addr;
		if (!module[0] && (!strcmp(name, "_text") || (!text && !strcmp(name, "_stext"))))
			text = addr;
		if (kernel->nr_syms == cap) {
			cap = cap ? 2 * cap : 65536;
			kernel->syms = xrealloc(kernel->syms, cap * sizeof(*kernel->syms));
		}
		s = &kernel->syms[kernel->nr_syms++];
		memset(s, 0, sizeof(*s));
		s->start = addr;
		s->name = xstrdup(name);
		s->seq = kernel->nr_syms;
		s->binding = toupper((unsigned char)type) == 'W' ? 'w' : isupper(type) ? 'g' : 'l';
		if (module[0]) {
			char *dso_name = xasprintf("[%s]", module);

			s->module = data_dsos_get(d, dso_name);
			s->module->kernel = true;
			s->module->loaded = true;
			free(dso_name);
		}
	}
	fclose(f);
	if (all_zero && kernel->nr_syms) {
		/* kptr_restrict hides the addresses: nothing can be resolved */
		if (!d->quiet)
			pr_err("bperf: %s shows no addresses (kptr_restrict): kernel samples stay "
			       "unresolved", d->kallsyms_path);
		for (i = 0; i < kernel->nr_syms; i++)
			free(kernel->syms[i].name);
		kernel->nr_syms = 0;
		return -EPERM;
	}
	relocate_kernel(kernel, d->kernel_text, text);
	dso_fixup_kallsyms(kernel);
	return 0;
}
