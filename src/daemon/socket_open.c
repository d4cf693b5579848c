// SPDX-License-Identifier: GPL-2.0-only
/*
 * A client's OPEN (socket_internal.h): its limits, its attr, its target as the kernel sees it
 * for the peer, then its slot. The kernel's word comes from a helper process (policy.h) that
 * the loop does not wait for: the connection is set aside, not read, until the helper's pidfd
 * says it has exited, and the loop serves everyone else meanwhile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "../util/common.h"
#include "../counters/open_error.h"
#include "log_limit.h"
#include "socket_internal.h"
#include "socket_target.h"

struct pending_open {
	struct bperf_req req;
	int fds[BPERF_PROTO_MAX_IDS];
	int nr_fds;
	struct open_target *t;
	struct policy_job job;
	unsigned long long started_ns;
	bool killed;
	/* after the check: the session whose new leader loads (load), its spec */
	struct served_load *load;
	struct client_session *cs;
	struct leader_session_spec spec;
};

/* Asks the kernel, through the helper, unless the policy group grants the target itself. */
static int start_check(struct conn *c, const struct bperf_req *req, const struct open_target *t,
		       struct policy_job *job)
{
	struct client_server *s = c->srv;
	struct perf_event_attr attr = req->attr;
	struct policy_target pt = { .cgroup_fd = -1 };
	bool granted = s->have_group && peer_in_group(&c->peer, s->group);

	if (t->nr_cpus) {
		/* the policy group counts CPUs as CAP_PERFMON would */
		if (granted)
			return 0;
		pt.cpus = t->cpus;
		pt.nr_cpus = t->nr_cpus;
		pt.cgroup_fd = t->cgroup_fd;
	} else {
		pt.tids = t->tids;
		pt.nr_tids = t->nr_tids;
		/* ... and the kernel too: only whose processes it counts matters then */
		if (granted) {
			attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
		}
	}
	if (c->uc->checking >= CLIENT_MAX_CHECKS_PER_UID || s->nr_checking >= CLIENT_MAX_CHECKS) {
		log_limit_peer(loop_log(s->loop), c->log_peer, "OPEN refused: checks under way");
		return -EAGAIN;
	}
	return s->served.ops->check_start(&c->peer, &attr, &pt, job);
}

/*
 * The helper's answer, known without it: it runs with the peer's uid and no capabilities, so
 * under perf_event_paranoid 2 an attr counting the kernel is refused (bperf stat asks so first,
 * then falls back to :u, in every session). No fork, and, as it tells nothing of anyone, no
 * charge to the uid's rate.
 */
static bool kernel_refused(const struct conn *c, const struct bperf_req *req)
{
	const struct client_server *s = c->srv;
	bool granted = s->have_group && peer_in_group(&c->peer, s->group);

	return c->peer.uid && !granted && !req->attr.exclude_kernel && perf_event_paranoid() > 1;
}

/*
 * Whether the OPEN may have its slot, up to the kernel's word: the rate, the limits, the attr,
 * the target. With the peer's uid out of tokens nothing is checked at all.
 */
static int admit_begin(struct conn *c, const struct bperf_req *req, const int *fds, int nr_fds,
		       struct open_target *t, struct policy_job *job)
{
	struct client_server *s = c->srv;
	int err;

	if (!uid_bucket_take(&s->buckets, c->peer.uid, 1, now_ns())) {
		log_limit_peer(loop_log(s->loop), c->log_peer, "OPEN refused: over its rate");
		return -EAGAIN;
	}
	if (c->nr_sessions >= CLIENT_MAX_OPENS_PER_CONN)
		err = -EUSERS;
	else if (!c->nr_sessions && c->peer.uid && c->uc->active >= s->max_sessions)
		err = -EUSERS;
	else
		err = policy_check_attr(&req->attr);
	if (!err)
		err = resolve_target(req, &c->peer, fds, nr_fds, t);
	t->free_refusal = !err && kernel_refused(c, req);
	if (t->free_refusal)
		err = -EACCES;
	if (!err)
		err = start_check(c, req, t, job);
	return err;
}

/* The rest, once the kernel has answered err. Refusals cost the peer's uid tokens. */
static int admit_end(struct conn *c, const struct bperf_req *req, const int *fds, int nr_fds,
		     const struct open_target *t, int err)
{
	struct client_server *s = c->srv;
	int i;

	if (err == -EAGAIN)
		return err;	/* over a limit of rate or checks: nothing was asked */
	/* the processes meant are still those the pidfds name (no pid was reused meanwhile) */
	for (i = 0; i < nr_fds && !err && t->cgroup_fd < 0; i++)
		if (!pidfd_alive(fds[i]))
			err = -ESRCH;
	/* gone or not the peer's: the same answer, so that no reply says which */
	if (err == -ESRCH && (req->target == TGT_PID || req->target == TGT_TID))
		err = -EACCES;
	if (err) {
		if (!t->free_refusal)
			uid_bucket_charge(&s->buckets, c->peer.uid, UID_BUCKET_REFUSAL_COST,
					  now_ns());
		log_limit_peer(loop_log(s->loop), c->log_peer, "OPEN refused: %s", strerror(-err));
	}
	return err;
}

