// SPDX-License-Identifier: GPL-2.0-only
/*
 * insnloop N: N rounds of a short loop in user space and nothing else (no system call until the
 * exit), so that a user-space instruction count is the same on every run and spread evenly over
 * the run: what multiplexed counts are scaled against.
 */
#include "workload.h"

int main(int argc, char **argv)
{
	unsigned long rounds = workload_count(argc, argv, 1, "N");
	volatile unsigned long sum = 0;
	unsigned long i;

	for (i = 0; i < rounds; i++)
		sum += i;
	return 0;
}
