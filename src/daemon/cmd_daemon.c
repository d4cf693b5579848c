// SPDX-License-Identifier: GPL-2.0-only
/*
 * `bperf daemon`: its options and config keys, and the process around the pieces: the leaders
 * and cgroups (registry.c, cgwatch.c), the HTTP exporter (http.c) and the Unix socket for
 * unprivileged sessions (socket.c), all served by one epoll loop until SIGTERM or SIGINT.
 */
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/top_opts.h"
#include "../util/common.h"
#include "../config.h"
#include "../counters/attr_map.h"
#include "../util/parse_options.h"
#include "cgwatch.h"
#include "daemon.h"
#include "exposition.h"
#include "http.h"
#include "loop.h"
#include "registry.h"
#include "snapshot.h"
#include "socket.h"

/* perf stat's usual events; those this machine lacks are left out (no PMU in a VM, ...) */
#define DAEMON_DEFAULT_EVENTS "cycles,instructions,cpu-clock,context-switches,page-faults"

static const char *const daemon_usage[] = {
	"bperf daemon [<options>]",
	NULL,
};

struct daemon {
	struct daemon_config cfg;
	bool default_events;	/* cfg.events is DAEMON_DEFAULT_EVENTS */
	struct loop *loop;
	struct registry *reg;
	struct cgwatch *cgroups;
	struct http_server *http;
	struct client_server *clients;
	int signal_fd;
};

struct daemon_args {
	char *events;		/* -e, every one given, comma-joined */
	const char *listen, *socket_path, *cgroup_root, *attr_map;
	int verbose;
};

static int parse_event_arg(const struct option *opt, const char *arg, bool unset)
{
	struct daemon_args *a = opt->data;
	char *joined;

	(void)unset;
	joined = a->events ? xasprintf("%s,%s", a->events, arg) : xstrdup(arg);
	free(a->events);
	a->events = joined;
	return 0;
}

/* "none" turns a server off. */
static char *or_none(const char *value)
{
	return value && strcmp(value, "none") ? xstrdup(value) : NULL;
}

/* An integer key from 0 to max, else def; -EINVAL after one line if malformed. */
static int config_int(const struct perf_config *pc, const char *key, int def, long max, int *out)
{
	const char *v = perf_config_get(pc, key);
	char *end;
	long n;

	*out = def;
	if (!v)
		return 0;
	n = strtol(v, &end, 10);
	if (*v && !*end && n >= 0 && n <= max) {
		*out = (int)n;
		return 0;
	}
	pr_err("bperf daemon: bad config value for '%s': '%s'", key, v);
	return -EINVAL;
}

/* The [daemon] keys of perf's config files, under the command line's values. */
static int read_config(struct daemon *d, const struct daemon_args *a)
{
	struct daemon_config *cfg = &d->cfg;
	struct config_files files;
	struct perf_config pc;
	const char *v;
	int err = 0;

	config_files_from_env(&files);
	perf_config_load(&pc, &files);
	v = a->events ?: perf_config_get(&pc, "daemon.events");
	if (!v)
		v = perf_config_get(&pc, "stat.bpf-counter-events");
	d->default_events = !v;
	cfg->events = xstrdup(v ?: DAEMON_DEFAULT_EVENTS);
	v = a->cgroup_root ?: perf_config_get(&pc, "daemon.cgroup-root");
	cfg->cgroup_root = xstrdup(v ?: "/");
	v = perf_config_get(&pc, "daemon.cgroup-cpu-series");
	cfg->cgroup_cpu_series = v && *v ? xstrdup(v) : NULL;
	v = a->listen ?: perf_config_get(&pc, "daemon.listen");
	cfg->listen = or_none(v ?: BPERF_DAEMON_LISTEN);
	v = a->socket_path ?: perf_config_get(&pc, "daemon.socket");
	cfg->socket_path = or_none(v ?: BPERF_DAEMON_SOCKET);
	v = perf_config_get(&pc, "daemon.allow-system-wide-group");
	cfg->allow_group = v && *v ? xstrdup(v) : NULL;
	err = config_int(&pc, "daemon.max-sessions-per-user", BPERF_DAEMON_MAX_SESSIONS_PER_USER,
			 1 << 20, &cfg->max_sessions_per_user);
	if (!err)
		err = config_int(&pc, "daemon.max-cgroup-cpu-series",
				 BPERF_DAEMON_MAX_CGROUP_CPU_SERIES, 1 << 30,
				 &cfg->max_cgroup_cpu_series);
	cfg->attr_map = a->attr_map ?: DEFAULT_ATTR_MAP_PATH;
	cfg->verbose = a->verbose;
	perf_config_free(&pc);
	config_files_free(&files);
	return err;
}

/* The socket's directory (/run/bperf), made 0755 if missing: clients must reach the socket. */
static int make_socket_dir(const char *path)
{
	char *copy = xstrdup(path), *dir = dirname(copy);
	int err = 0;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		err = -errno;
		pr_err("bperf daemon: cannot make the socket's directory %s: %s", dir,
		       strerror(-err));
	}
	free(copy);
	return err;
}

static void on_signal(void *arg, int fd, unsigned int revents)
{
	struct daemon *d = arg;
	struct signalfd_siginfo si;

	(void)revents;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT) {
			pr_debug(d->cfg.verbose, 1, "bperf daemon: %s, stopping",
				 strsignal(si.ssi_signo));
			loop_stop(d->loop, 0);
		}
	}
}

/*
 * SIGTERM and SIGINT come through a signalfd, so that they stop the loop between two callbacks;
 * SIGHUP is taken and ignored (no configuration is reread yet); a client gone mid-write must
 * not kill the daemon (SIGPIPE).
 */
