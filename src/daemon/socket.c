// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's Unix socket for unprivileged bperf stat sessions (socket.h): connections, their
 * credentials and limits, and the messages of daemon_proto.h. Every check runs before anything is
 * claimed, so a refused request leaves nothing registered; a client's end (EOF, a crash)
 * releases its slots at once.
 */
#include "socket.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* Linux 6.5 (glibc 2.36 headers lack it) */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

#include "../util/common.h"
#include "../counters/attr_map.h"
#include "log_limit.h"
#include "proto_decode.h"
#include "socket_internal.h"

#define HELLO_TIMEOUT_NS (5 * 1000000000ull)
#define MAX_PEER_GROUPS 65536

static size_t reply_size(__u32 nr_values)
{
	return sizeof(struct bperf_reply) + nr_values * sizeof(struct bpf_perf_event_value);
}

/*
 * Before closing a connection the daemon ends: a socket closed with unread messages makes the
 * peer's reads fail (ECONNRESET) before its queued replies, so nothing more may arrive
 * (shutdown) and what did is dropped first.
 */
static void hang_up(int fd)
{
	char buf[sizeof(struct bperf_req) + 1];

	shutdown(fd, SHUT_RDWR);
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC) > 0)
		;
}

void send_reply(struct conn *c, __u32 session, int err, __u32 exclude_kernel, __u32 nr_values)
{
	struct bperf_reply *r = c->srv->reply;

	r->version = c->version;
	r->type = MSG_REPLY;
	r->session = session;
	r->err = err;
	r->exclude_kernel = exclude_kernel;
	r->nr_values = nr_values;
	/* the daemon never waits for a client: one that leaves its replies unread is hung up on */
	if (send(c->fd, r, reply_size(nr_values), MSG_DONTWAIT | MSG_NOSIGNAL) < 0 &&
	    errno == EAGAIN)
		c->not_reading = true;
}

static struct uid_count *uid_count_get(struct client_server *s, uid_t uid)
{
	struct uid_count *u;

	for (u = s->uids; u; u = u->next)
		if (u->uid == uid)
			return u;
	u = xzalloc(sizeof(*u));
	u->uid = uid;
	u->next = s->uids;
	s->uids = u;
	return u;
}

static void uid_count_put(struct client_server *s, struct uid_count *u)
{
	struct uid_count **p;

	if (u->conns || u->active)
		return;
	for (p = &s->uids; *p; p = &(*p)->next) {
		if (*p == u) {
			*p = u->next;
			free(u);
			return;
		}
	}
}

static void session_free(struct conn *c, int idx)
{
	struct client_session *cs = c->sessions[idx];

	c->srv->served.ops->close(&c->srv->served, &cs->s);
	free(cs);
	c->sessions[idx] = NULL;
	if (--c->nr_sessions == 0)
		c->uc->active--;
}

static void peer_free(struct peer *p)
{
	if (p->has_pidfd)
		close(p->pidfd);
	p->has_pidfd = false;
	free(p->groups);
	p->groups = NULL;
}

static void conn_close(struct conn *c)
{
	struct client_server *s = c->srv;
	struct conn **p;
	int i;

	socket_open_cancel(c);
	socket_read_cancel(c);
	for (i = 0; i < CLIENT_MAX_OPENS_PER_CONN; i++)
		if (c->sessions[i])
			session_free(c, i);
	loop_del(s->loop, c->fd);
	close(c->fd);
	for (p = &s->conns; *p; p = &(*p)->next) {
		if (*p == c) {
			*p = c->next;
			break;
		}
	}
	s->nr_conns--;
	c->uc->conns--;
	uid_count_put(s, c->uc);
	peer_free(&c->peer);
	free(c);
}

/* ---- requests ----------------------------------------------------------------------------- */

int conn_find_session(struct conn *c, __u32 id)
{
	int i;

	for (i = 0; i < CLIENT_MAX_OPENS_PER_CONN; i++)
		if (c->sessions[i] && c->sessions[i]->id == id)
			return i;
	return -1;
}

/* One request; false when the connection must end (after the error reply). */
static bool handle_request(struct conn *c, const struct bperf_req *req, int *fds, int *nr_fds)
{
	__u32 id = 0;
	int idx, err = 0;

	if (req->type == MSG_HELLO) {
		c->hello = true;
		send_reply(c, 0, 0, 0, 0);
		return true;
	}
	if (!c->hello) {
		send_reply(c, 0, -EPROTO, 0, 0);
		return false;
	}
	if (req->type == MSG_OPEN) {
		err = socket_open(c, req, fds, nr_fds, &id);
		if (err != POLICY_PENDING)
			send_reply(c, id, err, !err && req->attr.exclude_kernel, 0);
		return true;
	}
	if (*nr_fds || req->type < MSG_ENABLE || req->type > MSG_CLOSE) {
		send_reply(c, req->session, -EPROTO, 0, 0);
		return false;
	}
	if (req->type != MSG_CLOSE) {
		socket_synced(c, req->type, req->session);
		return true;
	}
	idx = conn_find_session(c, req->session);
	if (idx >= 0)
		session_free(c, idx);
	send_reply(c, req->session, idx < 0 ? -ENOENT : 0, 0, 0);
	return true;
}

