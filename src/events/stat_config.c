// SPDX-License-Identifier: GPL-2.0-only
/* perf stat's last-minute attr settings, from perf 6.1's create_perf_stat_counter. */
#include "events/stat_config.h"

void evsel_config_group_for_stat(struct evsel *evsel, bool enable_on_exec)
{
	struct perf_event_attr *attr = &evsel->attr;

	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (evsel->in_group)
		attr->read_format |= PERF_FORMAT_ID | PERF_FORMAT_GROUP;
	/* leaders start disabled: the kernel enables them at exec, or bperf does */
	if (evsel->leader_idx == evsel->idx) {
		attr->disabled = 1;
		if (enable_on_exec)
			attr->enable_on_exec = 1;
	}
}

void evsel_config_for_stat(struct evsel *evsel, const struct stat_attr_opts *opts)
{
	struct perf_event_attr *attr = &evsel->attr;

	evsel->parsed_attr = *attr;
	evsel_config_group_for_stat(evsel, opts->enable_on_exec);
	attr->inherit = !opts->no_inherit;
	/* tracepoints and breakpoints come with a sample period; counting wants none */
	attr->sample_period = 0;
	if (!opts->no_identifier)
		attr->sample_type = PERF_SAMPLE_IDENTIFIER;
	if (opts->all_user) {
		attr->exclude_kernel = 1;
		attr->exclude_user = 0;
	}
	if (opts->all_kernel) {
		attr->exclude_kernel = 0;
		attr->exclude_user = 1;
	}
}

void evlist_config_for_stat(struct evlist *evlist, const struct stat_attr_opts *opts)
{
	for (int i = 0; i < evlist->nr; i++)
		evsel_config_for_stat(&evlist->entries[i], opts);
}
