/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bperf stat session's connection to bperf daemon, through which a user without the
 * capabilities shared counters need counts them (daemon_counter_ops in counter.h).
 */
#ifndef BPERF_COUNTERS_DAEMON_CLIENT_H
#define BPERF_COUNTERS_DAEMON_CLIENT_H

struct daemon_conn;

/*
 * Connects to the daemon's socket: configured (daemon.socket of the user's config), else
 * $BPERF_DAEMON_SOCKET, else the default path; only a socket of root's is taken. 0, -ECANCELED
 * when the daemon refused (said), or another -errno (nothing said but at -v: no daemon).
 */
int daemon_conn_open(const char *configured, int verbose, struct daemon_conn **out);
void daemon_conn_close(struct daemon_conn *d);

#endif
