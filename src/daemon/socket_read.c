// SPDX-License-Identifier: GPL-2.0-only
/*
 * READ, ENABLE and DISABLE (socket_internal.h). Each needs the leader brought up to date, a test
 * run on every CPU (an IPI each: about 2.5 ms of the loop on 256 CPUs), so requests sent back to
 * back by one client would take the loop from everyone else. The backend says when one can be
 * answered (sync_due_ns: at most SERVED_SYNC_GAP_MS after the leader's last sync began); one
 * asked sooner waits, its connection unread, and one sync then answers every request of that
 * leader that waits. Each answer comes from a sync that began after its request came in: exact,
 * as an answer at once (a period starts or ends at that sync).
 */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../util/common.h"
#include "socket_internal.h"

/* READ: thread targets get one sum, CPU targets a value per possible CPU (theirs, else 0). */
static int do_read(struct conn *c, struct client_session *cs, unsigned long long asked_ns,
		   __u32 *nr_values)
{
	struct client_server *s = c->srv;
	unsigned int nr_cpus = s->served.ops->nr_cpus(&cs->s), cpu;
	struct bpf_perf_event_value *out = s->reply->values;
	int err;

	if (nr_cpus > BPERF_PROTO_MAX_CPUS)
		nr_cpus = BPERF_PROTO_MAX_CPUS;
	err = s->served.ops->read(&cs->s, asked_ns, s->per_cpu);
	if (err)
		return err;
	if (cs->per_cpu) {
		for (cpu = 0; cpu < nr_cpus; cpu++) {
			bool mine = cs->cpus[cpu / 64] & (1ull << (cpu % 64));

			memset(&out[cpu], 0, sizeof(out[cpu]));
			if (mine)
				out[cpu] = s->per_cpu[cpu];
		}
		*nr_values = nr_cpus;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		out->counter += s->per_cpu[cpu].counter;
		out->enabled += s->per_cpu[cpu].enabled;
		out->running += s->per_cpu[cpu].running;
	}
	*nr_values = 1;
	return 0;
}

static void answer(struct conn *c, __u32 type, __u32 session, unsigned long long asked_ns)
{
	const struct served_ops *ops = c->srv->served.ops;
	int idx = conn_find_session(c, session), err = -ENOENT;
	__u32 nr_values = 0;

	if (idx >= 0 && type == MSG_READ)
		err = do_read(c, c->sessions[idx], asked_ns, &nr_values);
	else if (idx >= 0)
		err = ops->set_enabled(&c->sessions[idx]->s, type == MSG_ENABLE, asked_ns);
	send_reply(c, session, err, 0, err ? 0 : nr_values);
}

/* The timer goes off at the earliest due time of the requests that wait: 0, or -errno. */
static int arm(struct client_server *s, unsigned long long due_ns)
{
	unsigned long long now = now_ns(), in = due_ns > now ? due_ns - now : 1;
	struct itimerspec its = { 0 };

	if (s->read_timer_due_ns && s->read_timer_due_ns <= due_ns)
		return 0;
	its.it_value.tv_sec = in / 1000000000;
	its.it_value.tv_nsec = in % 1000000000;
	if (timerfd_settime(s->read_timer_fd, 0, &its, NULL))
		return -errno;
	s->read_timer_due_ns = due_ns;
	return 0;
}

void socket_synced(struct conn *c, __u32 type, __u32 session)
{
	struct client_server *s = c->srv;
	unsigned long long now = now_ns(), due;
	int idx = conn_find_session(c, session);

	due = idx < 0 ? 0 : s->served.ops->sync_due_ns(&c->sessions[idx]->s, now);
	/* without a timer to wait on, the gap is not kept: better than no answer */
	if (due <= now || s->read_timer_fd < 0 || arm(s, due)) {
		answer(c, type, session, now);
		return;
	}
	loop_del(s->loop, c->fd);
	c->read_waiting = true;
	c->read_type = type;
	c->read_session = session;
	c->read_asked_ns = now;
	c->read_due_ns = due;
	s->nr_reads_waiting++;
}

/* Answers the requests due by until; the earliest due time of those left (0: none). */
static unsigned long long answer_due(struct client_server *s, unsigned long long until)
{
	unsigned long long next = 0;
	struct conn *c, *after;

	for (c = s->conns; c && s->nr_reads_waiting; c = after) {
		after = c->next;
		if (!c->read_waiting)
			continue;
		if (c->read_due_ns > until) {
			if (!next || c->read_due_ns < next)
				next = c->read_due_ns;
			continue;
		}
		socket_read_cancel(c);
		answer(c, c->read_type, c->read_session, c->read_asked_ns);
		conn_resume(c);		/* may end c */
	}
	return next;
}

static void on_read_timer(void *arg, int fd, unsigned int revents)
{
	struct client_server *s = arg;
	unsigned long long next;

	s->read_timer_due_ns = 0;
	next = answer_due(s, now_ns());
	if (next && arm(s, next))
		answer_due(s, ~0ull);	/* no timer: everyone now, rather than never */
}

void socket_read_cancel(struct conn *c)
{
	if (!c->read_waiting)
		return;
	c->read_waiting = false;
	c->srv->nr_reads_waiting--;
}

int socket_read_start(struct client_server *s)
{
	/* disarmed until a request waits (arm()) */
	s->read_timer_fd = loop_add_timer(s->loop, 0, on_read_timer, s);
	return s->read_timer_fd < 0 ? s->read_timer_fd : 0;
}

void socket_read_stop(struct client_server *s)
{
	if (s->read_timer_fd < 0)
		return;
	loop_del(s->loop, s->read_timer_fd);
	close(s->read_timer_fd);
	s->read_timer_fd = -1;
}
