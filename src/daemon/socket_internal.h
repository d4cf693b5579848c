/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The client socket's state, shared by its connections (socket.c) and its OPEN path
 * (socket_open.c): nothing outside the two includes this.
 */
#ifndef BPERF_DAEMON_SOCKET_INTERNAL_H
#define BPERF_DAEMON_SOCKET_INTERNAL_H

#include "../counters/leader.h"
#include "loop.h"
#include "policy.h"
#include "../counters/daemon_proto.h"
#include "served.h"
#include "socket.h"
#include "uid_bucket.h"

/* kernel checks under way (a helper process each): per uid, and in all */
#define CLIENT_MAX_CHECKS_PER_UID 8
#define CLIENT_MAX_CHECKS 64
/* a helper still at work after this is killed, and the OPEN refused */
#define CHECK_TIMEOUT_NS (5 * 1000000000ull)

struct client_session {
	__u32 id;
	struct served_session s;
	bool per_cpu;		/* CPU and cgroup targets: readings per CPU */
	__u64 cpus[LEADER_MAX_CPUS / 64];
};

struct uid_count {
	uid_t uid;
	int conns;
	int active;		/* connections holding sessions: bperf stat sessions */
	int checking;		/* kernel checks under way */
	struct uid_count *next;
};

struct pending_open;

struct conn {
	struct client_server *srv;
	int fd;
	struct peer peer;
	struct uid_count *uc;
	bool hello;
	bool not_reading;	/* a reply did not fit in its socket: hung up on */
	__u32 version;		/* of the client's last request: its replies' */
	char log_peer[24];	/* "uid N", for the log */
	unsigned long long accepted_ns;
	struct client_session *sessions[CLIENT_MAX_OPENS_PER_CONN];
	int nr_sessions;
	__u32 next_id;
	/* an OPEN whose kernel check is under way: nothing more is read meanwhile */
	struct pending_open *pending;
	/* a READ, ENABLE or DISABLE waiting for its leader's next sync (socket_read.c): the same */
	bool read_waiting;
	__u32 read_type;
	__u32 read_session;
	unsigned long long read_asked_ns, read_due_ns;
	struct conn *next;
};

struct client_server {
	struct loop *loop;
	int listen_fd;
	int timer_fd;
	char *path;
	bool have_group;
	gid_t group;
	int max_sessions;
	struct served served;
	struct conn *conns;
	int nr_conns;
	int nr_checking;
	struct uid_count *uids;
	unsigned long long nr_not_reading;
	struct uid_buckets buckets;
	int read_timer_fd;		/* requests that wait for a sync (socket_read.c) */
	unsigned long long read_timer_due_ns;	/* when it goes off; 0: not armed */
	int nr_reads_waiting;
	struct bperf_reply *reply;	/* room for BPERF_PROTO_MAX_CPUS values */
	struct bpf_perf_event_value *per_cpu;
};

void send_reply(struct conn *c, __u32 session, int err, __u32 exclude_kernel, __u32 nr_values);
/* After an OPEN's check: reads the connection again, or ends it if it stopped reading. */
void conn_resume(struct conn *c);

/*
 * An OPEN: 0 with *id, -errno, or POLICY_PENDING: its kernel check is under way, the fds are
 * taken (*nr_fds is 0), the connection is not read until its reply has gone (conn_resume()).
 */
int socket_open(struct conn *c, const struct bperf_req *req, int *fds, int *nr_fds, __u32 *id);
/* The index in c->sessions of session id, or -1. */
int conn_find_session(struct conn *c, __u32 id);

/*
 * A READ, ENABLE or DISABLE (type) of session id: answered now, or, if its leader synced too
 * lately, when it syncs next (the connection is not read until then, and resumed with
 * conn_resume()).
 */
void socket_synced(struct conn *c, __u32 type, __u32 session);
/* Forgets the waiting request of a connection that ends (or is answered). */
void socket_read_cancel(struct conn *c);
/* The timer of waiting READs: 0 or -errno. */
int socket_read_start(struct client_server *s);
void socket_read_stop(struct client_server *s);

/* Ends the pending OPEN of a connection that ends. */
void socket_open_cancel(struct conn *c);
/* Kills the helpers of checks older than CHECK_TIMEOUT_NS. */
void socket_open_expire(struct client_server *s, unsigned long long now);

#endif
