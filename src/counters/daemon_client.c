// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon backend: a user without the capabilities shared counters need counts them through
 * bperf daemon's Unix socket (daemon_proto.h). One counter is one daemon session (one slot
 * the daemon holds in the leader of the event); targets are named by pidfds, so the daemon knows
 * which processes are meant whatever pid namespace the session runs in.
 */
#include "daemon_client.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "../util/common.h"
#include "daemon_proto.h"
#include "open_error.h"
#include "counter.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD 0x80	/* O_EXCL: a pidfd of one thread (Linux 6.9) */
#endif

/* a daemon that does not answer within this long is taken for lost */
#define DAEMON_TIMEOUT_S 30

struct daemon_conn {
	int fd;
	bool gone;		/* the daemon hung up: every request fails */
	struct bperf_reply *reply;	/* room for BPERF_PROTO_MAX_CPUS values */
};

struct daemon_priv {
	struct daemon_conn *conn;
	__u32 session;
	bool per_cpu;			/* CPU-wide and cgroup targets: values per CPU */
	const struct cpu_map *cpus;	/* the session's CPUs, for those */
};

static size_t reply_size(__u32 nr_values)
{
	return sizeof(struct bperf_reply) + nr_values * sizeof(struct bpf_perf_event_value);
}

/*
 * The daemon's slots, and with them the counts, are gone: said once, and -ECANCELED, on which
 * the session ends the run (counter.h).
 */
static int lost(struct daemon_conn *d)
{
	if (!d->gone)
		pr_err("bperf: lost the connection to the bperf daemon");
	d->gone = true;
	return -ECANCELED;
}

/*
 * One request and its reply (into d->reply); the reply's err, or when the daemon is gone
 * -ECANCELED if fatal (lost()), else -EPIPE.
 */
static int request(struct daemon_conn *d, const struct bperf_req *req, const int *fds, int nr_fds,
		   bool fatal)
{
	ssize_t n;

	if (d->gone)
		return fatal ? -ECANCELED : -EPIPE;
	n = proto_send(d->fd, req, sizeof(*req), fds, nr_fds);

	/* a daemon that refused the connection at once left its reason before hanging up */
	if (n == (ssize_t)sizeof(*req) || (n < 0 && errno == EPIPE)) {
		do {
			n = recv(d->fd, d->reply, reply_size(BPERF_PROTO_MAX_CPUS),
				 n < 0 ? MSG_DONTWAIT : 0);
		} while (n < 0 && errno == EINTR);
		if (n >= (ssize_t)sizeof(*d->reply) && d->reply->version == BPERF_PROTO_VERSION &&
		    d->reply->type == MSG_REPLY && d->reply->nr_values <= BPERF_PROTO_MAX_CPUS &&
		    (size_t)n >= reply_size(d->reply->nr_values))
			return d->reply->err;
	}
	return fatal ? lost(d) : -EPIPE;
}

/*
 * A reply in another version than ours (the first fields read the same in all of them): said in
 * one line. A daemon of version 2 or later puts its oldest version in session; version 1's
 * spoke only 1.
 */
static bool other_version(const struct bperf_reply *r)
{
	if (r->type != MSG_REPLY || r->version == BPERF_PROTO_VERSION || !r->version)
		return false;
	if (r->session && r->session < r->version)
		pr_err("bperf: the bperf daemon speaks protocol versions %u to %u, this bperf "
		       "speaks %d", r->session, r->version, BPERF_PROTO_VERSION);
	else
		pr_err("bperf: the bperf daemon speaks protocol version %u, this bperf speaks %d",
		       r->version, BPERF_PROTO_VERSION);
	return true;
}

static const char *socket_path(const char *configured)
{
	const char *env = getenv(BPERF_DAEMON_SOCKET_ENV);

	if (configured && *configured)
		return configured;
	return env && *env ? env : BPERF_DAEMON_SOCKET;
}

