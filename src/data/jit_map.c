// SPDX-License-Identifier: GPL-2.0-only
/*
 * A JIT's symbols: the /tmp/perf-PID.map file JITs write (node --perf-basic-prof, the JVM's
 * perf-map-agent, ...), a line "START SIZE name" per function, hex numbers, read as perf 6.1
 * reads it: each line's last character dropped (its newline), the name is the rest of the
 * line after the second separator (spaces included) and needs three characters, and the
 * symbols go into perf's tree as they come, with no fix-up: a sizeless one holds only its
 * start, overlapping ones are told apart by the tree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "dso.h"

/* Parses "START SIZE name" (line without its last character); false for a line perf skips. */
static bool parse_line(char *line, size_t len, __u64 *start, __u64 *size, const char **name)
{
	size_t at;
	char *end;

	*start = strtoull(line, &end, 16);
	at = end - line + 1;
	if (at + 2 >= len)
		return false;
	*size = strtoull(line + at, &end, 16);
	at = end - line + 1;
	if (at + 2 >= len)
		return false;
	*name = line + at;
	return true;
}

int dso_load_perf_map(struct data_dsos *d, struct data_dso *dso)
{
	FILE *f = fopen(dso->name, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;

	dso->tree = true;
	if (!f) {
		int err = -errno;

		if (!d->quiet)
			pr_err("bperf: %s: %s: the JIT's samples stay unresolved", dso->name,
			       strerror(errno));
		return err;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		__u64 start, size;
		const char *name;

		line[--len] = '\0';
		if (parse_line(line, len, &start, &size, &name))
			symtree_add(dso, start, size, xstrdup(name), 'g');
	}
	free(line);
	fclose(f);
	return 0;
}
