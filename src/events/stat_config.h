/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The attr settings perf stat adds just before opening a counter
 * (create_perf_stat_counter in perf 6.1's builtin-stat.c).
 */
#ifndef BPERF_EVENTS_STAT_CONFIG_H
#define BPERF_EVENTS_STAT_CONFIG_H

#include <stdbool.h>

#include "events/evlist.h"

struct stat_attr_opts {
	bool no_inherit;	/* -i: children are not counted */
	/*
	 * Counting a forked workload with no -p/-t/-a/-C target and no -D
	 * delay: group leaders get enable_on_exec (perf's target__enable_on_exec).
	 */
	bool enable_on_exec;
	bool no_identifier;	/* perf stat record to a pipe: keep the parsed sample_type */
	bool all_user;		/* --all-user */
	bool all_kernel;	/* --all-kernel */
};

/*
 * Sets read_format (ID|GROUP in groups of more than one event), inherit,
 * sample_period 0, sample_type IDENTIFIER, --all-user/--all-kernel, and for
 * group leaders disabled (and enable_on_exec when opts say so). perf keeps
 * inherit for :b events too (Debian's perf 6.1 has no BPF counters, and
 * prints inherit 1 for them).
 */
void evsel_config_for_stat(struct evsel *evsel, const struct stat_attr_opts *opts);

/*
 * Only what depends on the evsel's place in a group: read_format, and disabled (enable_on_exec
 * when asked) for a leader. perf redoes this at every open, so an event taken out of its group
 * opens as a leader of its own.
 */
void evsel_config_group_for_stat(struct evsel *evsel, bool enable_on_exec);

/* The same for every evsel of the list. */
void evlist_config_for_stat(struct evlist *evlist, const struct stat_attr_opts *opts);

#endif