int daemon_conn_open(const char *configured, int verbose, struct daemon_conn **out)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = DAEMON_TIMEOUT_S };
	const char *path = socket_path(configured);
	struct bperf_req hello;
	struct daemon_conn *d;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, err;

	*out = NULL;
	if (strlen(path) >= sizeof(addr.sun_path))
		return -ENAMETOOLONG;
	strcpy(addr.sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		pr_debug(verbose, 1, "bperf: no bperf daemon on %s: %s", path, strerror(-err));
		close(fd);
		return err;
	}
	/* whoever else bound the path could make up counts: root's daemon only */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.uid != 0) {
		pr_debug(verbose, 1, "bperf: %s is not root's: not a bperf daemon", path);
		close(fd);
		return -EPERM;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	d = xzalloc(sizeof(*d));
	d->fd = fd;
	d->reply = xzalloc(reply_size(BPERF_PROTO_MAX_CPUS));
	proto_req_init(&hello, MSG_HELLO);
	err = request(d, &hello, NULL, 0, false);
	if (err == -EPIPE && other_version(d->reply))
		err = -ECANCELED;
	if (err) {
		if (err == -EUSERS)
			pr_err("bperf: the bperf daemon refused the connection: this user has too "
			       "many connections");
		daemon_conn_close(d);
		return err == -EUSERS ? -ECANCELED : err;
	}
	pr_debug(verbose, 1, "bperf: counting shared events through the bperf daemon on %s", path);
	*out = d;
	return 0;
}

void daemon_conn_close(struct daemon_conn *d)
{
	if (!d)
		return;
	close(d->fd);
	free(d->reply);
	free(d);
}

/*
 * -t before Linux 6.9, which has no pidfds of threads: the thread ids themselves, which the
 * daemon takes only from a session in its own pid namespace.
 */
static int tids_as_numbers(const struct thread_map *th, struct bperf_req *req)
{
	int i;

	if (th->nr > BPERF_PROTO_MAX_IDS) {
		pr_err("bperf: the bperf daemon counts at most %d threads per event",
		       BPERF_PROTO_MAX_IDS);
		return -ECANCELED;
	}
	for (i = 0; i < th->nr; i++)
		req->ids[i] = th->tids[i];
	req->nr_ids = th->nr;
	return 0;
}

/*
 * The pidfds naming the target's processes (-p), threads (-t) or workload, into fds; their
 * number, or -ECANCELED (said).
 */
static int target_pidfds(const struct open_ctx *ctx, struct bperf_req *req, int *fds)
{
	const struct thread_map *th = &ctx->target->threads;
	__u32 target = req->target;
	pid_t pids[BPERF_PROTO_MAX_IDS];
	int i, j, nr = 0, fd;

	for (i = 0; i < th->nr; i++) {
		pid_t pid = th->tids[i];

		if (target == TGT_PID) {
			char path[64], buf[4096], *p;

			/* a thread's process: the daemon finds every thread of it */
			snprintf(path, sizeof(path), "/proc/%d/status", pid);
			if (read_text_file(path, buf, sizeof(buf)) || !(p = strstr(buf, "Tgid:")))
				continue;
			pid = atoi(p + 5);
			for (j = 0; j < nr && pids[j] != pid; j++)
				;
			if (j < nr)
				continue;
		}
		if (nr == BPERF_PROTO_MAX_IDS) {
			pr_err("bperf: the bperf daemon counts at most %d %s per event",
			       BPERF_PROTO_MAX_IDS, target == TGT_PID ? "processes" : "threads");
			goto fail;
		}
		fd = (int)syscall(SYS_pidfd_open, pid, target == TGT_TID ? PIDFD_THREAD : 0);
		if (fd < 0 && errno == EINVAL && target == TGT_TID && !nr) {
			pr_debug(ctx->verbose, 1, "bperf: thread ids to the bperf daemon as numbers "
				 "(no pidfds of threads before Linux 6.9)");
			return tids_as_numbers(th, req);
		}
		if (fd < 0) {
			pr_err("bperf: cannot name %s %d to the bperf daemon: %s",
			       target == TGT_PID ? "process" : "thread", pid, strerror(errno));
			goto fail;
		}
		pids[nr] = pid;
		fds[nr++] = fd;
	}
	req->nr_ids = nr;
	return nr;
fail:
	while (nr)
		close(fds[--nr]);
	return -ECANCELED;
}

