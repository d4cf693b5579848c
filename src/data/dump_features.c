// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf data dump`: the contents of the feature sections a reader of sample files wants to see,
 * labelled as `perf report --header-only` labels them ("hostname : ..."), one per line after
 * the section's place in the file.
 */
#include "dump.h"

static void dump_string(struct feat_cursor *c, const char *label, FILE *out)
{
	const char *s;

	if (!feat_cursor_string(c, &s))
		fprintf(out, "  %s : %s\n", label, s);
}

/* perf's cmdline line: each argument followed by a blank, quotes escaped. */
static void dump_cmdline(struct feat_cursor *c, FILE *out)
{
	const char *arg;
	__u32 nr, i;

	if (feat_cursor_u32(c, &nr))
		return;
	fputs("  cmdline : ", out);
	for (i = 0; i < nr && !feat_cursor_string(c, &arg); i++) {
		for (; *arg; arg++) {
			if (*arg == '\'')
				fputc('\\', out);
			fputc(*arg, out);
		}
		fputc(' ', out);
	}
	fputc('\n', out);
}

/* The build ids with a file name (a damaged entry was reported when the file was opened). */
static void dump_build_ids(struct data_session *s, struct feat_cursor *c, FILE *out)
{
	struct data_build_id e;
	size_t pos = 0, i;

	while (data_build_id_next(&s->r, c, &pos, &e) > 0) {
		if (!e.filename)
			continue;
		fputs("  build id ", out);
		for (i = 0; i < e.id_size; i++)
			fprintf(out, "%02x", e.id[i]);
		fprintf(out, " pid %d %s\n", e.pid, e.filename);
	}
}

void data_dump_feature(struct data_session *s, int feat, FILE *out)
{
	static const char *const labels[FEAT_LAST] = {
		[FEAT_HOSTNAME] = "hostname", [FEAT_OSRELEASE] = "os release",
		[FEAT_VERSION] = "perf version", [FEAT_ARCH] = "arch",
		[FEAT_CPUDESC] = "cpudesc", [FEAT_CPUID] = "cpuid",
	};
	struct feat_cursor c;
	__u32 online, avail;
	__u64 v, last;
	int i;

	if (feat == FEAT_EVENT_DESC) {
		for (i = 0; i < s->env.nr_events; i++)
			fprintf(out, "  event %d : name = %s, ids = %u\n", i,
				s->env.events[i].name ? s->env.events[i].name : "",
				s->env.events[i].nr_ids);
		return;
	}
	if (feat_cursor_load(&s->r, feat, &c) <= 0)
		return;
	if (feat < FEAT_LAST && labels[feat]) {
		dump_string(&c, labels[feat], out);
	} else if (feat == FEAT_NRCPUS) {
		/* stored avail first, printed online first, as perf does */
		if (!feat_cursor_u32(&c, &avail) && !feat_cursor_u32(&c, &online))
			fprintf(out, "  nrcpus online : %u\n  nrcpus avail : %u\n", online, avail);
	} else if (feat == FEAT_TOTAL_MEM) {
		if (!feat_cursor_u64(&c, &v))
			fprintf(out, "  total memory : %llu kB\n", (unsigned long long)v);
	} else if (feat == FEAT_CMDLINE) {
		dump_cmdline(&c, out);
	} else if (feat == FEAT_BUILD_ID) {
		dump_build_ids(s, &c, out);
	} else if (feat == FEAT_SAMPLE_TIME) {
		if (!feat_cursor_u64(&c, &v) && !feat_cursor_u64(&c, &last))
			fprintf(out, "  sample time : first %llu, last %llu\n",
				(unsigned long long)v, (unsigned long long)last);
	}
	feat_cursor_free(&c);
}
