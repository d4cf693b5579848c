/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --control fd:ctl[,ack] / fifo:ctl[,ack]: the command channel of a running bperf stat. This
 * part owns the descriptors and splits what arrives into command lines; what each command does
 * is the run loop's business (control_cmd.c).
 */
#ifndef BPERF_STAT_CONTROL_H
#define BPERF_STAT_CONTROL_H

#include <stdbool.h>
#include <stddef.h>

#define CONTROL_LINE_MAX 256

struct stat_control {
	int ctl_fd;		/* -1: no --control */
	int ack_fd;		/* -1: commands are not acknowledged */
	bool own_fds;		/* fifo: bperf opened them and closes them */
	bool eof;		/* the writer side is gone: stop polling */
	char buf[CONTROL_LINE_MAX];
	size_t len;
};

void control_init(struct stat_control *c);
/*
 * Parses the --control value and, for fifo:, opens the fifos. Returns 0; -EINVAL for a bad
 * spec (nothing printed); or -errno after perf's "Failed to open '<path>'" line.
 */
int control_parse(struct stat_control *c, const char *spec);
static inline bool control_active(const struct stat_control *c)
{
	return c->ctl_fd >= 0 && !c->eof;
}
/*
 * Takes the next complete command line (without its newline) into line, reading what the
 * control fd has without blocking. Returns 1 for a line, 0 when none is complete yet.
 */
int control_next_line(struct stat_control *c, char *line, size_t size);
/* "ack\n" on the ack descriptor, when there is one. */
void control_ack(const struct stat_control *c);
void control_close(struct stat_control *c);

#endif
