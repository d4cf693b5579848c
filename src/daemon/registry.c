// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's leaders, slots, cgroup registrations and bases (registry.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../util/common.h"
#include "../counters/counter.h"
#include "../counters/leader_cgroups.h"
#include "../counters/leader_info.h"
#include "../counters/shared_join.h"
#include "../events/evlist.h"
#include "../util/target.h"
#include "exposition.h"
#include "registry_internal.h"

double registry_unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int registry_cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Events the PMU may multiplex: their enabled and running times are exported too. */
static bool may_multiplex(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_SOFTWARE && attr->type != PERF_TYPE_TRACEPOINT;
}

/* The daemon counts independent perf events: groups and bperf's own pseudo-events are refused. */
static int check_evsel(const struct evsel *e)
{
	if (e->nr_members > 1 || e->leader_idx != e->idx) {
		pr_err("bperf daemon: event groups are not supported (%s): list the events alone",
		       e->name);
		return -EINVAL;
	}
	if (e->tool != TOOL_NONE || e->bpf_prog_stat != BPF_PROG_STAT_NONE) {
		pr_err("bperf daemon: %s is not a perf event the daemon can count", e->name);
		return -EINVAL;
	}
	return 0;
}

/* Two events exported under one family name would make one family of two: refused. */
static int check_families(const struct registry *r)
{
	char (*names)[256] = xzalloc(r->nr_events * sizeof(*names));
	int i, j, err = 0;

	for (i = 0; i < r->nr_events && !err; i++) {
		const struct reg_event *e = &r->events[i];
		int len = exposition_family(e->name, e->seconds, names[i], sizeof(names[i]));

		if (len == -ENOSYS)
			break;	/* no exporter in this build: nothing to clash */
		if (len < 0) {
			pr_err("bperf daemon: no metric name for event %s", e->name);
			err = -EINVAL;
		}
		for (j = 0; j < i && !err; j++) {
			if (strcmp(names[i], names[j]))
				continue;
			pr_err("bperf daemon: events %s and %s would both be exported as %s",
			       r->events[j].name, e->name, names[i]);
			err = -EINVAL;
		}
	}
	free(names);
	return err;
}

/* The events of cfg->events this machine counts, into r->events. */
static int add_events(struct registry *r, const char *list, bool default_list)
{
	struct parse_events_ctx ctx = { .sysfs_root = getenv("BPERF_SYSFS_ROOT"),
					.verbose = r->verbose };
	struct parse_events_error perr = { .idx = -1 };
	struct evlist evlist = { 0 };
	int i, err = 0;

	if (parse_events(&evlist, list, &ctx, &perr)) {
		pr_err("bperf daemon: bad event list '%s': %s", list,
		       perr.str ? perr.str : "parser error");
		parse_events_error_free(&perr);
		evlist_free(&evlist);
		return -EINVAL;
	}
	for (i = 0; i < evlist.nr && !err; i++)
		err = check_evsel(&evlist.entries[i]);
	r->events = xzalloc(evlist.nr * sizeof(*r->events));
	for (i = 0; i < evlist.nr && !err; i++) {
		const struct evsel *e = &evlist.entries[i];
		int member_err;

		/* a refused event costs an open here, not a leader's BPF load */
		if (leader_probe_group(&e->attr, 1, &member_err)) {
			if (default_list)
				pr_debug(r->verbose, 1, "bperf daemon: %s is not counted here: %s",
					 e->name, strerror(-member_err));
			else
				pr_err("bperf daemon: %s left out: %s", e->name,
				       strerror(-member_err));
			continue;
		}
		r->events[r->nr_events].name = xstrdup(e->name);
		r->events[r->nr_events].attr = e->attr;
		r->events[r->nr_events].seconds = e->is_clock;
		r->events[r->nr_events].scaled = may_multiplex(&e->attr);
		r->nr_events++;
	}
	evlist_free(&evlist);
	if (!err && !r->nr_events) {
		pr_err("bperf daemon: none of the events '%s' can be counted here", list);
		err = -EINVAL;
	}
	return err ? err : check_families(r);
}

/*
 * Whether the events can be counted as one group, whatever else it holds: both may be
 * multiplexed by the PMU, or neither may. A software event in a hardware group is scheduled with
 * it, so it would count only while the group runs: its count would be a scaled one.
 */
