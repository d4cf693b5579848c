// SPDX-License-Identifier: GPL-2.0-only
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"

void control_init(struct stat_control *c)
{
	memset(c, 0, sizeof(*c));
	c->ctl_fd = -1;
	c->ack_fd = -1;
}

/* A descriptor number: digits only, as perf's strtoul with its end checks accepts them. */
static int parse_fd(const char *s, const char *end, int *fd)
{
	unsigned long v = 0;
	const char *p;

	if (s == end)
		return -EINVAL;
	for (p = s; p < end; p++) {
		if (*p < '0' || *p > '9' || v > 0x7fffffff / 10)
			return -EINVAL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	*fd = (int)v;
	return 0;
}

/* O_RDWR: opening a fifo never blocks on a missing peer, and its reader never sees EOF. */
static int open_fifo(const char *path, int *fd)
{
	*fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	pr_err("Failed to open '%s'", path);
	return -errno;
}

static int parse_fifos(struct stat_control *c, const char *list)
{
	char *copy = xstrdup(list), *comma = strchr(copy, ',');
	int err;

	if (comma)
		*comma = '\0';
	err = open_fifo(copy, &c->ctl_fd);
	if (!err && comma)
		err = open_fifo(comma + 1, &c->ack_fd);
	free(copy);
	c->own_fds = true;
	if (err)
		control_close(c);
	return err;
}

int control_parse(struct stat_control *c, const char *spec)
{
	const char *comma;

	if (!strncmp(spec, "fifo:", 5))
		return parse_fifos(c, spec + 5);
	if (strncmp(spec, "fd:", 3))
		return -EINVAL;
	spec += 3;
	comma = strchr(spec, ',');
	if (parse_fd(spec, comma ? comma : spec + strlen(spec), &c->ctl_fd))
		return -EINVAL;
	if (comma && parse_fd(comma + 1, comma + 1 + strlen(comma + 1), &c->ack_fd)) {
		c->ctl_fd = -1;
		return -EINVAL;
	}
	/* the caller's descriptor may block: reads must not */
	fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK);
	return 0;
}

/* Moves the first line of buf (up to '\n' or '\0') into line; 1 if there was one. */
static int take_line(struct stat_control *c, char *line, size_t size)
{
	size_t i, n;

	for (i = 0; i < c->len; i++)
		if (c->buf[i] == '\n' || c->buf[i] == '\0')
			break;
	/* a line longer than the buffer is cut, as perf's fixed-size command buffer does */
	if (i == c->len && c->len < sizeof(c->buf))
		return 0;
	n = i < size - 1 ? i : size - 1;
	memcpy(line, c->buf, n);
	line[n] = '\0';
	if (i < c->len)
		i++;
	memmove(c->buf, c->buf + i, c->len - i);
	c->len -= i;
	return 1;
}

int control_next_line(struct stat_control *c, char *line, size_t size)
{
	ssize_t n;

	if (take_line(c, line, size))
		return 1;
	if (!control_active(c))
		return 0;
	n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		c->eof = true;
		return 0;
	}
	if (n > 0)
		c->len += (size_t)n;
	return take_line(c, line, size);
}

void control_ack(const struct stat_control *c)
{
	if (c->ack_fd >= 0 && write(c->ack_fd, "ack\n", 4) < 0)
		return;	/* the reader is gone: nobody to tell */
}

void control_close(struct stat_control *c)
{
	if (c->own_fds) {
		if (c->ctl_fd >= 0)
			close(c->ctl_fd);
		if (c->ack_fd >= 0)
			close(c->ack_fd);
	}
	control_init(c);
}