static void spec_of(const struct bperf_req *req, const struct open_target *t,
		    struct leader_session_spec *spec, struct client_session *cs)
{
	int i;

	if (t->nr_cpus) {
		spec->filter = t->cgroup_fd >= 0 ? FILTER_CGROUP : FILTER_CPU;
		spec->cgroup_id = t->cgroup_id;
		spec->cpus = t->cpus;
		spec->nr_cpus = t->nr_cpus;
		cs->per_cpu = true;
		for (i = 0; i < t->nr_cpus; i++)
			cs->cpus[t->cpus[i] / 64] |= 1ull << (t->cpus[i] % 64);
	} else {
		spec->filter = FILTER_TID;
		spec->ids = t->tids;
		spec->nr_ids = t->nr_tids;
		spec->inherit = req->inherit;
		spec->exec_tgid = t->exec_tgid;
	}
}

/* cs, its slot claimed, as the connection's session; its id. */
static __u32 add_session(struct conn *c, struct client_session *cs)
{
	int slot;

	for (slot = 0; c->sessions[slot]; slot++)
		;
	cs->id = ++c->next_id;
	c->sessions[slot] = cs;
	if (c->nr_sessions++ == 0)
		c->uc->active++;
	pr_debug(c->srv->served.verbose, 1, "bperf daemon: uid %u session %u: slot %u",
		 c->peer.uid, cs->id, cs->s.slot.slot);
	return cs->id;
}

/*
 * The slot of an admitted OPEN: 0 with *id, -errno, or SERVED_LOADING with *cs, *spec and *load
 * (then its leader loads; load_end() takes the slot).
 */
static int claim(struct conn *c, const struct bperf_req *req, const struct open_target *t,
		 __u32 *id, struct client_session **cs, struct leader_session_spec *spec,
		 struct served_load **load)
{
	struct client_server *s = c->srv;
	int err;

	*cs = xzalloc(sizeof(**cs));
	memset(spec, 0, sizeof(*spec));
	spec_of(req, t, spec, *cs);
	err = s->served.ops->open(&s->served, &req->attr, spec, c->peer.uid != 0, &(*cs)->s,
				  load);
	/*
	 * SERVED_LOADING: no charge, as a user burns no more CPU through loads than with a loop of
	 * their own: they run beside the loop, as many at once as the uid's checks
	 * (CLIENT_MAX_CHECKS_PER_UID: a pending OPEN holds its check's place while it loads).
	 */
	if (err == SERVED_LOADING)
		return err;
	if (err) {
		free(*cs);
		*cs = NULL;
		return err;
	}
	*id = add_session(c, *cs);
	*cs = NULL;
	return 0;
}

static void pending_free(struct conn *c)
{
	struct pending_open *p = c->pending;
	int i;

	for (i = 0; i < p->nr_fds; i++)
		close(p->fds[i]);
	free(p->cs);
	free(p->t);
	free(p);
	c->pending = NULL;
	c->uc->checking--;
	c->srv->nr_checking--;
}

/* The OPEN set aside, its connection not read, until its check or its load ends. */
static struct pending_open *pending_new(struct conn *c, const struct bperf_req *req,
					struct open_target *t)
{
	struct pending_open *p = xzalloc(sizeof(*p));

	p->req = *req;
	p->t = t;
	p->started_ns = now_ns();
	c->pending = p;
	c->uc->checking++;
	c->srv->nr_checking++;
	loop_del(c->srv->loop, c->fd);
	return p;
}

/*
 * The load has ended (or is waited for here): cs's slot in the new leader, 0 with *id, or -errno
 * (cs freed).
 */
static int load_end(struct conn *c, struct served_load *load,
		    const struct leader_session_spec *spec, struct client_session *cs, __u32 *id)
{
	struct client_server *s = c->srv;
	int err;

	err = s->served.ops->open_end(&s->served, load, spec, &cs->s);
	if (err) {
		log_limit_peer(loop_log(s->loop), c->log_peer, "OPEN failed: %s", strerror(-err));
		free(cs);
		return err;
	}
	*id = add_session(c, cs);
	return 0;
}

/* The pending OPEN's load has ended, or is waited for here. */
static int pending_load_end(struct conn *c, __u32 *id)
{
	struct pending_open *p = c->pending;
	int err = load_end(c, p->load, &p->spec, p->cs, id);

	p->load = NULL;
	p->cs = NULL;
	return err;
}

