// SPDX-License-Identifier: GPL-2.0-only
/* bperf check's measured runs of `bperf stat -x,` (check_run.h). */
#include "check_run.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/common.h"

int stat_child_start(struct stat_child *c, const char *self, const char *dir, const char *name,
		     const char *map, const char *const *args)
{
	const char *head[] = { self, "stat", "-x,", "-o", NULL, "--bpf-attr-map", map };
	const char **argv;
	int nr = 0, i;

	while (args[nr])
		nr++;
	argv = xzalloc((ARRAY_SIZE(head) + nr + 1) * sizeof(*argv));
	c->out = xasprintf("%s/%s.csv", dir, name);
	c->log = xasprintf("%s/%s.log", dir, name);
	head[4] = c->out;
	c->interrupted = false;
	memcpy(argv, head, sizeof(head));
	for (i = 0; i < nr; i++)
		argv[ARRAY_SIZE(head) + i] = args[i];
	c->pid = fork();
	if (c->pid == 0) {
		int fd = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* a check started in the background has SIGINT ignored: the runs end by it */
		signal(SIGINT, SIG_DFL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(self, (char *const *)argv);
		_exit(127);
	}
	free(argv);
	if (c->pid < 0) {
		free(c->out);
		free(c->log);
		return -errno;
	}
	return 0;
}

/* The last line of the file, into buf. */
static void last_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[256];

	snprintf(buf, size, "no output");
	while (f && fgets(line, sizeof(line), f))
		if (line[0] != '\n') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, size, "%s", line);
		}
	if (f)
		fclose(f);
}

/*
 * "count,unit,event,run_time,pct,..." into a row, after "time," with -I (a count has no '.');
 * false for other lines.
 */
static bool parse_row(char *line, struct stat_row *row)
{
	char *fields[5], *p = line, *first;
	bool interval;
	int n;

	if (line[0] == '#' || line[0] == '\n')
		return false;
	first = line + strspn(line, " ");
	interval = strcspn(first, ",") > strcspn(first, ".");
	if (interval)
		strsep(&p, ",");
	for (n = 0; n < 5; n++) {
		fields[n] = strsep(&p, ",");
		if (!fields[n])
			return false;
	}
	memset(row, 0, sizeof(*row));
	row->interval = interval;
	snprintf(row->event, sizeof(row->event), "%s", fields[2]);
	row->counted = fields[0][0] != '<';
	row->count = row->counted ? strtoull(fields[0], NULL, 10) : 0;
	row->pct = strtod(fields[4], NULL);
	return true;
}

static void read_rows(const char *path, struct stat_rows *rows)
{
	FILE *f = fopen(path, "r");
	struct stat_row row;
	char line[512];

	while (f && fgets(line, sizeof(line), f)) {
		if (!parse_row(line, &row))
			continue;
		rows->rows = xgrow(rows->rows, rows->nr, sizeof(*rows->rows));
		rows->rows[rows->nr++] = row;
	}
	if (f)
		fclose(f);
}

void stat_child_interrupt(struct stat_child *c)
{
	c->interrupted = true;
	kill(c->pid, SIGINT);
}

int stat_child_lines(const struct stat_child *c)
{
	struct stat_rows rows = { 0 };
	int nr;

	read_rows(c->out, &rows);
	nr = rows.nr;
	stat_rows_free(&rows);
	return nr;
}

void stat_rows_free(struct stat_rows *rows)
{
	free(rows->rows);
	rows->rows = NULL;
	rows->nr = 0;
}

int stat_child_finish(struct stat_child *c, struct stat_rows *rows)
{
	int status = 0, err = 0;

	memset(rows, 0, sizeof(*rows));
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	/* as perf, a session ended by SIGINT prints its counts and dies of it */
	if (c->interrupted && WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) {
		read_rows(c->out, rows);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		char line[256];

		last_line(c->log, line, sizeof(line));
		if (WIFEXITED(status))
			snprintf(rows->why, sizeof(rows->why), "exit %d: %s", WEXITSTATUS(status),
				 line);
		else
			snprintf(rows->why, sizeof(rows->why), "signal %d: %s",
				 WIFSIGNALED(status) ? WTERMSIG(status) : 0, line);
		err = -1;
	} else {
		read_rows(c->out, rows);
	}
	unlink(c->out);
	unlink(c->log);
	free(c->out);
	free(c->log);
	return err;
}

int stat_run(const char *self, const char *dir, const char *name, const char *map,
	     const char *const *args, struct stat_rows *rows)
{
	struct stat_child c;
	int err = stat_child_start(&c, self, dir, name, map, args);

	if (err) {
		memset(rows, 0, sizeof(*rows));
		snprintf(rows->why, sizeof(rows->why), "fork: %s", strerror(-err));
		return err;
	}
	return stat_child_finish(&c, rows);
}

const struct stat_row *stat_row_find(const struct stat_rows *rows, const char *event)
{
	for (int i = 0; i < rows->nr; i++)
		if (!strcmp(rows->rows[i].event, event))
			return &rows->rows[i];
	return NULL;
}
