// SPDX-License-Identifier: GPL-2.0-only
#include "filter.h"

#include <errno.h>
#include <stdlib.h>

#include "util/common.h"

/* The PMU's nr_addr_filters in sysfs: 0 when it has none (software, msr, ...). */
static int pmu_nr_addr_filters(const struct evsel *e, const char *sysfs_root)
{
	char path[512], buf[32];

	if (!e->pmu_name)
		return 0;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/nr_addr_filters",
		 sysfs_root && *sysfs_root ? sysfs_root : "/sys", e->pmu_name);
	if (read_text_file(path, buf, sizeof(buf)))
		return 0;
	return atoi(buf);
}

static void append(struct evsel *e, const char *fmt_joined, const char *filter)
{
	char *joined;

	if (!e->filter) {
		e->filter = xstrdup(filter);
		return;
	}
	joined = xasprintf(fmt_joined, e->filter, filter);
	free(e->filter);
	e->filter = joined;
}

int evlist_add_filter(struct evlist *evlist, int first, const char *filter,
		      const char *sysfs_root)
{
	int i;

	if (!evlist->nr) {
		pr_err("--filter option should follow a -e tracepoint or HW tracer option");
		return -EINVAL;
	}
	for (i = evlist->nr - 1; i >= first && i >= 0; i--) {
		struct evsel *e = &evlist->entries[i];

		if (e->attr.type == PERF_TYPE_TRACEPOINT) {
			append(e, "(%s) && (%s)", filter);
			continue;
		}
		/* bperf hands address filters to the kernel as typed (perf resolves symbols) */
		if (!pmu_nr_addr_filters(e, sysfs_root)) {
			pr_err("This CPU does not support address filtering");
			return -EINVAL;
		}
		append(e, "%s,%s", filter);
	}
	return 0;
}