/* A refusal in one line; -errno for what the session itself handles. */
static int refused(const struct counter *c, const struct bperf_req *req, const char *what,
		   int err)
{
	const char *name = c->evsel->name ? c->evsel->name : "the event";
	const struct perf_event_attr *attr = &c->evsel->attr;
	char why[160];

	/* perf's fallback to user space (:u) comes first, as for a direct open */
	if (err == -EACCES && !attr->exclude_kernel && !attr->exclude_user &&
	    perf_event_paranoid() > 1)
		return err;
	/* an event the kernel does not have: <not supported>, as perf prints it */
	if (open_error_is_unsupported(err) && err != -EINVAL && err != -EOPNOTSUPP)
		return err;
	switch (err) {
	case -EACCES:
	case -EPERM:
		if (req->target == TGT_CPUS || req->target == TGT_CGROUP)
			snprintf(why, sizeof(why), "not permitted (perf_event_paranoid is %d, and "
				 "the user is not in daemon.allow-system-wide-group)",
				 perf_event_paranoid());
		else
			snprintf(why, sizeof(why), "not permitted (not the user's own, or "
				 "perf_event_paranoid %d forbids it)", perf_event_paranoid());
		break;
	case -EUSERS:
		snprintf(why, sizeof(why), "this user has too many sessions "
			 "(daemon.max-sessions-per-user)");
		break;
	case -ENOSPC:
		snprintf(why, sizeof(why), "every session slot of its leader is taken");
		break;
	case -ESRCH:
		snprintf(why, sizeof(why), "no such process");
		break;
	case -EAGAIN:
		snprintf(why, sizeof(why), "this user's requests are over their rate (too many "
			 "refused: try again in a second)");
		break;
	case -EXDEV:
		snprintf(why, sizeof(why), "thread ids from another pid namespace (-t there needs "
			 "Linux 6.9, which has pidfds of threads)");
		break;
	case -EOPNOTSUPP:
		snprintf(why, sizeof(why), "it counts only counting events (no sampling, no "
			 "tracepoints) of CPU-wide and task targets");
		break;
	default:
		snprintf(why, sizeof(why), "%s", strerror(-err));
	}
	pr_err("Error: the bperf daemon refused %s for %s: %s", name, what, why);
	return -ECANCELED;
}

/* What the request counts, for messages. */
static void describe(const struct bperf_req *req, const struct target *t, char *buf, size_t size)
{
	switch (req->target) {
	case TGT_CPUS:
		snprintf(buf, size, "CPU-wide counting (-a, -C)");
		break;
	case TGT_CGROUP:
		snprintf(buf, size, "cgroup %s", req->cgroup);
		break;
	case TGT_WORKLOAD:
		snprintf(buf, size, "the workload");
		break;
	default:
		snprintf(buf, size, "%s %d", req->target == TGT_PID ? "process id" : "thread id",
			 t->threads.tids[0]);
	}
}