static bool same_class(const struct reg_event *a, const struct reg_event *b)
{
	return a->scaled == b->scaled;
}

/*
 * The events of a group from events[first] on, in attrs and their indices in members; returns
 * how many. First fit in the events' order: each later event not in a group yet, of first's
 * class, joins while the group with it fits the PMU's counters (leader_group_fits(), with a
 * counter to spare for events the PMU multiplexes) and it holds fewer than LEADER_MAX_MEMBERS.
 */
static int fill_group(const struct registry *r, int first, const bool *placed,
		      struct perf_event_attr *attrs, int *members)
{
	int nr = 1, i;

	attrs[0] = r->events[first].attr;
	members[0] = first;
	for (i = first + 1; i < r->nr_events && nr < LEADER_MAX_MEMBERS; i++) {
		if (placed[i] || !same_class(&r->events[first], &r->events[i]))
			continue;
		attrs[nr] = r->events[i].attr;
		/* hardware groups keep a counter spare: a full one may never run beside others */
		if (!leader_group_fits(attrs, nr + 1, r->events[first].scaled))
			continue;
		members[nr++] = i;
	}
	return nr;
}

int registry_sync(struct registry *r)
{
	int i, err = 0;

	for (i = 0; i < r->nr_leaders && !err; i++)
		err = leader_sync(&r->leaders[i].h);
	return err;
}

static int join_leader(struct registry *r, struct reg_leader *l,
		       const struct perf_event_attr *attrs, int nr, const char *name)
{
	struct leader_session_spec spec = {
		.filter = FILTER_CPU,
		.cpus = r->cpus.cpus,
		.nr_cpus = r->cpus.nr,
		.enabled = true,
	};
	int err;

	err = shared_join(r->map_path, &l->key, attrs, nr, &spec, name, r->verbose, &l->h,
			  &l->slot, NULL);
	if (err) {
		if (err != -ECANCELED)
			pr_err("bperf daemon: cannot count %s: %s", name, strerror(-err));
		return err;
	}
	l->joined = true;
	r->nr_possible = leader_nr_cpus(&l->h);
	/* sessions of one of the events find the group's leader under their member keys */
	return nr > 1 ? shared_file_members(r->map_path, attrs, nr, &l->h) : 0;
}

/*
 * One leader for each group of events that open together (fill_group): one program at each
 * context switch for a group, where a leader per event costs one program per event.
 */
static int join_events(struct registry *r)
{
	struct perf_event_attr attrs[LEADER_MAX_MEMBERS];
	int members[LEADER_MAX_MEMBERS], nr, i, m, err;
	bool *placed = xzalloc(r->nr_events * sizeof(*placed));

	r->leaders = xzalloc(r->nr_events * sizeof(*r->leaders));
	for (i = 0, err = 0; i < r->nr_events && !err; i++) {
		struct reg_leader *l = &r->leaders[r->nr_leaders];

		if (placed[i])
			continue;
		nr = fill_group(r, i, placed, attrs, members);
		r->nr_leaders++;
		if (nr > 1)
			shared_group_key(attrs, nr, &l->key);
		else
			l->key = attrs[0];
		err = join_leader(r, l, attrs, nr, r->events[i].name);
		if (err)
			break;
		/*
		 * An event alone may have joined a group that counts it as one of its members
		 * (another daemon's, or this one's under an alias): its member there, not 0.
		 */
		for (m = 0; m < nr; m++) {
			placed[members[m]] = true;
			r->events[members[m]].leader = r->nr_leaders - 1;
			r->events[members[m]].member = leader_member(&l->h) + m;
		}
		pr_debug(r->verbose, 1, "bperf daemon: leader %d: %d event(s) from %s",
			 r->nr_leaders, nr, r->events[i].name);
	}
	free(placed);
	if (!err) {
		err = registry_sync(r);
		if (err)
			pr_err("bperf daemon: cannot read the counters: %s", strerror(-err));
	}
	for (i = 0; i < r->nr_events && !err; i++) {
		struct reg_event *e = &r->events[i];
		struct leader_handle *h = &r->leaders[e->leader].h;

		e->base = xzalloc(leader_nr_cpus(h) * sizeof(*e->base));
		err = leader_read_raw(h, e->member, e->base);
		if (err)
			pr_err("bperf daemon: cannot read the counter of %s: %s", e->name,
			       strerror(-err));
	}
	if (!err)
		r->buf = xzalloc(r->nr_possible * sizeof(*r->buf));
	return err;
}