/* What a message that is not a request of a version the daemon speaks gets; false: hang up. */
static bool bad_message(struct conn *c, const struct bperf_req *req, int err, ssize_t len)
{
	struct log_limit *log = loop_log(c->srv->loop);

	if (err == -EPROTONOSUPPORT) {
		/* every version reads the first fields: ours, and in session the oldest we speak */
		log_limit_peer(log, c->log_peer, "protocol version %u; the daemon speaks %d to %d",
			       req->version, BPERF_PROTO_OLDEST_VERSION, BPERF_PROTO_VERSION);
		c->version = BPERF_PROTO_VERSION;
		send_reply(c, BPERF_PROTO_OLDEST_VERSION, err, 0, 0);
		return false;
	}
	if (err == -EPROTO) {
		log_limit_peer(log, c->log_peer, "a malformed message (%zd bytes, version %u)", len,
			       req->version);
		send_reply(c, 0, err, 0, 0);
		return false;
	}
	/* the OPEN's attr, refused as the kernel would */
	log_limit_peer(log, c->log_peer, "OPEN refused: %s", strerror(-err));
	send_reply(c, 0, err, 0, 0);
	return true;
}

/* Receives one message and its fds (up to BPERF_PROTO_MAX_IDS, the rest closed). */
static ssize_t receive(int fd, void *buf, size_t size, int *fds, int *nr_fds, bool *truncated)
{
	char cbuf[CMSG_SPACE(BPERF_PROTO_MAX_IDS * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	*nr_fds = 0;
	n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	/* before anything else: a message of no bytes (taken as the end) can carry fds too */
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		int *p = (int *)CMSG_DATA(cm), k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (k = 0; k < (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int)); k++) {
			if (*nr_fds < BPERF_PROTO_MAX_IDS)
				fds[(*nr_fds)++] = p[k];
			else
				close(p[k]);
		}
	}
	*truncated = msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC);
	return n;
}

/* After a reply: a client that left its replies unread, or asked for the end, is hung up on. */
static void conn_after(struct conn *c, bool keep)
{
	if (c->not_reading) {
		c->srv->nr_not_reading++;
		log_limit_peer(loop_log(c->srv->loop), c->log_peer,
			       "left its replies unread: hung up on");
		keep = false;
	}
	if (!keep) {
		hang_up(c->fd);
		conn_close(c);
	}
}

static void on_conn(void *arg, int fd, unsigned int revents)
{
	/* one byte more than the longest request: a longer message is truncated, and refused */
	union {
		struct bperf_req req;
		unsigned char bytes[sizeof(struct bperf_req) + 1];
	} msg;
	struct conn *c = arg;
	struct bperf_req req = { 0 };
	int fds[BPERF_PROTO_MAX_IDS], nr_fds, i, err;
	bool keep = true, truncated = false;
	ssize_t n;

	n = receive(fd, msg.bytes, sizeof(msg.bytes), fds, &nr_fds, &truncated);
	if (n == -EAGAIN || n == -EINTR)
		return;
	if (n < 0) {
		conn_close(c);	/* the client is gone */
		return;
	}
	if (n == 0) {
		keep = false;	/* EOF, or a message of no bytes: the end either way */
	} else {
		err = n >= (ssize_t)sizeof(__u32) ? proto_decode(msg.bytes, n, &req) : -EPROTO;
		if (!err && truncated)
			err = -EPROTO;
		/* replies in the request's version, where the daemon speaks it */
		c->version = n >= (ssize_t)sizeof(__u32) && err != -EPROTONOSUPPORT ? req.version :
			     BPERF_PROTO_VERSION;
		if (err)
			keep = bad_message(c, &req, err, n);
		else
			keep = handle_request(c, &req, fds, &nr_fds);
	}
	for (i = 0; i < nr_fds; i++)
		close(fds[i]);
	conn_after(c, keep);
}

void conn_resume(struct conn *c)
{
	if (loop_add(c->srv->loop, c->fd, EPOLLIN, on_conn, c)) {
		conn_close(c);
		return;
	}
	conn_after(c, true);
}

/* ---- connections -------------------------------------------------------------------------- */

