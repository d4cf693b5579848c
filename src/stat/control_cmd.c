// SPDX-License-Identifier: GPL-2.0-only
#include "control_cmd.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

/* "enable", "enable NAME" (arg points past the tag); anything else after the tag is wrong. */
static void cmd_switch(struct stat_session *s, const char *arg, bool enable)
{
	int i;

	if (!*arg) {
		if (enable)
			session_enable(s);
		else
			session_disable(s);
		pr_err("%s", enable ? EVENTS_ENABLED_MSG : EVENTS_DISABLED_MSG);
		return;
	}
	if (*arg != ' ') {
		pr_err("failed: wrong command");
		return;
	}
	arg++;
	for (i = 0; i < s->evlist->nr; i++)
		if (!strcmp(s->evlist->entries[i].name, arg))
			break;
	if (i == s->evlist->nr) {
		pr_err("failed: can't find '%s' event", arg);
		return;
	}
	session_switch(s, i, enable);
	pr_err("Event %s %s", arg, enable ? "enabled" : "disabled");
}

/*
 * "name: key: value, key: value": perf's one-line attr, made from the -vv dump's
 * "  %-32s %s" lines, which list the same fields in the same order.
 */
static void print_attr_line(const struct evsel *e)
{
	char *dump = NULL, *line, *save = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&dump, &size);
	const char *sep = "";

	if (!mem)
		return;
	perf_event_attr_fprintf(mem, &e->attr);
	fclose(mem);
	fprintf(stderr, "%s: ", e->name);
	for (line = strtok_r(dump, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t len = strlen(line), key_end = len < 34 ? len : 34;

		if (len < 3 || line[0] != ' ' || line[1] != ' ')
			continue;	/* the "perf_event_attr:" title */
		while (key_end > 2 && line[key_end - 1] == ' ')
			key_end--;
		fprintf(stderr, "%s%.*s: %s", sep, (int)(key_end - 2), line + 2,
			len > 35 ? line + 35 : "");
		sep = ", ";
	}
	fputc('\n', stderr);
	free(dump);
}

/* "evlist" and its -v (attrs), -g (groups: names here) and -F (sample period) options. */
static bool cmd_evlist(const struct stat_session *s, const char *arg)
{
	bool verbose = !strcmp(arg, " -v"), freq = !strcmp(arg, " -F");
	int i;

	if (*arg && !verbose && !freq && strcmp(arg, " -g"))
		return false;
	for (i = 0; i < s->evlist->nr; i++) {
		const struct evsel *e = &s->evlist->entries[i];

		if (verbose)
			print_attr_line(e);
		else if (freq)
			fprintf(stderr, "%s: %s=%llu\n", e->name,
				e->attr.freq ? "sample_freq" : "sample_period",
				(unsigned long long)e->attr.sample_period);
		else
			fprintf(stderr, "%s\n", e->name);
	}
	return true;
}

/* Whether line starts with the command tag; *arg then points past it. */
static bool has_tag(const char *line, const char *tag, const char **arg)
{
	size_t n = strlen(tag);

	if (strncmp(line, tag, n))
		return false;
	*arg = line + n;
	return true;
}

static void run_command(struct stat_control *c, struct stat_session *s, const char *line)
{
	const char *arg;

	if (has_tag(line, "enable", &arg)) {
		cmd_switch(s, arg, true);
	} else if (has_tag(line, "disable", &arg)) {
		cmd_switch(s, arg, false);
	} else if (has_tag(line, "evlist", &arg)) {
		if (!cmd_evlist(s, arg))
			pr_err("failed: wrong command");
	} else if (!has_tag(line, "ping", &arg) && !has_tag(line, "stop", &arg)) {
		/* "ack", "snapshot" and unknown commands get no ack in perf 6.1 */
		return;
	}
	control_ack(c);
}

void control_process(struct stat_control *c, struct stat_session *s)
{
	char line[CONTROL_LINE_MAX];

	while (control_next_line(c, line, sizeof(line)))
		run_command(c, s, line);
}
