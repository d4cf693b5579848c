// SPDX-License-Identifier: GPL-2.0-only
#include "log_limit.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/common.h"

#define NS_PER_S 1000000000ULL

void log_limit_init(struct log_limit *ll, unsigned long long (*clock_ns)(void))
{
	memset(ll, 0, sizeof(*ll));
	ll->clock_ns = clock_ns ? clock_ns : now_ns;
}

/* FNV-1a: peers are short strings, and a collision costs one peer a line at most */
static uint64_t peer_hash(const char *peer)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *peer; peer++)
		h = (h ^ (unsigned char)*peer) * 0x100000001b3ULL;
	return h;
}

static void say_left_out(struct log_limit *ll)
{
	if (!ll->left_out)
		return;
	pr_err("bperf daemon: %llu more line%s about clients left out (at most one a second per "
	       "peer, %d in all)", ll->left_out, ll->left_out == 1 ? "" : "s",
	       LOG_LIMIT_LINES_PER_S);
	ll->left_out = 0;
}

/* Starts a new second's budget when the clock has moved on; the current second. */
static unsigned long long tick(struct log_limit *ll)
{
	unsigned long long second = ll->clock_ns() / NS_PER_S;

	if (second != ll->second) {
		ll->second = second;
		ll->printed = 0;
		say_left_out(ll);
	}
	return second;
}

void log_limit_flush(struct log_limit *ll)
{
	tick(ll);
}

void log_limit_peer(struct log_limit *ll, const char *peer, const char *fmt, ...)
{
	unsigned long long second = tick(ll);
	unsigned long long *slot = &ll->slot_second[peer_hash(peer) % LOG_LIMIT_SLOTS];
	char msg[512], *c;
	va_list ap;

	if (*slot == second + 1 || ll->printed >= LOG_LIMIT_LINES_PER_S) {
		ll->left_out++;
		return;
	}
	*slot = second + 1;
	ll->printed++;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (c = msg; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	pr_err("bperf daemon: %s: %s", peer, msg);
}