/* The peer's ids and groups, and a pidfd of it where the kernel has SO_PEERPIDFD. */
static int peer_credentials(int fd, struct peer *p)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	gid_t *groups = NULL;
	int nr = 16;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		return -errno;
	len = sizeof(p->pidfd);
	p->has_pidfd = !getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &p->pidfd, &len);
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	for (;;) {
		len = nr * sizeof(gid_t);
		groups = xrealloc(groups, len);
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len))
			break;
		if (errno != ERANGE || len / sizeof(gid_t) > MAX_PEER_GROUPS ||
		    (int)(len / sizeof(gid_t)) <= nr) {
			free(groups);
			peer_free(p);
			return -errno;
		}
		nr = len / sizeof(gid_t);
	}
	p->nr_groups = len / sizeof(gid_t);
	p->groups = groups;
	return 0;
}

/* Closes a connection refused at once, so that the client still reads why. */
static void refuse_close(int fd)
{
	hang_up(fd);
	close(fd);
}

int client_server_adopt(struct client_server *s, int cfd)
{
	struct uid_count *uc;
	struct conn *c;
	int err;

	c = xzalloc(sizeof(*c));
	c->srv = s;
	c->fd = cfd;
	c->version = BPERF_PROTO_VERSION;
	err = peer_credentials(cfd, &c->peer);
	if (err) {
		close(cfd);
		free(c);
		return err;
	}
	snprintf(c->log_peer, sizeof(c->log_peer), "uid %u", c->peer.uid);
	uc = uid_count_get(s, c->peer.uid);
	if (s->nr_conns >= CLIENT_MAX_CONNS || uc->conns >= CLIENT_MAX_CONNS_PER_UID)
		err = -EUSERS;
	else
		err = loop_add(s->loop, cfd, EPOLLIN, on_conn, c);
	if (err) {
		/* said to the client, whose HELLO finds this reply */
		send_reply(c, 0, -EUSERS, 0, 0);
		uid_count_put(s, uc);
		refuse_close(cfd);
		peer_free(&c->peer);
		free(c);
		return err;
	}
	c->uc = uc;
	uc->conns++;
	c->accepted_ns = now_ns();
	c->next = s->conns;
	s->conns = c;
	s->nr_conns++;
	return 0;
}

static void on_accept(void *arg, int fd, unsigned int revents)
{
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (cfd >= 0)
		client_server_adopt(arg, cfd);
}

/* Connections that never said HELLO go after HELLO_TIMEOUT_NS. */
static void on_timer(void *arg, int fd, unsigned int revents)
{
	struct client_server *s = arg;
	unsigned long long now = now_ns();
	struct conn *c, *next;

	for (c = s->conns; c; c = next) {
		next = c->next;
		if (!c->hello && now - c->accepted_ns > HELLO_TIMEOUT_NS)
			conn_close(c);
	}
	socket_open_expire(s, now);
}

unsigned long long client_server_not_reading(const struct client_server *s)
{
	return s ? s->nr_not_reading : 0;
}

bool client_server_stats(const struct client_server *s, struct client_server_stats *st)
{
	const struct uid_count *u;
	const struct conn *c;
	bool ok = true;
	int i, n;

	memset(st, 0, sizeof(*st));
	st->max_sessions_per_user = s->max_sessions;
	for (c = s->conns; c; c = c->next) {
		for (i = n = 0; i < CLIENT_MAX_OPENS_PER_CONN; i++)
			n += c->sessions[i] != NULL;
		ok &= n == c->nr_sessions && c->uc->uid == c->peer.uid;
		st->nr_conns++;
		st->nr_sessions += n;
		if (n > st->max_conn_sessions)
			st->max_conn_sessions = n;
	}
	ok &= st->nr_conns == s->nr_conns;
	for (u = s->uids; u; u = u->next) {
		int conns = 0, active = 0;

		for (c = s->conns; c; c = c->next) {
			if (c->uc != u)
				continue;
			conns++;
			active += c->nr_sessions > 0;
		}
		/* an entry is freed with its uid's last connection */
		ok &= conns == u->conns && active == u->active && conns > 0;
		st->nr_uids++;
		if (conns > st->max_uid_conns)
			st->max_uid_conns = conns;
		if (u->uid && active > st->max_uid_active)
			st->max_uid_active = active;
	}
	return ok;
}

/* ---- the socket --------------------------------------------------------------------------- */

/* A socket file left by a daemon that died: replaced, but only once nothing answers on it. */
static int remove_stale(const char *path, const struct sockaddr_un *addr)
{
	struct stat st;
	int fd, err;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	err = connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) ? -errno : -EADDRINUSE;
	close(fd);
	if (err == -ECONNREFUSED || err == -ENOENT)
		return unlink(path) && errno != ENOENT ? -errno : 0;
	return err == -EADDRINUSE ? err : -EADDRINUSE;
}

