// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's leaders, slots, cgroup registrations and bases (registry.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../common.h"
#include "../counters/counter.h"
#include "../counters/leader_cgroups.h"
#include "../counters/shared_join.h"
#include "../events/evlist.h"
#include "../stat/target.h"
#include "exposition.h"
#include "registry.h"

/*
 * A leader the daemon holds a slot in: one for each group of its events that opens as a perf
 * group (up to LEADER_MAX_MEMBERS of one class, join_events), one for an event left alone.
 */
struct reg_leader {
	struct perf_event_attr key;	/* its attr map key: the event's, or the group's */
	struct leader_handle h;
	__u32 slot;
	bool joined;
};

struct reg_event {
	char *name;
	struct perf_event_attr attr;	/* as parsed: the attr map key bperf stat uses too */
	bool seconds, scaled;
	int leader;			/* its leader in registry.leaders */
	__u32 member;			/* and its member there */
	struct bpf_perf_event_value *base;	/* [possible CPUs]: raw readings at the start */
};

struct reg_cgroup {
	char *path;
	__u64 id;
	double created;
	bool counted;		/* registered in every leader */
	bool tried;		/* registration was tried (else: the attr map could not be locked) */
	__u32 *idx;		/* [leader]: its index in each leader */
	struct bpf_perf_event_value *base;	/* [event][possible CPU]: sums at registration */
};

struct registry {
	const char *map_path;
	int verbose;
	struct cpu_map cpus;	/* the CPUs online at the start: the slots' and the series' */
	__u32 nr_possible;	/* the leaders' per-CPU width */
	int nr_events;
	struct reg_event *events;
	int nr_leaders;
	struct reg_leader *leaders;
	int nr_cgroups;
	struct reg_cgroup *cgroups;	/* sorted by path */
	int nr_counted;
	double start;
	bool walked;		/* the first walk's cgroups are there: later ones are new */
	bool cg_warned;		/* said once why cgroups cannot be counted */
	struct bpf_perf_event_value *buf;	/* [possible CPUs] */
	struct bpf_perf_event_value *batch;	/* a leader's sums of a range of indices */
	size_t batch_cap;
	int batch_leader;	/* whose sums batch holds in this snapshot (-1: none) */
	bool batch_ok;
	/* the last snapshot's storage, reused */
	struct snap_event *snap_events;
	struct snap_cgroup *snap_cgroups;
	struct snap_value *snap_values;
	size_t snap_cgroups_cap, snap_values_cap;
};

static double unix_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

/* Brings every leader's sums up to date, as its readers must before they read (leader_sync). */
static int sync_leaders(struct registry *r)
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
	r->nr_possible = l->h.nr_cpus;
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
			r->events[members[m]].member = l->h.member + m;
		}
		pr_debug(r->verbose, 1, "bperf daemon: leader %d: %d event(s) from %s",
			 r->nr_leaders, nr, r->events[i].name);
	}
	free(placed);
	if (!err) {
		err = sync_leaders(r);
		if (err)
			pr_err("bperf daemon: cannot read the counters: %s", strerror(-err));
	}
	for (i = 0; i < r->nr_events && !err; i++) {
		struct reg_event *e = &r->events[i];
		struct leader_handle *h = &r->leaders[e->leader].h;

		e->base = xzalloc(h->nr_cpus * sizeof(*e->base));
		err = leader_read_raw(h, e->member, e->base);
		if (err)
			pr_err("bperf daemon: cannot read the counter of %s: %s", e->name,
			       strerror(-err));
	}
	if (!err)
		r->buf = xzalloc(r->nr_possible * sizeof(*r->buf));
	return err;
}

