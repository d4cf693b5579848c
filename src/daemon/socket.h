/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's Unix socket for bperf stat sessions without the capabilities shared counters
 * need: the daemon checks each peer's credentials and counts for it only what perf would let
 * that user count (counters/daemon_proto.h has the messages).
 */
#ifndef BPERF_DAEMON_SOCKET_H
#define BPERF_DAEMON_SOCKET_H

#include <stdbool.h>

#include "daemon.h"
#include "loop.h"

/*
 * What clients may hold, root's too: connections in all and of one uid, sessions of one
 * connection (daemon.max-sessions-per-user, the connections of one user holding sessions, leaves
 * root out).
 */
#define CLIENT_MAX_CONNS 256
#define CLIENT_MAX_CONNS_PER_UID 32
#define CLIENT_MAX_OPENS_PER_CONN 64

struct client_server;
struct served_ops;

/* Binds cfg->socket_path (a stale socket file is replaced); 0 or -errno after printing why. */
int client_server_start(struct loop *l, const struct daemon_config *cfg,
			struct client_server **out);
/* Ends every client's sessions (their slots are released), unlinks the socket. */
void client_server_stop(struct client_server *s);

/*
 * For tests/fuzz/fuzz_socket.c: a server with no socket file, counting with ops (NULL:
 * served_bpf_ops), and fd (a connected SOCK_SEQPACKET socket, non-blocking) served as a client
 * accepted on it, from the credentials the kernel gives for its peer. Adopt takes fd in any case
 * (a refused client gets its reply, then fd is closed); 0, or -errno when it was refused.
 */
struct client_server *client_server_new(struct loop *l, const struct daemon_config *cfg,
					const struct served_ops *ops);
int client_server_adopt(struct client_server *s, int fd);

/* The server's bookkeeping, counted again from its connections and sessions. */
struct client_server_stats {
	int nr_conns;
	int nr_uids;		/* uids with a connection or a session */
	int nr_sessions;	/* over every connection */
	int max_conn_sessions;	/* the most one connection holds */
	int max_uid_conns;	/* the most connections of one uid */
	int max_uid_active;	/* the most connections holding sessions of one non-root uid */
	int max_sessions_per_user;	/* the limit max_uid_active keeps to */
};

/* Clients hung up on because a reply did not fit in their socket (NULL: 0). */
unsigned long long client_server_not_reading(const struct client_server *s);
/* Fills st; false when the server's own counters disagree with what it holds. */
bool client_server_stats(const struct client_server *s, struct client_server_stats *st);

#endif