/* The OPEN's reply, once its check and any load have ended; the connection is read again. */
static void pending_done(struct conn *c, __u32 id, int err)
{
	send_reply(c, id, err, !err && c->pending->req.attr.exclude_kernel, 0);
	pending_free(c);
	conn_resume(c);
}

static void on_loaded(void *arg, int fd, unsigned int revents)
{
	struct conn *c = arg;
	__u32 id = 0;
	int err;

	loop_del(c->srv->loop, fd);
	err = pending_load_end(c, &id);
	pending_done(c, id, err);
}

/* Whether the loop watches the load (else it is waited for where it is asked). */
static bool watch_load(struct conn *c, const struct served_load *load)
{
	struct client_server *s = c->srv;

	return !loop_add(s->loop, s->served.ops->load_fd(load), EPOLLIN, on_loaded, c);
}

/* The helper has exited: the OPEN goes on where it stopped, and its reply goes out. */
static void on_checked(void *arg, int fd, unsigned int revents)
{
	struct conn *c = arg;
	struct pending_open *p = c->pending;
	struct client_server *s = c->srv;
	__u32 id = 0;
	int err;

	loop_del(s->loop, fd);
	err = s->served.ops->check_end(&p->job);
	err = admit_end(c, &p->req, p->fds, p->nr_fds, p->t, err);
	if (!err)
		err = claim(c, &p->req, p->t, &id, &p->cs, &p->spec, &p->load);
	if (err == SERVED_LOADING && watch_load(c, p->load))
		return;		/* the connection stays aside until the load ends */
	if (err == SERVED_LOADING)
		err = pending_load_end(c, &id);
	pending_done(c, id, err);
}

/* Sets the OPEN aside until its helper exits; false if the loop cannot watch the helper. */
static bool set_aside(struct conn *c, const struct bperf_req *req, int *fds, int *nr_fds,
		      struct open_target *t, const struct policy_job *job)
{
	struct pending_open *p;

	if (loop_add(c->srv->loop, job->pidfd, EPOLLIN, on_checked, c))
		return false;
	p = pending_new(c, req, t);
	memcpy(p->fds, fds, *nr_fds * sizeof(*fds));
	p->nr_fds = *nr_fds;
	*nr_fds = 0;
	p->job = *job;
	return true;
}

int socket_open(struct conn *c, const struct bperf_req *req, int *fds, int *nr_fds, __u32 *id)
{
	struct open_target *t = xzalloc(sizeof(*t));
	struct policy_job job = { .pid = -1, .pidfd = -1 };
	struct leader_session_spec spec;
	struct served_load *load = NULL;
	struct client_session *cs = NULL;
	struct pending_open *p;
	int err;

	err = admit_begin(c, req, fds, *nr_fds, t, &job);
	if (err == POLICY_PENDING) {
		if (set_aside(c, req, fds, nr_fds, t, &job))
			return POLICY_PENDING;
		err = c->srv->served.ops->check_end(&job);	/* rare: the wait is here */
	}
	err = admit_end(c, req, fds, *nr_fds, t, err);
	if (!err)
		err = claim(c, req, t, id, &cs, &spec, &load);
	if (err == SERVED_LOADING && watch_load(c, load)) {
		/* no check was waited for (root, or the policy group's CPUs): aside for the load */
		p = pending_new(c, req, t);
		p->job.pid = p->job.pidfd = -1;
		p->cs = cs;
		p->spec = spec;
		p->load = load;
		return POLICY_PENDING;
	}
	if (err == SERVED_LOADING)
		err = load_end(c, load, &spec, cs, id);
	free(t);
	return err;
}

void socket_open_cancel(struct conn *c)
{
	struct pending_open *p = c->pending;
	struct client_server *s = c->srv;

	if (!p)
		return;
	if (p->load) {
		loop_del(s->loop, s->served.ops->load_fd(p->load));
		s->served.ops->load_abandon(p->load);
	} else {
		loop_del(s->loop, p->job.pidfd);
		s->served.ops->check_kill(&p->job);
		s->served.ops->check_end(&p->job);
	}
	pending_free(c);
}

void socket_open_expire(struct client_server *s, unsigned long long now)
{
	struct conn *c;

	for (c = s->conns; c; c = c->next) {
		struct pending_open *p = c->pending;

		/* a load ends by itself (a thread, which nothing kills) */
		if (!p || p->load || p->killed || now - p->started_ns < CHECK_TIMEOUT_NS)
			continue;
		log_limit_peer(loop_log(s->loop), c->log_peer, "OPEN's kernel check took over 5 s");
		s->served.ops->check_kill(&p->job);
		p->killed = true;
	}
}
