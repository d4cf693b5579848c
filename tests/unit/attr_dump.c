// SPDX-License-Identifier: GPL-2.0-only
/*
 * attr_dump: parses -e strings and prints, for every event perf stat would
 * open, the attr block `perf stat -vv` prints before its first open attempt,
 * then "name: <name>" lines. perf 6.1 opens tool events (duration_time...)
 * as dummy software events, so they get a block as well. A helper for
 * comparing bperf's encoding with perf's while `bperf stat -vv` is not
 * available (tests/shell/attr_vs_perf.sh uses it through $ATTR_DUMP).
 *
 * usage: attr_dump [-a] [-C cpus] [-p|-t pid] [-D ms] [-i] [-g] [--all-user] [--all-kernel]
 *                  [-v...] -e STR...
 */
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "events/evlist.h"
#include "events/stat_config.h"

static const char dashes[] = "------------------------------------------------------------";

int main(int argc, char **argv)
{
	struct stat_attr_opts opts = { .enable_on_exec = true };
	struct parse_events_ctx ctx = { 0 };
	struct evlist evlist = { 0 };
	bool group = false, any = false, cpu_target = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-a") || !strcmp(a, "-C")) {
			opts.enable_on_exec = false;
			cpu_target = true;
			if (!strcmp(a, "-C"))
				i++;	/* the CPU list */
		} else if (!strcmp(a, "-p") || !strcmp(a, "-t") || !strcmp(a, "-D")) {
			opts.enable_on_exec = false;
			i++;
		} else if (!strcmp(a, "-i")) {
			opts.no_inherit = true;
		} else if (!strcmp(a, "-g")) {
			group = true;
		} else if (!strcmp(a, "--all-user")) {
			opts.all_user = true;
		} else if (!strcmp(a, "--all-kernel")) {
			opts.all_kernel = true;
		} else if (!strncmp(a, "-v", 2)) {
			ctx.verbose += (int)strlen(a) - 1;
		} else if (!strcmp(a, "-e") && i + 1 < argc) {
			struct parse_events_error err = { .idx = -1 };

			any = true;
			if (parse_events(&evlist, argv[++i], &ctx, &err)) {
				parse_events_error_print(stderr, argv[i], &err);
				parse_events_error_free(&err);
				evlist_free(&evlist);
				return EXIT_USAGE;
			}
			parse_events_error_free(&err);
		} else {
			fprintf(stderr, "attr_dump: unknown argument %s\n", a);
			return EXIT_USAGE;
		}
	}
	if (!any)
		evlist_add_default(&evlist, cpu_target, &ctx);
	if (group)
		evlist_make_single_group(&evlist);
	if (evlist_needs_system_wide(&evlist))
		opts.enable_on_exec = false;
	evlist_config_for_stat(&evlist, &opts);
	for (int i = 0; i < evlist.nr; i++) {
		const struct evsel *e = &evlist.entries[i];

		/* perf 6.1 opens tool events too, as software dummy events */
		printf("%s\n", dashes);
		perf_event_attr_fprintf(stdout, &e->attr);
		printf("%s\n", dashes);
	}
	for (int i = 0; i < evlist.nr; i++) {
		const struct evsel *e = &evlist.entries[i];

		printf("name: %s unit: %s scale: %g leader: %d members: %d%s%s\n", e->name,
		       e->unit, e->scale, e->leader_idx, e->nr_members, e->percore ? " percore" : "",
		       e->tool ? " tool" : "");
	}
	evlist_free(&evlist);
	return 0;
}