int registry_open(const struct daemon_config *cfg, bool default_list, struct registry **out)
{
	struct registry *r = xzalloc(sizeof(*r));
	int err;

	r->map_path = cfg->attr_map;
	r->verbose = cfg->verbose;
	r->start = unix_now();
	err = cpu_map_online(&r->cpus);
	if (err) {
		pr_err("bperf daemon: cannot read the online CPUs: %s", strerror(-err));
		free(r);
		return err;
	}
	err = add_events(r, cfg->events, default_list);
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

static void cgroup_free(struct reg_cgroup *cg)
{
	free(cg->path);
	free(cg->idx);
	free(cg->base);
}

/* Why cgroups are not counted, once: the leader's per-cgroup sums are missing or full. */
static void cgroup_refused(struct registry *r, const struct reg_cgroup *cg, int err)
{
	if (r->cg_warned)
		return;
	r->cg_warned = true;
	if (err == -ENOSYS)
		pr_err("bperf daemon: per-cgroup counting is not available in this build: "
		       "only the CPU-wide series are exported");
	else
		pr_err("bperf daemon: cannot count cgroup %s%s: %s", cg->path,
		       err == -ENOSPC ? " (and further ones)" : "", strerror(-err));
}

/* Registers cg in every leader; all or nothing. The attr map is locked. */
static void cgroup_register(struct registry *r, struct reg_cgroup *cg)
{
	int i, err = 0;

	cg->tried = true;
	if (!cg->idx)
		cg->idx = xzalloc(r->nr_leaders * sizeof(*cg->idx));
	for (i = 0; i < r->nr_leaders && !err; i++)
		err = leader_cg_get(&r->leaders[i].h, r->leaders[i].slot, cg->id, &cg->idx[i]);
	if (err) {
		for (i -= 2; i >= 0; i--)
			leader_cg_put(&r->leaders[i].h, r->leaders[i].slot, cg->id);
		cgroup_refused(r, cg, err);
		return;
	}
	cg->counted = true;
	r->nr_counted++;
	pr_debug(r->verbose, 2, "bperf daemon: counting cgroup %s", cg->path);
}

/*
 * locked: the attr map is, and the registrations are dropped; else they stay in the leaders
 * until the daemon's slots are released, which drops them all.
 */
static void cgroup_unregister(struct registry *r, struct reg_cgroup *cg, bool locked)
{
	int i;

	if (!cg->counted)
		return;
	for (i = 0; i < r->nr_leaders && locked; i++)
		leader_cg_put(&r->leaders[i].h, r->leaders[i].slot, cg->id);
	cg->counted = false;
	r->nr_counted--;
	pr_debug(r->verbose, 2, "bperf daemon: dropped cgroup %s", cg->path);
}

/* The bases of the cgroups registered just now: their sums at this moment. */
static void take_cgroup_bases(struct registry *r, struct reg_cgroup *cgs, const bool *fresh)
{
	int i, j, err = sync_leaders(r);

	for (i = 0; i < r->nr_events; i++) {
		struct reg_event *e = &r->events[i];
		struct leader_handle *h = &r->leaders[e->leader].h;

		for (j = 0; j < r->nr_cgroups; j++) {
			struct reg_cgroup *cg = &cgs[j];

			if (!fresh[j] || !cg->counted)
				continue;
			if (!cg->base)
				cg->base = xzalloc((size_t)r->nr_events * r->nr_possible *
						   sizeof(*cg->base));
			if (!err)
				leader_cg_read(h, cg->idx[e->leader], e->member,
					       &cg->base[i * r->nr_possible]);
		}
	}
}

void registry_set_cgroups(struct registry *r, const struct cgroup_entry *list, int nr)
{
	struct reg_cgroup *next = xzalloc((nr + 1) * sizeof(*next));
	struct reg_cgroup *gone = xzalloc((r->nr_cgroups + 1) * sizeof(*gone));
	bool *fresh = xzalloc((nr + 1) * sizeof(*fresh));
	int i = 0, j = 0, n = 0, nr_gone = 0, nr_fresh = 0;
	/* OpenMetrics' _created: the start for the cgroups there at the start */
	double now = r->walked ? unix_now() : r->start;
	struct attr_map map;
	bool locked = false;

	/* both sorted by path: a merge */
	while (i < r->nr_cgroups || j < nr) {
		int cmp = i == r->nr_cgroups ? 1 : j == nr ? -1 :
			  strcmp(r->cgroups[i].path, list[j].path);

		if (cmp == 0 && r->cgroups[i].id == list[j].id) {
			/* one the attr map's lock kept out last time is tried again */
			next[n] = r->cgroups[i++];
			if (!next[n].tried) {
				next[n].created = now;
				fresh[n] = true;
				nr_fresh++;
			}
			n++;
			j++;
			continue;
		}
		/* a cgroup removed and made again under its path is a new one */
		if (cmp <= 0)
			gone[nr_gone++] = r->cgroups[i++];
		if (cmp >= 0) {
			next[n].path = xstrdup(list[j].path);
			next[n].id = list[j++].id;
			next[n].created = now;
			fresh[n++] = true;
			nr_fresh++;
		}
	}
	if ((nr_gone || nr_fresh) && r->nr_events)
		locked = !attr_map_open_locked(&map, r->map_path);
	for (i = 0; i < nr_gone; i++) {
		cgroup_unregister(r, &gone[i], locked);
		cgroup_free(&gone[i]);
	}
	for (i = 0; i < n && locked; i++)
		if (fresh[i])
			cgroup_register(r, &next[i]);
	if (locked)
		attr_map_close(&map);
	free(r->cgroups);
	r->cgroups = next;
	r->nr_cgroups = n;
	if (nr_fresh)
		take_cgroup_bases(r, next, fresh);
	r->walked = true;
	free(gone);
	free(fresh);
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

/*
 * The counted cgroups' sums of event ev, one system call for the range of indices they use
 * (a lookup per cgroup costs 1-2 us each: 5 ms for 1,000 cgroups and 5 events), else one lookup
 * each; into values, [counted cgroup][online CPU index].
 */
static int read_cgroups(struct registry *r, int ev, struct snap_value *values)
{
	const struct reg_event *e = &r->events[ev];
	const struct leader_handle *h = &r->leaders[e->leader].h;
	__u32 lo = ~0u, hi = 0, nr_members = h->nr_members;
	size_t need;
	int i, cg, err = 0;

	for (i = 0; i < r->nr_cgroups; i++) {
		if (!r->cgroups[i].counted)
			continue;
		lo = r->cgroups[i].idx[e->leader] < lo ? r->cgroups[i].idx[e->leader] : lo;
		hi = r->cgroups[i].idx[e->leader] > hi ? r->cgroups[i].idx[e->leader] : hi;
	}
	if (lo > hi)
		return 0;
	/* a group's batch holds every member: read once for all its events */
	if (r->batch_leader != e->leader) {
		need = (size_t)(hi - lo + 1) * nr_members * r->nr_possible;
		if (need > r->batch_cap) {
			free(r->batch);
			r->batch_cap = need;
			r->batch = xzalloc(need * sizeof(*r->batch));
		}
		r->batch_ok = !leader_cg_read_batch(h, lo, hi - lo + 1, r->batch);
		r->batch_leader = e->leader;
	}
	for (i = 0, cg = 0; i < r->nr_cgroups && !err; i++) {
		const struct reg_cgroup *c = &r->cgroups[i];
		const struct bpf_perf_event_value *now = r->buf;
		size_t at;

		if (!c->counted)
			continue;
		/* this event's member of the cgroup's sums in the batch */
		at = (size_t)(c->idx[e->leader] - lo) * nr_members + e->member;
		if (r->batch_ok)
			now = &r->batch[at * r->nr_possible];
		else
			err = leader_cg_read(h, c->idx[e->leader], e->member, r->buf);
		fill_cpus(r, &values[(size_t)cg++ * r->cpus.nr], now,
			  &c->base[(size_t)ev * r->nr_possible]);
	}
	return err;
}

static void snapshot_storage(struct registry *r, int nr_cgroups)
{
	size_t nr_values = (size_t)r->nr_events * nr_cgroups * r->cpus.nr;

	if (!r->snap_events) {
		r->snap_events = xzalloc(r->nr_events * sizeof(*r->snap_events));
		for (int i = 0; i < r->nr_events; i++) {
			r->snap_events[i].name = r->events[i].name;
			r->snap_events[i].seconds = r->events[i].seconds;
			r->snap_events[i].scaled = r->events[i].scaled;
		}
	}
	if ((size_t)nr_cgroups > r->snap_cgroups_cap) {
		r->snap_cgroups_cap = nr_cgroups * 2;
		free(r->snap_cgroups);
		r->snap_cgroups = xzalloc(r->snap_cgroups_cap * sizeof(*r->snap_cgroups));
	}
	if (nr_values > r->snap_values_cap) {
		r->snap_values_cap = nr_values * 2;
		free(r->snap_values);
		r->snap_values = xzalloc(r->snap_values_cap * sizeof(*r->snap_values));
	}
	memset(r->snap_values, 0, nr_values * sizeof(*r->snap_values));
}

int registry_snapshot(struct registry *r, struct snapshot *s)
{
	int nr_cgroups = 1 + r->nr_counted, ev, cg, i, l, err;
	struct snap_value *v;

	snapshot_storage(r, nr_cgroups);
	r->snap_cgroups[0].path = "/";
	r->snap_cgroups[0].created = r->start;
	for (i = 0, cg = 1; i < r->nr_cgroups; i++) {
		if (!r->cgroups[i].counted)
			continue;
		r->snap_cgroups[cg].path = r->cgroups[i].path;
		r->snap_cgroups[cg++].created = r->cgroups[i].created;
	}
	r->batch_leader = -1;
	err = sync_leaders(r);
	if (err)
		return err;
	/* leader by leader: one batch of per-cgroup sums serves all of a leader's events */
	for (l = 0; l < r->nr_leaders; l++) {
		for (ev = 0; ev < r->nr_events; ev++) {
			struct reg_event *e = &r->events[ev];
			struct leader_handle *h = &r->leaders[l].h;

			if (e->leader != l)
				continue;
			v = &r->snap_values[(size_t)ev * nr_cgroups * r->cpus.nr];
			err = leader_read_raw(h, e->member, r->buf);
			if (err)
				return err;
			fill_cpus(r, v, r->buf, e->base);
			err = read_cgroups(r, ev, &v[r->cpus.nr]);
			if (err)
				return err;
		}
	}
	s->nr_events = r->nr_events;
	s->nr_cgroups = nr_cgroups;
	s->nr_cpus = r->cpus.nr;
	s->events = r->snap_events;
	s->cgroups = r->snap_cgroups;
	s->cpus = r->cpus.cpus;
	s->values = r->snap_values;
	return 0;
}

int registry_metrics(void *registry, struct byte_buf *out, bool openmetrics)
{
	struct snapshot s;
	int err = registry_snapshot(registry, &s);

	return err ? err : exposition_write(out, &s, openmetrics);
}

void registry_close(struct registry *r)
{
	struct attr_map map;
	int i;

	if (!r)
		return;
	if (r->nr_counted) {
		bool locked = !attr_map_open_locked(&map, r->map_path);

		for (i = 0; i < r->nr_cgroups; i++)
			cgroup_unregister(r, &r->cgroups[i], locked);
		if (locked)
			attr_map_close(&map);
	}
	for (i = 0; i < r->nr_cgroups; i++)
		cgroup_free(&r->cgroups[i]);
	free(r->cgroups);
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
	free(r->batch);
	free(r->snap_events);
	free(r->snap_cgroups);
	free(r->snap_values);
	cpu_map_free(&r->cpus);
	free(r);
}
