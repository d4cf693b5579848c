/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's Unix socket for bperf stat sessions without the capabilities shared counters
 * need: the daemon checks each peer's credentials and counts for it only what perf would let
 * that user count (proto.h has the messages).
 */
#ifndef BPERF_DAEMON_SOCKET_H
#define BPERF_DAEMON_SOCKET_H

#include "daemon.h"
#include "loop.h"

struct client_server;

/* Binds cfg->socket_path (a stale socket file is replaced); 0 or -errno after printing why. */
int client_server_start(struct loop *l, const struct daemon_config *cfg,
			struct client_server **out);
/* Ends every client's sessions (their slots are released), unlinks the socket. */
void client_server_stop(struct client_server *s);

#endif
