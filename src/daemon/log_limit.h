/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The daemon's log of what clients and scrapers cause: one line per peer a second at most and
 * LOG_LIMIT_LINES_PER_S in all, then one line saying how many were left out, so that a hostile
 * local user cannot fill the disk through the daemon's stderr (journald or a file).
 */
#ifndef BPERF_DAEMON_LOG_LIMIT_H
#define BPERF_DAEMON_LOG_LIMIT_H

#include <stdint.h>

#define LOG_LIMIT_LINES_PER_S 5
/* Peers remembered, by a hash of their key: two peers of one slot share its second */
#define LOG_LIMIT_SLOTS 256

struct log_limit {
	unsigned long long (*clock_ns)(void);	/* now_ns, or a test's clock */
	unsigned long long second;		/* the second the counts below are of */
	unsigned int printed;			/* lines printed in that second */
	unsigned long long left_out;		/* lines left out since the last summary */
	/* per slot: the second its peers last had a line, +1 (0: never) */
	unsigned long long slot_second[LOG_LIMIT_SLOTS];
};

/* A limiter on the monotonic clock (clock_ns NULL: now_ns). */
void log_limit_init(struct log_limit *ll, unsigned long long (*clock_ns)(void));
/*
 * "bperf daemon: PEER: message" on stderr, unless PEER (an address, "uid N") had a line this
 * second or the second's lines are spent: then the line is counted, and said as "N lines left
 * out" before the next line printed or by log_limit_flush. Control characters of the message
 * (a client's cgroup name, say) are printed as '?', so no line can pass for another.
 */
void log_limit_peer(struct log_limit *ll, const char *peer, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prints the count of lines left out once their second is over (a timer calls it). */
void log_limit_flush(struct log_limit *ll);

#endif
