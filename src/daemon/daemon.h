/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf daemon: always-on shared counters per CPU and per cgroup, exported over HTTP for
 * Prometheus (http.c, exposition.c) and served to unprivileged bperf stat sessions over a Unix
 * socket (socket.c). This header holds what the pieces share: the daemon's settings.
 */
#ifndef BPERF_DAEMON_H
#define BPERF_DAEMON_H

#include <stdbool.h>

#include "../counters/daemon_proto.h"

/* Default --listen port, in Prometheus's exporter range (9100-9999); see man/bperf.1 */
#define BPERF_DAEMON_PORT 9942
#define BPERF_DAEMON_LISTEN "127.0.0.1:9942"
#define BPERF_DAEMON_MAX_SESSIONS_PER_USER 8
/* CPU x cgroup series by default at most (daemon.max-cgroup-cpu-series; see man page) */
#define BPERF_DAEMON_MAX_CGROUP_CPU_SERIES 100000

/* From the command line, else perf's config files ([daemon] section), else the defaults. */
struct daemon_config {
	char *events;		/* -e / daemon.events */
	char *cgroup_root;	/* --cgroup-root / daemon.cgroup-root: below perf's cgroup fs */
	char *cgroup_cpu_series;	/* daemon.cgroup-cpu-series: paths, "all", or NULL */
	int max_cgroup_cpu_series;	/* daemon.max-cgroup-cpu-series */
	char *listen;		/* --listen / daemon.listen: ADDR:PORT, or NULL for none */
	char *socket_path;	/* --socket / daemon.socket, or NULL for none */
	char *allow_group;	/* daemon.allow-system-wide-group: a group name, or NULL */
	int max_sessions_per_user;	/* daemon.max-sessions-per-user */
	const char *attr_map;	/* --bpf-attr-map, else DEFAULT_ATTR_MAP_PATH */
	int verbose;
};

struct top_opts;
int cmd_daemon(int argc, const char **argv, const struct top_opts *top);

#endif