/*
 * daemon.cgroup-cpu-series: "all", or a comma list of cgroup paths (as -G takes them). A list
 * that asks for more than max_series series stops the daemon.
 */
static int parse_cpu_series(struct registry *r, const char *value, int max_series)
{
	char *copy, *tok, *save;
	int per;

	r->root_folded = xzalloc((r->nr_events + 1) * sizeof(*r->root_folded));
	r->max_cpu_series = max_series;
	if (!value || !*value || !strcmp(value, "none"))
		return 0;
	if (!strcmp(value, "all")) {
		r->cpu_all = true;
		return 0;
	}
	copy = xstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*tok != '/' || !strcmp(tok, "/")) {
			pr_err("bperf daemon: bad cgroup '%s' in daemon.cgroup-cpu-series: a path "
			       "below the cgroup root such as /system.slice (the machine's CPUs "
			       "are always exported)", tok);
			free(copy);
			return -EINVAL;
		}
		r->cpu_paths = xrealloc(r->cpu_paths, (r->nr_cpu_paths + 1) * sizeof(char *));
		r->cpu_paths[r->nr_cpu_paths++] = xstrdup(tok);
	}
	free(copy);
	qsort(r->cpu_paths, r->nr_cpu_paths, sizeof(char *), registry_cmp_path);
	per = registry_series_per_cpu_cgroup(r);
	if ((long long)per * r->nr_cpu_paths > r->max_cpu_series) {
		pr_err("bperf daemon: daemon.cgroup-cpu-series asks for %lld CPU x cgroup series, "
		       "more than daemon.max-cgroup-cpu-series (%d)",
		       (long long)per * r->nr_cpu_paths, r->max_cpu_series);
		return -E2BIG;
	}
	return 0;
}

int registry_open(const struct daemon_config *cfg, bool default_list, struct registry **out)
{
	struct registry *r = xzalloc(sizeof(*r));
	int err;

	r->map_path = cfg->attr_map;
	r->verbose = cfg->verbose;
	r->start = registry_unix_now();
	err = cpu_map_online(&r->cpus);
	if (err) {
		pr_err("bperf daemon: cannot read the online CPUs: %s", strerror(-err));
		free(r);
		return err;
	}
	err = add_events(r, cfg->events, default_list);
	if (!err)
		err = parse_cpu_series(r, cfg->cgroup_cpu_series, cfg->max_cgroup_cpu_series);
	if (!err)
		err = join_events(r);
	if (err) {
		registry_close(r);
		return err;
	}
	for (int i = 0; i < r->nr_events; i++)
		pr_debug(r->verbose, 1, "bperf daemon: counting %s", r->events[i].name);
	*out = r;
	return 0;
}

int registry_nr_cgroups(const struct registry *r)
{
	return r->nr_counted;
}

static void diff_into(struct snap_value *v, const struct bpf_perf_event_value *now,
		      const struct bpf_perf_event_value *base)
{
	v->count = now->counter - base->counter;
	v->enabled = now->enabled - base->enabled;
	v->running = now->running - base->running;
}

/* One series per online CPU: values[cpu index] = now - base for each CPU. */
static void fill_cpus(const struct registry *r, struct snap_value *values,
		      const struct bpf_perf_event_value *now,
		      const struct bpf_perf_event_value *base)
{
	for (int c = 0; c < r->cpus.nr; c++) {
		int cpu = r->cpus.cpus[c];

		if (cpu >= 0 && (__u32)cpu < r->nr_possible)
			diff_into(&values[c], &now[cpu], &base[cpu]);
	}
}

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap && p)
		return p;
	free(p);
	*cap = need * 2 + 1;
	return xzalloc(*cap * size);
}

