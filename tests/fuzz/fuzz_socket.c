// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the daemon's client socket (src/daemon/socket.c), issue 18: a client must
 * not make the daemon count for anyone else, crash it, or grow its memory without bound. Each
 * input is a sequence of client messages, each sent with a number of fds over a real
 * SOCK_SEQPACKET socketpair into the daemon's own connection handler and event loop; only the
 * counting backend is a fake (served_ops: no BPF, no root, no helper process), which checks that
 * every slot it is asked for is what the kernel check approved, for the client that asked.
 *
 * A message is 5 bytes and a body: flags (bits 0-5: one of 64 client connections, bit 6: a full
 * struct bperf_req of version 2 with the body at its start, sent as version 1 where the length's
 * top bit is set, bit 7: the client hangs up
 * after it), the number of fds (mod 72), their kinds (2 bits per fd, repeating: /dev/null, a
 * pidfd of this process, a pidfd of a process gone, perf's cgroup mount), the body's length
 * (16 bits, little-endian: the message's own length but for a full one, at most 64 bytes more
 * than the struct).
 * As root, a quarter of the connections are root's, the others nobody's (one in three of those
 * in daemon.allow-system-wide-group), so that per-user limits are reached.
 *
 * After each message: one reply (none after a message of no bytes), well-formed; the server's
 * counters agree with what it holds and keep to the limits; the fake holds exactly the sessions
 * the server does. After each input (every connection ended, the server stopped): no session
 * left, and as many fds open as before (ASan's leak check sees the memory).
 *
 *	FUZZ_SOCKET_SEEDS=DIR fuzz_socket	writes seed inputs (whole sessions) into DIR, exits
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon/loop.h"
#include "counters/daemon_proto.h"
#include "daemon/proto_v1.h"
#include "daemon/served.h"
#include "daemon/socket.h"
#include "events/cgroup.h"
#include "fuzz_assert.h"

#define NR_CONNS 64		/* more than CLIENT_MAX_CONNS_PER_UID */
#define MAX_FDS 71		/* more than BPERF_PROTO_MAX_IDS */
#define MAX_SESSIONS 2		/* daemon.max-sessions-per-user: small, so that it is reached */
#define NOBODY 65534
#define NOGROUP 65533		/* not the policy group */
#define F_CONN 0x3f
#define F_FULL 0x40
#define F_HANGUP 0x80

enum { FD_NULL, FD_SELF, FD_GONE, FD_CGROUP, NR_KINDS };

/* The fake's session: one allocation each, so that ASan sees one the server forgets. */
struct served_leader {
	int conn;
	unsigned int nr_cpus;
	/* the attr's config1: bit 0 enable fails, bit 1 read fails (bit 2 the open, bit 3 loads) */
	__u64 fail;
};

/*
 * File scope: the fake's ops have no context of their own, and libFuzzer gives none. What the
 * harness sets before each message (cur_*) says which client the daemon is serving.
 */
static struct {
	int kinds[NR_KINDS];		/* sent as often as asked */
	bool root;
	uid_t uid;
	gid_t gid;
	bool nogroup_member;		/* root's supplementary groups hold NOBODY's gid */
	int cur;
	uid_t cur_uid;
	bool cur_granted;
	int live;			/* the fake's sessions */
	int pending;			/* its checks under way */
	int loads;			/* its leaders "loading" */
	bool checked;			/* the kernel check's last approval, not yet used */
	__u32 reply_version;		/* what the replies to the message sent say */
	struct policy_target chk;
	pid_t chk_tids[1024];
	int chk_cpus[BPERF_PROTO_MAX_CPUS];
} F;

static int fake_verdict(const struct peer *p, const struct perf_event_attr *attr,
			const struct policy_target *t);

/*
 * The kernel's word: refused where the attr's config2 has bit 0; given later (POLICY_PENDING,
 * an eventfd already readable for the helper's pidfd) where it has bit 1, so that inputs reach
 * the connections set aside and what arrives for them meanwhile.
 */
static int fake_check(const struct peer *p, const struct perf_event_attr *attr,
		      const struct policy_target *t, struct policy_job *job)
{
	int err = fake_verdict(p, attr, t);

	if (!(attr->config2 & 2))
		return err;
	job->pidfd = eventfd(1, EFD_CLOEXEC);
	ASSERT(job->pidfd >= 0);
	job->pid = -err;	/* the fake's helper "exits" with its verdict */
	F.pending++;
	return POLICY_PENDING;
}

static int fake_check_end(struct policy_job *job)
{
	int err = -job->pid;

	ASSERT(job->pidfd >= 0 && F.pending > 0);
	close(job->pidfd);
	job->pidfd = -1;
	F.pending--;
	return err;
}

static void fake_check_kill(const struct policy_job *job)
{
	ASSERT(job->pidfd >= 0);
}

static int fake_verdict(const struct peer *p, const struct perf_event_attr *attr,
			const struct policy_target *t)
{
	/* the daemon asks for the client that sent the message, no one else */
	ASSERT(p->uid == F.cur_uid);
	ASSERT(t->nr_tids >= 0 && t->nr_tids <= (int)(sizeof(F.chk_tids) / sizeof(pid_t)));
	ASSERT(t->nr_cpus >= 0 && t->nr_cpus <= BPERF_PROTO_MAX_CPUS);
	if (attr->config2 & 1)
		return -EACCES;
	F.checked = true;
	F.chk = *t;
	if (t->nr_tids)
		memcpy(F.chk_tids, t->tids, t->nr_tids * sizeof(pid_t));
	if (t->nr_cpus)
		memcpy(F.chk_cpus, t->cpus, t->nr_cpus * sizeof(int));
	return 0;
}

/* A load: open() answers SERVED_LOADING where config1 has bit 3, its eventfd readable at once. */
struct served_load {
	int fd;
	struct perf_event_attr attr;
	bool unpriv;
};

static int fake_leader(const struct perf_event_attr *attr, bool unpriv, struct served_session *out)
{
	struct served_leader *l;

	memset(out, 0, sizeof(*out));
	l = calloc(1, sizeof(*l));
	ASSERT(l);
	l->conn = F.cur;
	l->nr_cpus = 1 + attr->config % LEADER_MAX_CPUS;
	l->fail = attr->config1;
	out->leader = l;
	out->unpriv = unpriv;
	F.live++;
	return 0;
}

static int fake_open(struct served *sv, const struct perf_event_attr *attr,
		     const struct leader_session_spec *spec, bool unpriv,
		     struct served_session *out, struct served_load **load)
{
	bool checked = F.checked;

	F.checked = false;
	ASSERT(unpriv == (F.cur_uid != 0));
	/* what is claimed is what the kernel approved: threads always, CPUs unless granted */
	if (spec->filter == FILTER_TID) {
		ASSERT(checked && spec->nr_ids == F.chk.nr_tids && !F.chk.nr_cpus);
		ASSERT(!memcmp(spec->ids, F.chk_tids, spec->nr_ids * sizeof(pid_t)));
	} else if (!F.cur_granted) {
		ASSERT(checked && spec->nr_cpus == F.chk.nr_cpus && !F.chk.nr_tids);
		ASSERT(!memcmp(spec->cpus, F.chk_cpus, spec->nr_cpus * sizeof(int)));
		ASSERT((spec->filter == FILTER_CGROUP) == (F.chk.cgroup_fd >= 0));
	}
	if (attr->config1 & 4)
		return -ENOSPC;
	if (attr->config1 & 8) {
		struct served_load *ld = calloc(1, sizeof(*ld));

		ASSERT(ld);
		ld->fd = eventfd(1, EFD_CLOEXEC);
		ASSERT(ld->fd >= 0);
		ld->attr = *attr;
		ld->attr.config1 &= ~8ull;
		ld->unpriv = unpriv;
		*load = ld;
		F.loads++;
		return SERVED_LOADING;
	}
	return fake_leader(attr, unpriv, out);
}

static int fake_load_fd(const struct served_load *ld)
{
	return ld->fd;
}

static void fake_load_abandon(struct served_load *ld)
{
	ASSERT(F.loads > 0);
	close(ld->fd);
	free(ld);
	F.loads--;
}

static int fake_open_end(struct served *sv, struct served_load *ld,
			 const struct leader_session_spec *spec, struct served_session *out)
{
	struct perf_event_attr attr = ld->attr;
	bool unpriv = ld->unpriv;

	fake_load_abandon(ld);
	return fake_leader(&attr, unpriv, out);
}

static int fake_set_enabled(struct served_session *s, bool enabled,
			    unsigned long long asked_ns)
{
	ASSERT(s->leader->conn == F.cur);
	return s->leader->fail & 1 ? -EIO : 0;
}

/* at once: one reply after each message (the waits of socket_read.c are the real backend's) */
static unsigned long long fake_sync_due_ns(const struct served_session *s,
					   unsigned long long now_ns)
{
	ASSERT(s->leader->conn == F.cur);
	return now_ns;
}

static int fake_read(struct served_session *s, unsigned long long asked_ns,
		     struct bpf_perf_event_value *per_cpu)
{
	unsigned int cpu;

	ASSERT(s->leader->conn == F.cur);
	if (s->leader->fail & 2)
		return -EIO;
	for (cpu = 0; cpu < s->leader->nr_cpus; cpu++)
		per_cpu[cpu] = (struct bpf_perf_event_value){ cpu + 1, 2, 1 };
	return 0;
}

static unsigned int fake_nr_cpus(const struct served_session *s)
{
	return s->leader->nr_cpus;
}

static void fake_close(struct served *sv, struct served_session *s)
{
	/* a session ends by its own client's CLOSE or end */
	ASSERT(s->leader && s->leader->conn == F.cur);
	free(s->leader);
	memset(s, 0, sizeof(*s));
	F.live--;
}

static const struct served_ops fake_ops = {
	.check_start = fake_check,
	.check_end = fake_check_end,
	.check_kill = fake_check_kill,
	.open = fake_open,
	.load_fd = fake_load_fd,
	.open_end = fake_open_end,
	.load_abandon = fake_load_abandon,
	.set_enabled = fake_set_enabled,
	.sync_due_ns = fake_sync_due_ns,
	.read = fake_read,
	.nr_cpus = fake_nr_cpus,
	.close = fake_close,
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ASSERT(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static uid_t conn_uid(int k)
{
	return F.root && k % 4 ? NOBODY : F.uid;
}

static gid_t conn_gid(int k)
{
	return !F.root || k % 4 == 0 ? F.gid : k % 4 == 1 ? NOBODY : NOGROUP;
}

/* A client connection as uid/gid would make it (SO_PEERCRED gives the effective ids). */
static int connect_conn(struct client_server *s, int k)
{
	int sv[2];

	if (conn_uid(k) != F.uid) {
		ASSERT(!setegid(conn_gid(k)) && !seteuid(conn_uid(k)));
		ASSERT(!socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
		ASSERT(!seteuid(F.uid) && !setegid(F.gid));
	} else {
		ASSERT(!socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv));
	}
	if (client_server_adopt(s, sv[1])) {
		close(sv[0]);
		return -1;
	}
	return sv[0];
}

static void run_loop(struct loop *l)
{
	int rounds = 0, n;

	while ((n = loop_run_once(l, 0)) > 0)
		ASSERT(++rounds < 1000);
	ASSERT(n == 0);
}

/* The replies waiting for a client, each checked; false once the daemon hung up on it. */
static bool drain(int fd, int *replies)
{
	static char buf[65536];
	const struct bperf_reply *r = (const void *)buf;
	ssize_t n;

	for (;;) {
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n <= 0)
			return false;
		ASSERT(n >= (ssize_t)sizeof(*r) && n <= (ssize_t)sizeof(buf));
		/*
		 * in the request's version where the daemon speaks it, else in its own (as is
		 * the refusal of a connection at accept)
		 */
		ASSERT((r->version == F.reply_version ||
			(r->err == -EUSERS && r->version == BPERF_PROTO_VERSION)) &&
		       r->type == MSG_REPLY);
		ASSERT(r->nr_values <= BPERF_PROTO_MAX_CPUS && (size_t)n == sizeof(*r) +
		       r->nr_values * sizeof(struct bpf_perf_event_value));
		ASSERT(r->err <= 0 && (!r->nr_values || !r->err));
		(*replies)++;
	}
}

/* req as a version 1 client built with this attr size (128: Debian 12's headers) sends it */
static size_t encode_v1(const struct bperf_req *req, unsigned char *msg)
{
	struct bperf_req_v1_head head = { 1, req->type, req->session, req->target };
	struct bperf_req_v1_tail tail = { .inherit = req->inherit, .nr_ids = req->nr_ids };

	memcpy(tail.ids, req->ids, sizeof(tail.ids));
	memcpy(tail.cgroup, req->cgroup, sizeof(tail.cgroup));
	memcpy(msg, &head, sizeof(head));
	memcpy(msg + sizeof(head), req->attr_bytes, 128);
	memcpy(msg + sizeof(head) + 128, &tail, sizeof(tail));
	return BPERF_PROTO_V1_LEN(128);
}

static void check_server(const struct client_server *s)
{
	struct client_server_stats st;

	ASSERT(client_server_stats(s, &st));
	ASSERT(st.nr_sessions == F.live);
	ASSERT(st.nr_conns <= CLIENT_MAX_CONNS && st.max_uid_conns <= CLIENT_MAX_CONNS_PER_UID);
	ASSERT(st.max_conn_sessions <= CLIENT_MAX_OPENS_PER_CONN);
	ASSERT(st.max_uid_active <= st.max_sessions_per_user);
}

/* Sends one message with nr_fds fds of the kinds asked; sendmsg()'s result. */
static ssize_t send_msg(int fd, const void *buf, size_t len, unsigned char kinds, int nr_fds)
{
	int fds[MAX_FDS], i;

	for (i = 0; i < nr_fds; i++)
		fds[i] = F.kinds[(kinds >> (2 * (i % 4))) & 3];
	return proto_send(fd, buf, len, fds, nr_fds);
}

/* The client ends connection k; the daemon reads the end. */
static void client_hang_up(struct loop *l, int *conns, int k)
{
	close(conns[k]);
	conns[k] = -1;
	F.cur = k;
	run_loop(l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct daemon_config cfg = {
		.max_sessions_per_user = MAX_SESSIONS,
		.allow_group = F.root ? (char *)"65534" : NULL,
	};
	unsigned char msg[sizeof(struct bperf_req) + 64];
	int conns[NR_CONNS], fds_before = count_fds(), k;
	struct client_server *s;
	struct loop *l;
	size_t off = 0;

	l = loop_new();
	ASSERT(l);
	s = client_server_new(l, &cfg, &fake_ops);
	ASSERT(s);
	for (k = 0; k < NR_CONNS; k++)
		conns[k] = -1;
	while (size - off >= 5) {
		unsigned char flags = data[off], kind = data[off + 2];
		int nr_fds = data[off + 1] % (MAX_FDS + 1), replies = 0;
		size_t len = data[off + 3] | data[off + 4] << 8, body;
		/* a full message's length's top bit: sent as version 1 sent it */
		bool as_v1 = (flags & F_FULL) && (len & 0x8000);
		ssize_t sent;

		len &= as_v1 ? 0x7fff : 0xffff;
		off += 5;
		body = len < size - off ? len : size - off;
		if (flags & F_FULL) {
			struct bperf_req req = { 0 };

			body = body < sizeof(req) ? body : sizeof(req);
			memcpy(&req, data + off, body);
			req.version = BPERF_PROTO_VERSION;
			memcpy(msg, &req, sizeof(req));
			len = sizeof(req);
			if (as_v1)
				len = encode_v1(&req, msg);
		} else {
			len = len < sizeof(msg) ? len : sizeof(msg);
			body = body < len ? body : len;
			memset(msg, 0, len);
			memcpy(msg, data + off, body);
		}
		off += body;
		k = flags & F_CONN;
		F.cur = k;
		F.cur_uid = conn_uid(k);
		F.cur_granted = F.root && (conn_gid(k) == NOBODY || F.nogroup_member);
		F.checked = false;
		if (conns[k] < 0) {
			conns[k] = connect_conn(s, k);
			if (conns[k] < 0)
				continue;
		}
		F.reply_version = len >= 4 && msg[0] == 1 && !msg[1] && !msg[2] && !msg[3] ? 1 :
				  BPERF_PROTO_VERSION;
		sent = send_msg(conns[k], msg, len, kind, nr_fds);
		run_loop(l);
		if (!drain(conns[k], &replies))
			client_hang_up(l, conns, k);
		/* the daemon answers every message it reads but one of no bytes (the end) */
		ASSERT(replies == (sent > 0));
		if (conns[k] >= 0 && flags & F_HANGUP)
			client_hang_up(l, conns, k);
		check_server(s);
	}
	for (k = 0; k < NR_CONNS; k++)
		if (conns[k] >= 0)
			client_hang_up(l, conns, k);
	check_server(s);
	ASSERT(F.live == 0 && F.pending == 0 && F.loads == 0);
	client_server_stop(s);
	loop_free(l);
	/* every fd a client sent, and every connection, closed */
	ASSERT(count_fds() == fds_before);
	return 0;
}

/* ---- seeds -------------------------------------------------------------------------------- */

static void put_msg(FILE *f, int conn, int flags, int nr_fds, int kinds, const void *body,
		    size_t len)
{
	unsigned char h[5] = { conn | flags, nr_fds, kinds, len & 0xff, len >> 8 };

	fwrite(h, 1, sizeof(h), f);
	fwrite(body, 1, flags & F_FULL ? len & 0x7fff : len, f);
}

/* Seeds of version 1's messages where set */
static bool seed_v1;

static void put_req(FILE *f, int conn, int nr_fds, int kinds, __u32 type, __u32 session,
		    const struct bperf_req *open)
{
	struct bperf_req req = { 0 };
	const unsigned char *p = (const void *)&req;
	size_t len = sizeof(req);

	if (open)
		req = *open;
	req.version = BPERF_PROTO_VERSION;
	req.type = type;
	req.session = session;
	/* what follows the last byte that is not 0 stays 0 */
	while (len && !p[len - 1])
		len--;
	put_msg(f, conn, F_FULL, nr_fds, kinds, &req, len | (seed_v1 ? 0x8000 : 0));
}

static void put_session(FILE *f, int conn, int nr_fds, int kinds, const struct bperf_req *open)
{
	put_req(f, conn, 0, 0, MSG_HELLO, 0, NULL);
	put_req(f, conn, nr_fds, kinds, MSG_OPEN, 0, open);
	put_req(f, conn, 0, 0, MSG_ENABLE, 1, NULL);
	put_req(f, conn, 0, 0, MSG_READ, 1, NULL);
	put_req(f, conn, 0, 0, MSG_DISABLE, 1, NULL);
	put_req(f, conn, 0, 0, MSG_CLOSE, 1, NULL);
}

static FILE *seed_file(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ASSERT(f);
	return f;
}

/* As root: a whole session of o by root, by a user of the policy group, by another. */
static void seed_sessions(const char *dir, const char *name, const struct bperf_req *o,
			  int nr_fds, int kinds)
{
	FILE *f = seed_file(dir, name);

	for (int conn = 0; conn < 3; conn++)
		put_session(f, conn, nr_fds, kinds, o);
	fclose(f);
}

static void write_seeds(const char *dir)
{
	struct bperf_req o = {
		.target = TGT_PID, .nr_ids = 1, .attr_size = sizeof(struct perf_event_attr),
	};
	FILE *f;
	int i;

	o.attr.type = PERF_TYPE_SOFTWARE;
	o.attr.size = sizeof(o.attr);
	o.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	o.attr.exclude_kernel = 1;
	o.attr.exclude_hv = 1;
	seed_sessions(dir, "pid", &o, 1, FD_SELF);
	seed_v1 = true;
	seed_sessions(dir, "pid_v1", &o, 1, FD_SELF);
	seed_v1 = false;
	o.target = TGT_WORKLOAD;
	o.inherit = 1;
	seed_sessions(dir, "workload", &o, 1, FD_SELF);
	seed_sessions(dir, "gone", &o, 1, FD_GONE);
	o.target = TGT_TID;
	o.ids[0] = getpid();
	seed_sessions(dir, "tid_numbers", &o, 0, 0);
	o.target = TGT_CPUS;
	o.attr.config = PERF_COUNT_SW_CPU_CLOCK;
	o.nr_ids = 2;
	o.ids[0] = 0;
	o.ids[1] = 1;
	seed_sessions(dir, "cpus", &o, 0, 0);
	o.target = TGT_CGROUP;
	seed_sessions(dir, "cgroup", &o, 1, FD_CGROUP);
	/* a new leader loads: after a check given later, and with none to wait for */
	o.attr.config1 = 8;
	seed_sessions(dir, "cgroup_load", &o, 1, FD_CGROUP);
	o.attr.config2 = 2;
	seed_sessions(dir, "cgroup_checked_load", &o, 1, FD_CGROUP);
	o.attr.config1 = o.attr.config2 = 0;
	/* past the limits: opens on one connection, sessions of one user, connections */
	f = seed_file(dir, "limits");
	o.target = TGT_PID;
	o.nr_ids = 1;
	put_req(f, 1, 0, 0, MSG_HELLO, 0, NULL);
	for (i = 0; i < CLIENT_MAX_OPENS_PER_CONN + 2; i++)
		put_req(f, 1, 1, FD_SELF, MSG_OPEN, 0, &o);
	for (i = 2; i < 8; i++) {
		put_req(f, i, 0, 0, MSG_HELLO, 0, NULL);
		put_req(f, i, 1, FD_SELF, MSG_OPEN, 0, &o);
	}
	for (i = 8; i < NR_CONNS; i++)
		put_req(f, i, 0, 0, MSG_HELLO, 0, NULL);
	fclose(f);
	f = seed_file(dir, "fds");
	put_msg(f, 1, 0, 8, FD_NULL, "", 0);
	put_msg(f, 2, 0, 8, 0x55 * FD_SELF, "\1\0\0\0", 3);
	put_req(f, 3, MAX_FDS, 0xe4, MSG_HELLO, 0, NULL);
	put_req(f, 5, BPERF_PROTO_MAX_IDS, 0, MSG_HELLO, 0, NULL);
	put_req(f, 5, BPERF_PROTO_MAX_IDS, 0xe4, MSG_OPEN, 0, &o);
	fclose(f);
}

/* The fds a message may carry, kept open for the whole run. */
static void open_kinds(void)
{
	char mnt[4096];
	pid_t child;

	F.kinds[FD_NULL] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	F.kinds[FD_SELF] = (int)syscall(SYS_pidfd_open, getpid(), 0);
	child = fork();
	if (child == 0)
		_exit(0);
	/* opened before the child is reaped, so that it names a process that is gone after */
	F.kinds[FD_GONE] = (int)syscall(SYS_pidfd_open, child, 0);
	waitpid(child, NULL, 0);
	F.kinds[FD_CGROUP] = -1;
	if (!cgroup_mountpoint(mnt, sizeof(mnt)))
		F.kinds[FD_CGROUP] = open(mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (F.kinds[FD_CGROUP] < 0)
		F.kinds[FD_CGROUP] = F.kinds[FD_NULL];
	for (int i = 0; i < NR_KINDS; i++)
		ASSERT(F.kinds[i] >= 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seeds = getenv("FUZZ_SOCKET_SEEDS");
	gid_t groups[256];
	int n, i;

	if (seeds) {
		write_seeds(seeds);
		exit(0);
	}
	F.uid = geteuid();
	F.gid = getegid();
	F.root = F.uid == 0;
	n = getgroups(256, groups);
	for (i = 0; i < n; i++)
		F.nogroup_member |= groups[i] == NOBODY;
	open_kinds();
	return 0;
}
