// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's log limiter (src/daemon/log_limit.c) on a clock the test moves: one line per peer
 * a second, LOG_LIMIT_LINES_PER_S in all, then one line with the number left out, control
 * characters printed as '?'. What it prints is read back from stderr redirected to a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/daemon/log_limit.h"
#include "check.h"

static unsigned long long fake_ns;

static unsigned long long fake_clock(void)
{
	return fake_ns;
}

/* The lines printed since the last call, as one string (static). */
static const char *printed(FILE *log)
{
	static char buf[8192];
	size_t n;

	fflush(stderr);
	n = fread(buf, 1, sizeof(buf) - 1, log);
	buf[n] = 0;
	clearerr(log);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

int main(void)
{
	char path[] = "/tmp/bperf-log-limit-XXXXXX";
	struct log_limit ll;
	int fd = mkstemp(path), saved = dup(2), i;
	FILE *log = fopen(path, "r");
	char peer[32];
	const char *out;

	if (fd < 0 || !log || saved < 0)
		return EXIT_FAILURE;
	unlink(path);
	dup2(fd, 2);
	log_limit_init(&ll, fake_clock);
	fake_ns = 10ULL * 1000000000;

	/* one peer, 100 errors in one second: one line */
	for (i = 0; i < 100; i++)
		log_limit_peer(&ll, "127.0.0.2", "request too large (%d)", i);
	out = printed(log);
	CHECK_EQ("lines of one peer in one second", 1, count_lines(out));
	CHECK_STR("the line", "bperf daemon: 127.0.0.2: request too large (0)\n", out);

	/* the next second: the summary of 99 left out, then the peer's next line */
	fake_ns += 1000000000;
	log_limit_peer(&ll, "127.0.0.2", "again");
	out = printed(log);
	CHECK_EQ("lines the next second", 2, count_lines(out));
	CHECK_MSG("summary first", !strncmp(out, "bperf daemon: 99 more lines", 27), "%s", out);

	/* 50 peers in one second: LOG_LIMIT_LINES_PER_S lines, the rest said by the flush */
	fake_ns += 1000000000;
	for (i = 0; i < 50; i++) {
		snprintf(peer, sizeof(peer), "uid %d", 1000 + i);
		log_limit_peer(&ll, peer, "refused");
	}
	out = printed(log);
	CHECK_EQ("lines of 50 peers in one second", LOG_LIMIT_LINES_PER_S, count_lines(out));
	log_limit_flush(&ll);
	CHECK_STR("no summary within the second", "", printed(log));
	fake_ns += 1000000000;
	log_limit_flush(&ll);
	out = printed(log);
	CHECK_EQ("the flush's summary", 1, count_lines(out));
	CHECK_MSG("45 left out", strstr(out, " 45 more lines") != NULL, "%s", out);
	log_limit_flush(&ll);
	CHECK_STR("one summary only", "", printed(log));

	/* a message cannot forge a line */
	log_limit_peer(&ll, "uid 1000", "no cgroup %s", "a\nbperf daemon: forged\r");
	CHECK_STR("control characters", "bperf daemon: uid 1000: no cgroup a?bperf daemon: forged?\n",
		  printed(log));

	dup2(saved, 2);
	return check_exit("log_limit");
}