static void snapshot_storage(struct registry *r, int nr_shown)
{
	size_t nr_own = (size_t)r->nr_events * nr_shown;
	size_t nr_own_cpu = (size_t)r->nr_events * r->nr_cpu_cgroups * r->cpus.nr;

	if (!r->snap_events) {
		r->snap_events = xzalloc(r->nr_events * sizeof(*r->snap_events));
		for (int i = 0; i < r->nr_events; i++) {
			r->snap_events[i].name = r->events[i].name;
			r->snap_events[i].seconds = r->events[i].seconds;
			r->snap_events[i].scaled = r->events[i].scaled;
		}
		r->snap_machine = xzalloc((size_t)r->nr_events * r->cpus.nr *
					  sizeof(*r->snap_machine));
	}
	r->snap_cgroups = grow(r->snap_cgroups, &r->snap_cgroups_cap, nr_shown,
			       sizeof(*r->snap_cgroups));
	r->snap_cpu_cgroups = grow(r->snap_cpu_cgroups, &r->snap_cpu_cgroups_cap,
				   r->nr_cpu_cgroups + 1, sizeof(*r->snap_cpu_cgroups));
	r->snap_own = grow(r->snap_own, &r->snap_own_cap, nr_own, sizeof(*r->snap_own));
	r->snap_own_cpu = grow(r->snap_own_cpu, &r->snap_own_cpu_cap, nr_own_cpu + 1,
			       sizeof(*r->snap_own_cpu));
}

/* The snapshot's cgroups: "/" (what ran outside them all), then the counted ones by path. */
static void snapshot_cgroups(struct registry *r)
{
	int cg = 1, i;

	r->snap_cgroups[0].path = "/";
	r->snap_cgroups[0].created = r->start;
	for (i = 0; i < r->nr_cgroups; i++) {
		const struct reg_cgroup *c = &r->cgroups[i];

		if (!c->counted)
			continue;
		if (c->per_cpu)
			r->snap_cpu_cgroups[c->cpu_pos] = cg;
		r->snap_cgroups[cg].path = c->path;
		r->snap_cgroups[cg++].created = c->created;
	}
}

int registry_snapshot(struct registry *r, struct snapshot *s)
{
	int nr_shown, ev, err;

	registry_retry_bases(r);
	nr_shown = 1 + r->nr_counted;
	snapshot_storage(r, nr_shown);
	snapshot_cgroups(r);
	err = registry_sync(r);
	for (ev = 0; ev < r->nr_events && !err; ev++) {
		struct reg_event *e = &r->events[ev];

		err = leader_read_raw(&r->leaders[e->leader].h, e->member, r->buf);
		if (!err)
			fill_cpus(r, &r->snap_machine[(size_t)ev * r->cpus.nr], r->buf, e->base);
	}
	if (!err)
		err = registry_read_cgroups(r);
	if (err)
		return err;
	*s = (struct snapshot){
		.nr_events = r->nr_events,
		.nr_cgroups = nr_shown,
		.nr_cpus = r->cpus.nr,
		.nr_cpu_cgroups = r->nr_cpu_cgroups,
		.nr_dropped = r->nr_dropped,
		.start = r->start,
		.events = r->snap_events,
		.cgroups = r->snap_cgroups,
		.cpus = r->cpus.cpus,
		.cpu_cgroups = r->snap_cpu_cgroups,
		.machine = r->snap_machine,
		.own = r->snap_own,
		.own_cpu = r->snap_own_cpu,
	};
	return 0;
}

int registry_start_error(const struct registry *r)
{
	return r->start_error;
}

void registry_close(struct registry *r)
{
	int i;

	if (!r)
		return;
	registry_free_cgroups(r);
	for (i = 0; i < r->nr_leaders; i++) {
		struct reg_leader *l = &r->leaders[i];

		if (l->joined)
			shared_leave(r->map_path, &l->key, &l->h, l->slot, 0);
	}
	free(r->leaders);
	for (i = 0; i < r->nr_events; i++) {
		free(r->events[i].name);
		free(r->events[i].base);
	}
	free(r->events);
	free(r->buf);
	free(r->snap_events);
	free(r->snap_cgroups);
	free(r->snap_cpu_cgroups);
	free(r->snap_machine);
	free(r->snap_own);
	free(r->snap_own_cpu);
	cpu_map_free(&r->cpus);
	free(r);
}
