/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one user may make the daemon do for it a second: each OPEN that forks a policy check
 * takes a token, each refusal UID_BUCKET_REFUSAL_COST more; tokens come back at UID_BUCKET_RATE
 * a second up to UID_BUCKET_BURST. A user with none left is answered -EAGAIN with no work done,
 * so that refused requests over and over cannot keep the loop forking: sustained, 200 OPENs a
 * second or 10 refusals are checked, the rest cost a reply.
 */
#ifndef BPERF_DAEMON_UID_BUCKET_H
#define BPERF_DAEMON_UID_BUCKET_H

#include <stdbool.h>
#include <sys/types.h>

#define UID_BUCKET_RATE 200
#define UID_BUCKET_BURST 400
#define UID_BUCKET_REFUSAL_COST 20
/* Users remembered, by uid: two of one slot share it (never root: root is not limited) */
#define UID_BUCKET_SLOTS 1024

struct uid_buckets {
	struct {
		uid_t uid;
		long long tokens_ns;	/* tokens, as nanoseconds of refill at RATE (< 0: owed) */
		unsigned long long at_ns;	/* when tokens_ns was last brought up to date */
	} slot[UID_BUCKET_SLOTS];
};

/* Whether uid may have cost tokens taken at now_ns (then they are); root always may. */
bool uid_bucket_take(struct uid_buckets *b, uid_t uid, unsigned int cost,
		     unsigned long long now_ns);
/*
 * Charges uid cost tokens, as many as it has or not: a refusal leaves its user in debt (down to
 * a burst's worth), so that the next check waits until the debt is paid back at the rate.
 */
void uid_bucket_charge(struct uid_buckets *b, uid_t uid, unsigned int cost,
		       unsigned long long now_ns);

#endif