/* The socket's directory: made root-owned 0755 if missing (as systemd's RuntimeDirectory). */
static int make_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	int err = 0;

	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) && errno != EEXIST)
			err = -errno;
	}
	free(dir);
	return err;
}

static int bind_socket(struct client_server *s, const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd, err;

	if (strlen(path) >= sizeof(addr.sun_path)) {
		pr_err("bperf daemon: socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	strcpy(addr.sun_path, path);
	err = make_dir(path);
	if (!err)
		err = remove_stale(path, &addr);
	if (err) {
		if (err == -EADDRINUSE)
			pr_err("bperf daemon: another daemon answers on %s", path);
		else
			pr_err("bperf daemon: cannot use %s: %s", path, strerror(-err));
		return err;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* every user may connect: the daemon checks each one's credentials */
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) || chmod(path, 0666) ||
	    listen(fd, 64)) {
		err = -errno;
		pr_err("bperf daemon: cannot listen on %s: %s", path, strerror(-err));
		close(fd);
		unlink(path);
		return err;
	}
	s->listen_fd = fd;
	return 0;
}

static void resolve_group(struct client_server *s, const char *name)
{
	struct group *g;
	char *end;
	long gid;

	if (!name || !*name)
		return;
	g = getgrnam(name);
	if (g) {
		s->group = g->gr_gid;
		s->have_group = true;
		return;
	}
	gid = strtol(name, &end, 10);
	if (!*end && gid >= 0) {
		s->group = (gid_t)gid;
		s->have_group = true;
		return;
	}
	pr_err("bperf daemon: no group %s (daemon.allow-system-wide-group): nobody is granted "
	       "system-wide counting", name);
}

struct client_server *client_server_new(struct loop *l, const struct daemon_config *cfg,
					const struct served_ops *ops)
{
	struct client_server *s = xzalloc(sizeof(*s));
	int err;

	s->loop = l;
	s->listen_fd = s->read_timer_fd = -1;
	s->max_sessions = cfg->max_sessions_per_user > 0 ? cfg->max_sessions_per_user :
			  BPERF_DAEMON_MAX_SESSIONS_PER_USER;
	s->served.ops = ops ? ops : &served_bpf_ops;
	s->served.map_path = cfg->attr_map ? cfg->attr_map : DEFAULT_ATTR_MAP_PATH;
	s->served.verbose = cfg->verbose;
	resolve_group(s, cfg->allow_group);
	s->reply = xzalloc(reply_size(BPERF_PROTO_MAX_CPUS));
	s->per_cpu = xzalloc(LEADER_MAX_CPUS * sizeof(*s->per_cpu));
	s->timer_fd = loop_add_timer(l, 1000, on_timer, s);
	if (s->timer_fd < 0) {
		pr_err("bperf daemon: a timer for the client socket: %s", strerror(-s->timer_fd));
		client_server_stop(s);
		return NULL;
	}
	err = socket_read_start(s);
	if (err) {
		pr_err("bperf daemon: a timer for the client socket: %s", strerror(-err));
		client_server_stop(s);
		return NULL;
	}
	return s;
}

int client_server_start(struct loop *l, const struct daemon_config *cfg,
			struct client_server **out)
{
	struct client_server *s = client_server_new(l, cfg, NULL);
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	err = bind_socket(s, cfg->socket_path);
	if (err) {
		client_server_stop(s);
		return err;
	}
	s->path = xstrdup(cfg->socket_path);
	err = loop_add(l, s->listen_fd, EPOLLIN, on_accept, s);
	if (err) {
		pr_err("bperf daemon: %s: %s", s->path, strerror(-err));
		client_server_stop(s);
		return err;
	}
	pr_debug(cfg->verbose, 1, "bperf daemon: serving unprivileged sessions on %s", s->path);
	*out = s;
	return 0;
}

void client_server_stop(struct client_server *s)
{
	if (!s)
		return;
	while (s->conns)
		conn_close(s->conns);
	socket_read_stop(s);
	if (s->timer_fd >= 0) {
		loop_del(s->loop, s->timer_fd);
		close(s->timer_fd);
	}
	if (s->listen_fd >= 0) {
		loop_del(s->loop, s->listen_fd);
		close(s->listen_fd);
		unlink(s->path);
	}
	while (s->uids) {
		struct uid_count *u = s->uids;

		s->uids = u->next;
		free(u);
	}
	free(s->path);
	free(s->reply);
	free(s->per_cpu);
	free(s);
}
