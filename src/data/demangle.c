// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ function names as perf report shows them: perf 6.1 demangles with libiberty's
 * cplus_demangle() without DMGL_PARAMS, which leaves out the parameter list, the
 * function's qualifiers and a template function's return type ("ns::K::f", "foo<int>").
 * bperf demangles with libstdc++'s __cxa_demangle() (the same demangler, found at run time
 * so that C programs need nothing more) and then cuts those parts off.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "dso.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

/* The operator's own characters after "operator" (so "operator<" opens no template). */
static size_t operator_len(const char *s, size_t at)
{
	size_t i = at + 8;

	/* the keyword itself, not the end of an identifier such as "cooperator" */
	if (strncmp(s + at, "operator", 8) || (at && (isalnum((unsigned char)s[at - 1]) ||
						       s[at - 1] == '_')))
		return 0;
	if (!strncmp(s + i, "()", 2) || !strncmp(s + i, "[]", 2))
		return 10;
	while (s[i] && strchr("<>=!+-*/%^&|~,", s[i]))
		i++;
	return i - at;
}

/* Index of the '(' that opens the parameter list ending at s[end], or -1. */
static long params_start(const char *s, size_t end)
{
	long depth = 0, i;

	for (i = (long)end; i >= 0; i--) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && !--depth)
			return i;
	}
	return -1;
}

/*
 * Where the name starts after a template function's return type: past the last space at
 * bracket depth 0 that comes before the name's operator, if the name ends in a template.
 */
static size_t name_start(const char *s, size_t len)
{
	size_t i, start = 0, op;
	int depth = 0;

	if (!len || s[len - 1] != '>')
		return 0;
	for (i = 0; i < len; i++) {
		op = operator_len(s, i);
		if (op && !depth)
			break;
		if (op) {
			i += op - 1;
			continue;
		}
		if (strchr("<({[", s[i]))
			depth++;
		else if (strchr(">)}]", s[i]) && depth)
			depth--;
		else if (s[i] == ' ' && !depth)
			start = i + 1;
	}
	return start;
}

static const char *const qualifiers[] = { " const", " volatile", " &&", " &", " noexcept" };

/* perf's form of a full demangled name: parameters, qualifiers and return type cut off. */
static char *without_params(const char *full)
{
	size_t len = strlen(full), clone = len, i, start;
	bool cut = true;
	long open;

	/* "foo(int) [clone .cold]": the clone suffix stays, after the name */
	for (i = 0; full[i]; i++)
		if (!strncmp(full + i, " [clone ", 8)) {
			clone = i;
			break;
		}
	len = clone;
	while (cut) {
		cut = false;
		for (i = 0; i < ARRAY_SIZE(qualifiers); i++) {
			size_t q = strlen(qualifiers[i]);

			if (len > q && !strncmp(full + len - q, qualifiers[i], q)) {
				len -= q;
				cut = true;
			}
		}
	}
	if (!len || full[len - 1] != ')')
		return xstrdup(full);	/* not a function: "vtable for X", a variable */
	open = params_start(full, len - 1);
	if (open <= 0)
		return xstrdup(full);
	len = open;
	start = name_start(full, len);
	return xasprintf("%.*s%s", (int)(len - start), full + start, full + clone);
}

/* __cxa_demangle from the libstdc++ every Debian system has, or NULL. */
static cxa_demangle_fn find_demangler(struct data_dsos *d)
{
	if (!d->demangler_tried) {
		d->demangler_tried = true;
		d->libstdcxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
		if (d->libstdcxx)
			d->cxa_demangle = dlsym(d->libstdcxx, "__cxa_demangle");
	}
	return (cxa_demangle_fn)d->cxa_demangle;
}

char *dso_symbol_name(struct data_dsos *d, const char *elf_name)
{
	cxa_demangle_fn demangle;
	char *full, *name;
	int status = -1;

	if (strncmp(elf_name, "_Z", 2) || !(demangle = find_demangler(d)))
		return xstrdup(elf_name);
	full = demangle(elf_name, NULL, NULL, &status);
	name = !status && full ? without_params(full) : xstrdup(elf_name);
	free(full);
	return name;
}

void dso_demangler_close(struct data_dsos *d)
{
	if (d->libstdcxx)
		dlclose(d->libstdcxx);
	d->libstdcxx = NULL;
	d->cxa_demangle = NULL;
}