static int watch_signals(struct daemon *d)
{
	sigset_t set;
	int err;

	signal(SIGPIPE, SIG_IGN);
	/* the policy helpers' statuses are read (waitpid): an inherited SIG_IGN would reap them */
	signal(SIGCHLD, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	d->signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->signal_fd < 0)
		return -errno;
	err = loop_add(d->loop, d->signal_fd, EPOLLIN, on_signal, d);
	if (err) {
		close(d->signal_fd);
		d->signal_fd = -1;
	}
	return err;
}

/* The HTTP server is started before the registry exists: it asks through the daemon. */
static int daemon_metrics(void *arg, struct byte_buf *out, bool openmetrics)
{
	struct daemon *d = arg;
	struct snapshot s;
	int err;

	if (!d->reg)
		return -EAGAIN;
	err = registry_snapshot(d->reg, &s);
	if (err)
		return err;
	s.nr_not_reading = client_server_not_reading(d->clients);
	return exposition_write(out, &s, openmetrics);
}

/*
 * The soft fd limit up to the hard one: every scraper connection, client session and per-CPU
 * counter is an fd, and the HTTP server sizes its connection limits from this (http.h).
 */
static void raise_fd_limit(int verbose)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return;
	pr_debug(verbose, 1, "bperf daemon: fd limit raised to %llu",
		 (unsigned long long)rl.rlim_cur);
}

/*
 * Servers first: a port in use or a bad address fails before any leader is taken. The
 * registry's leaders, then the cgroups, then the line tests and users wait for.
 */
static int daemon_start(struct daemon *d)
{
	int err;

	raise_fd_limit(d->cfg.verbose);
	d->loop = loop_new();
	if (!d->loop)
		return -errno;
	err = watch_signals(d);
	if (err) {
		pr_err("bperf daemon: cannot take signals: %s", strerror(-err));
		return err;
	}
	if (d->cfg.listen) {
		err = http_server_start(d->loop, d->cfg.listen, daemon_metrics, d, &d->http);
		if (err)
			return err;
	}
	if (d->cfg.socket_path) {
		err = make_socket_dir(d->cfg.socket_path);
		if (!err)
			err = client_server_start(d->loop, &d->cfg, &d->clients);
		if (err)
			return err;
	}
	err = registry_open(&d->cfg, d->default_events, &d->reg);
	if (!err)
		err = cgwatch_start(d->loop, d->cfg.cgroup_root, d->cfg.verbose, d->reg,
				    &d->cgroups);
	if (!err)
		err = registry_start_error(d->reg);
	if (err)
		return err;
	if (d->http)
		fprintf(stderr, "bperf daemon: listening on %s\n", http_server_address(d->http));
	pr_debug(d->cfg.verbose, 1, "bperf daemon: ready, %d cgroups counted",
		 registry_nr_cgroups(d->reg));
	return 0;
}

/* Servers first (nothing new comes in), then the cgroups and slots, then every fd. */
static void daemon_stop(struct daemon *d)
{
	if (d->http)
		http_server_stop(d->http);
	if (d->clients)
		client_server_stop(d->clients);
	cgwatch_stop(d->cgroups);
	registry_close(d->reg);
	loop_free(d->loop);
	free(d->cfg.events);
	free(d->cfg.cgroup_root);
	free(d->cfg.cgroup_cpu_series);
	free(d->cfg.listen);
	free(d->cfg.socket_path);
	free(d->cfg.allow_group);
}

int cmd_daemon(int argc, const char **argv, const struct top_opts *top)
{
	/* --debug verbose=N before the command counts as N -v */
	struct daemon_args a = { .verbose = top->verbose };
	const struct option options[] = {
		{ OPT_CALLBACK, 'e', "event", NULL, "<event>",
		  "events to count (default: daemon.events)", OPTF_NONEG, parse_event_arg, &a },
		{ OPT_STRING, 0, "listen", &a.listen, "<addr:port>|none",
		  "HTTP address of /metrics (default: daemon.listen, " BPERF_DAEMON_LISTEN ")" },
		{ OPT_STRING, 0, "socket", &a.socket_path, "<path>|none",
		  "Unix socket for unprivileged sessions (default: " BPERF_DAEMON_SOCKET ")" },
		{ OPT_STRING, 0, "cgroup-root", &a.cgroup_root, "<path>",
		  "count the cgroups below this one (default: all)" },
		{ OPT_STRING, 0, "bpf-attr-map", &a.attr_map, "<path>",
		  "path to the shared counters' attr map" },
		{ OPT_INCR, 'v', "verbose", &a.verbose, NULL, "be more verbose" },
		{ OPT_END },
	};
	struct daemon d = { .signal_fd = -1 };
	int first, err;

	first = parse_options(argc, argv, options, daemon_usage);
	if (first == PARSE_OPT_HELP)
		usage_with_options(daemon_usage, options);
	if (first >= 0 && first < argc) {
		fprintf(stderr, " Error: bperf daemon takes no arguments: %s\n", argv[first]);
		usage_with_options(daemon_usage, options);
		first = PARSE_OPT_ERROR;
	}
	if (first < 0) {
		free(a.events);
		return EXIT_USAGE;
	}
	err = read_config(&d, &a);
	free(a.events);
	if (!err)
		err = daemon_start(&d);
	if (!err) {
		err = loop_run(d.loop);
		if (err)
			pr_err("bperf daemon: waiting for events: %s", strerror(-err));
	}
	daemon_stop(&d);
	return err ? 1 : 0;
}