static int daemon_open_cpu(struct counter *c, struct open_ctx *ctx, int cpu_idx)
{
	const struct target *t = ctx->target;
	struct daemon_conn *d = ctx->daemon;
	struct bperf_req req;
	int fds[BPERF_PROTO_MAX_IDS], nr_fds = 0, i, err;
	struct daemon_priv *p;
	char what[300];

	/* One daemon session serves every CPU of the target. */
	if (cpu_idx)
		return 0;
	proto_req_init(&req, MSG_OPEN);
	if (c->evsel->nr_members > 1 || c->leader != c) {
		if (c->leader == c)
			pr_err("Error: the bperf daemon counts events one by one, not groups (%s)",
			       c->evsel->name);
		return -ECANCELED;
	}
	req.attr = c->evsel->parsed_attr;
	/* perf's paranoid fallback to user space happened on the session's attr */
	if (c->evsel->attr.exclude_kernel && !req.attr.exclude_kernel) {
		req.attr.exclude_kernel = 1;
		req.attr.exclude_hv = 1;
	}
	req.inherit = c->evsel->attr.inherit;
	if (c->evsel->cgroup) {
		req.target = TGT_CGROUP;
		snprintf(req.cgroup, sizeof(req.cgroup), "%s", c->evsel->cgroup->name);
	} else if (t->system_wide && t->threads.tids[0] == -1) {
		req.target = TGT_CPUS;
	} else if (t->forked) {
		req.target = TGT_WORKLOAD;
	} else {
		req.target = t->pids ? TGT_PID : TGT_TID;
	}
	if (req.target == TGT_CPUS || req.target == TGT_CGROUP) {
		/* more CPUs than a request holds: every online CPU (perf's -a) */
		if (t->cpus.nr <= BPERF_PROTO_MAX_IDS) {
			req.nr_ids = t->cpus.nr;
			for (i = 0; i < t->cpus.nr; i++)
				req.ids[i] = t->cpus.cpus[i];
		}
	}
	if (req.target == TGT_CGROUP) {
		/* the directory itself: the daemon's view of the hierarchy may differ from ours */
		fds[nr_fds++] = c->evsel->cgroup->fd;
	} else if (req.target != TGT_CPUS) {
		nr_fds = target_pidfds(ctx, &req, fds);
		if (nr_fds < 0)
			return nr_fds;
	}
	err = request(d, &req, fds, nr_fds, true);
	for (i = 0; i < nr_fds && req.target != TGT_CGROUP; i++)
		close(fds[i]);
	/* the daemon gone: lost() said so */
	if (err && d->gone)
		return -ECANCELED;
	if (err) {
		describe(&req, t, what, sizeof(what));
		return refused(c, &req, what, err);
	}
	p = xzalloc(sizeof(*p));
	p->conn = d;
	p->session = d->reply->session;
	p->per_cpu = req.target == TGT_CPUS || req.target == TGT_CGROUP;
	p->cpus = &t->cpus;
	c->priv = p;
	return 0;
}

static int simple_request(struct counter *c, __u32 type, bool fatal)
{
	struct daemon_priv *p = c->priv;
	struct bperf_req req;

	if (!p)
		return 0;
	proto_req_init(&req, type);
	req.session = p->session;
	return request(p->conn, &req, NULL, 0, fatal);
}

static int daemon_enable(struct counter *c)
{
	return simple_request(c, MSG_ENABLE, true);
}

static int daemon_disable(struct counter *c)
{
	return simple_request(c, MSG_DISABLE, true);
}

static int daemon_read(struct counter *c)
{
	struct daemon_priv *p = c->priv;
	const struct bperf_reply *r;
	int i, cpu, err;

	if (!p)
		return 0;
	err = simple_request(c, MSG_READ, true);
	if (err)
		return err;
	r = p->conn->reply;
	memset(c->counts, 0, c->nr_cpus * c->nr_threads * sizeof(*c->counts));
	if (!p->per_cpu) {
		if (r->nr_values < 1)
			return -EPROTO;
		counter_count(c, 0, 0)->val = r->values[0].counter;
		counter_count(c, 0, 0)->ena = r->values[0].enabled;
		counter_count(c, 0, 0)->run = r->values[0].running;
		return 0;
	}
	for (i = 0; i < c->nr_cpus && i < p->cpus->nr; i++) {
		cpu = p->cpus->cpus[i];
		if (cpu < 0 || (__u32)cpu >= r->nr_values)
			continue;
		counter_count(c, i, 0)->val = r->values[cpu].counter;
		counter_count(c, i, 0)->ena = r->values[cpu].enabled;
		counter_count(c, i, 0)->run = r->values[cpu].running;
	}
	return 0;
}

static void daemon_close(struct counter *c)
{
	/* the counts were read: a daemon gone by now loses nothing */
	simple_request(c, MSG_CLOSE, false);
	free(c->priv);
	c->priv = NULL;
}

const struct counter_ops daemon_counter_ops = {
	.name = "daemon",
	.user_fallback = true,
	.open_cpu = daemon_open_cpu,
	.enable = daemon_enable,
	.disable = daemon_disable,
	.read = daemon_read,
	.close = daemon_close,
};
