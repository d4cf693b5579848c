// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tracepoint events: `sys:name` with globs on either side, perf 6.1's
 * directory walk order and its error texts (which stop at the first
 * subsystem that lacks the event).
 */
#include "events/tracepoint.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/common.h"
#include "events/parse_internal.h"

char *tracing_events_dir(const char *tracefs_root)
{
	struct stat st;

	if (tracefs_root && *tracefs_root)
		return xasprintf("%s/events", tracefs_root);
	if (stat("/sys/kernel/tracing/events", &st) == 0)
		return xstrdup("/sys/kernel/tracing/events");
	if (stat("/sys/kernel/debug/tracing/events", &st) == 0)
		return xstrdup("/sys/kernel/debug/tracing/events");
	return xstrdup("/sys/kernel/tracing/events");
}

int tracepoint_id(const char *events_dir, const char *sys, const char *name, uint64_t *id)
{
	char *path = xasprintf("%s/%s/%s/format", events_dir, sys, name);
	char line[512];
	FILE *f = fopen(path, "r");
	int err = -ENOENT;

	free(path);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ID:", 3)) {
			*id = strtoull(line + 3, NULL, 10);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* perf's tracepoint_error: the reason, and tracing_path__strerror_open_tp as help */
static void tracepoint_error(struct parse_state *state, const char *events_dir, int err,
			     const char *sys, const char *name)
{
	const char *str;
	char *help;

	err = abs(err);
	switch (err) {
	case EACCES:
		str = "can't access trace events";
		break;
	case ENOENT:
		str = "unknown tracepoint";
		break;
	default:
		str = "failed to add tracepoint";
		break;
	}
	if (err == ENOENT) {
		if (!strncmp(sys, "sdt_", 4))
			help = xasprintf("Error:\tFile %s/%s/%s not found.\n"
					 "Hint:\tSDT event cannot be directly recorded on.\n"
					 "\tPlease first use 'perf probe %s:%s' before recording it.\n",
					 events_dir, sys, name, sys, name);
		else
			help = xasprintf("Error:\tFile %s/%s/%s not found.\n"
					 "Hint:\tPerhaps this kernel misses some CONFIG_ setting to "
					 "enable this feature?.\n",
					 events_dir, sys, name);
	} else if (err == EACCES) {
		char *mnt = xstrdup(events_dir);
		char *slash = strrchr(mnt, '/');

		if (slash)
			*slash = '\0';
		help = xasprintf("Error:\tNo permissions to read %s/%s/%s\n"
				 "Hint:\tTry 'sudo mount -o remount,mode=755 %s'\n",
				 events_dir, sys, name, mnt);
		free(mnt);
	} else {
		help = xstrdup(strerror(err));
	}
	parse_error_add(state->err, 0, xstrdup(str), help);
}

static int add_one(struct parse_state *state, const char *events_dir, const char *sys,
		   const char *name)
{
	struct perf_event_attr attr;
	uint64_t id = 0;
	char *evname;
	int err;

	err = tracepoint_id(events_dir, sys, name, &id);
	if (err) {
		tracepoint_error(state, events_dir, err, sys, name);
		return err;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			   PERF_SAMPLE_PERIOD;
	attr.config = id;
	attr.sample_period = 1;
	evname = xasprintf("%s:%s", sys, name);
	state_new_evsel(state, &attr, evname);
	free(evname);
	return 0;
}

static int add_multi_event(struct parse_state *state, const char *events_dir, const char *sys,
			   const char *name)
{
	char *path = xasprintf("%s/%s", events_dir, sys);
	struct dirent *de;
	int ret = 0, found = 0;
	DIR *d = opendir(path);

	free(path);
	if (!d) {
		tracepoint_error(state, events_dir, errno, sys, name);
		return -1;
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "filter"))
			continue;
		if (fnmatch(name, de->d_name, 0))
			continue;
		found++;
		ret = add_one(state, events_dir, sys, de->d_name);
	}
	if (!found) {
		tracepoint_error(state, events_dir, ENOENT, sys, name);
		ret = -1;
	}
	closedir(d);
	return ret;
}

static int add_event(struct parse_state *state, const char *events_dir, const char *sys,
		     const char *name)
{
	if (strpbrk(name, "*?"))
		return add_multi_event(state, events_dir, sys, name);
	return add_one(state, events_dir, sys, name);
}

static int add_multi_sys(struct parse_state *state, const char *events_dir, const char *sys,
			 const char *name)
{
	struct dirent *de;
	int ret = 0;
	DIR *d = opendir(events_dir);

	if (!d) {
		tracepoint_error(state, events_dir, errno, sys, name);
		return -1;
	}
	while (!ret && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "enable") || !strcmp(de->d_name, "header_event") ||
		    !strcmp(de->d_name, "header_page"))
			continue;
		if (fnmatch(sys, de->d_name, 0))
			continue;
		ret = add_event(state, events_dir, de->d_name, name);
	}
	closedir(d);
	return ret;
}

/* Only call-graph and stack-size (and the options perf stat then rejects) fit a tracepoint. */
static int check_tracepoint_terms(struct parse_state *state, const struct term_list *terms)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	for (int i = 0; terms && i < terms->nr; i++) {
		const struct term *t = &terms->terms[i];

		switch (t->type) {
		case TERM_CALLGRAPH:
		case TERM_STACKSIZE:
		case TERM_INHERIT:
		case TERM_NOINHERIT:
		case TERM_MAX_STACK:
		case TERM_MAX_EVENTS:
		case TERM_OVERWRITE:
		case TERM_NOOVERWRITE:
		case TERM_AUX_OUTPUT:
		case TERM_AUX_SAMPLE_SIZE:
			if (config_term_common(&attr, t, state->err))
				return -EINVAL;
			break;
		default:
			parse_error_add(state->err, t->err_term, xstrdup("unknown term"),
					xstrdup("valid terms: call-graph,stack-size\n"));
			return -EINVAL;
		}
	}
	return 0;
}

int add_tracepoint(struct parse_state *state, const char *sys, const char *event,
		   struct term_list *terms)
{
	char *events_dir;
	int ret;

	if (check_tracepoint_terms(state, terms))
		return -EINVAL;
	events_dir = tracing_events_dir(state->ctx ? state->ctx->tracefs_root : NULL);
	if (strpbrk(sys, "*?"))
		ret = add_multi_sys(state, events_dir, sys, event);
	else
		ret = add_event(state, events_dir, sys, event);
	free(events_dir);
	return ret;
}
