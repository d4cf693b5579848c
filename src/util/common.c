// SPDX-License-Identifier: GPL-2.0-only
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* One line, whole, where threads print too (the daemon's leader loads). */
static void print_line(const char *fmt, va_list ap)
{
	flockfile(stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

void pr_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_line(fmt, ap);
	va_end(ap);
}

void pr_debug(int verbosity, int level, const char *fmt, ...)
{
	va_list ap;

	if (verbosity < level)
		return;
	va_start(ap, fmt);
	print_line(fmt, ap);
	va_end(ap);
}

static void *check_alloc(void *p)
{
	if (!p) {
		pr_err("bperf: out of memory");
		exit(EXIT_FATAL);
	}
	return p;
}

void *xzalloc(size_t size)
{
	return check_alloc(calloc(1, size ? size : 1));
}

void *xrealloc(void *ptr, size_t size)
{
	return check_alloc(realloc(ptr, size ? size : 1));
}

void *xgrow(void *ptr, size_t nr, size_t elem_size)
{
	/* the capacity is implied: nr rounded up to a power of two */
	if (nr & (nr - 1))
		return ptr;
	return xrealloc(ptr, (nr ? 2 * nr : 1) * elem_size);
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (ret < 0)
		return check_alloc(NULL);
	return s;
}

int read_text_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	close(fd);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		n--;
	buf[n] = '\0';
	return 0;
}

unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
