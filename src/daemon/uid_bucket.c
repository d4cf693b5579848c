// SPDX-License-Identifier: GPL-2.0-only
/* Per-user token buckets (uid_bucket.h). */
#include "uid_bucket.h"

#define NS_PER_TOKEN (1000000000ULL / UID_BUCKET_RATE)
#define FULL_NS (UID_BUCKET_BURST * NS_PER_TOKEN)

/* uid's slot, its tokens brought up to now_ns */
static typeof(((struct uid_buckets *)0)->slot[0]) *refill(struct uid_buckets *b, uid_t uid,
							   unsigned long long now_ns)
{
	typeof(b->slot[0]) *s = &b->slot[uid % UID_BUCKET_SLOTS];

	if (s->uid != uid || !s->at_ns) {
		/* a user not seen here (or a slot's other user): a full bucket */
		s->uid = uid;
		s->tokens_ns = FULL_NS;
		s->at_ns = now_ns;
	}
	if (now_ns > s->at_ns) {
		s->tokens_ns += now_ns - s->at_ns;
		if (s->tokens_ns > (long long)FULL_NS)
			s->tokens_ns = FULL_NS;
		s->at_ns = now_ns;
	}
	return s;
}

bool uid_bucket_take(struct uid_buckets *b, uid_t uid, unsigned int cost,
		     unsigned long long now_ns)
{
	long long need = cost * NS_PER_TOKEN;
	typeof(b->slot[0]) *s;

	if (!uid)
		return true;
	s = refill(b, uid, now_ns);
	if (s->tokens_ns < need)
		return false;
	s->tokens_ns -= need;
	return true;
}

void uid_bucket_charge(struct uid_buckets *b, uid_t uid, unsigned int cost,
		       unsigned long long now_ns)
{
	typeof(b->slot[0]) *s;

	if (!uid)
		return;
	s = refill(b, uid, now_ns);
	s->tokens_ns -= cost * NS_PER_TOKEN;
	if (s->tokens_ns < -(long long)FULL_NS)
		s->tokens_ns = -(long long)FULL_NS;
}
