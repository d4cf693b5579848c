// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's per-user token buckets (src/daemon/uid_bucket.c) on times the test gives: a
 * user's burst, then nothing until tokens come back at the rate; refusals' cost; other users
 * and root untouched.
 */
#include "../../src/daemon/uid_bucket.h"
#include "check.h"

#define S 1000000000ULL

static struct uid_buckets b;

/* How many takes of cost succeed at time t, up to max */
static int takes(uid_t uid, unsigned int cost, unsigned long long t, int max)
{
	int n = 0;

	while (n < max && uid_bucket_take(&b, uid, cost, t))
		n++;
	return n;
}

/*
 * A user whose every check is refused, asking each millisecond for a second after its burst is
 * spent: each check takes a token, its refusal charges REFUSAL_COST more, owed if need be.
 */
static int refused_checks(uid_t uid, unsigned long long t)
{
	int ms, n = 0;

	takes(uid, 1, t, 100000);
	for (ms = 1; ms <= 1000; ms++) {
		if (!uid_bucket_take(&b, uid, 1, t + ms * 1000000ULL))
			continue;
		uid_bucket_charge(&b, uid, UID_BUCKET_REFUSAL_COST, t + ms * 1000000ULL);
		n++;
	}
	return n;
}

int main(void)
{
	unsigned long long t = 100 * S;

	CHECK_EQ("a user's burst", UID_BUCKET_BURST, takes(1000, 1, t, 100000));
	CHECK_EQ("then none", 0, takes(1000, 1, t, 100000));
	CHECK_EQ("another user's burst", UID_BUCKET_BURST, takes(1001, 1, t, 100000));
	CHECK_EQ("root is not limited", 100000, takes(0, 1, t, 100000));
	CHECK_EQ("a second later: the rate", UID_BUCKET_RATE, takes(1000, 1, t + S, 100000));
	CHECK_EQ("refusals a second later", UID_BUCKET_RATE / UID_BUCKET_REFUSAL_COST,
		 takes(1000, UID_BUCKET_REFUSAL_COST, t + 2 * S, 100000));
	CHECK_EQ("checks refused over a second, sustained", UID_BUCKET_RATE /
		 (1 + UID_BUCKET_REFUSAL_COST) + 1, refused_checks(1002, t));
	CHECK_EQ("a minute idle: the burst, no more", UID_BUCKET_BURST,
		 takes(1000, 1, t + 62 * S, 100000));
	CHECK_EQ("a clock that goes back gives nothing", 0, takes(1000, 1, t, 100000));
	return check_exit("uid_bucket");
}
