// SPDX-License-Identifier: GPL-2.0-only
/*
 * insnloop N: N rounds of a short loop in user space and nothing else (no system call until the
 * exit), so that a user-space instruction count is the same on every run and spread evenly over
 * the run: what multiplexed counts are scaled against. On x86-64 and arm64 a round is exactly
 * INSNLOOP_ROUND instructions (the loop is written in assembly, whatever the compiler does), so
 * that instructions:u of insnloop 2N less that of insnloop N is known: INSNLOOP_ROUND * N
 * (bperf check tells a PMU that counts wrong by it).
 */
#include "workload.h"

#define INSNLOOP_ROUND 6

static void rounds_of_six(unsigned long rounds)
{
	unsigned long sum = 0;

	if (!rounds)
		return;
#if defined(__x86_64__)
	asm volatile("1:\n\t"
		     "add $1, %[sum]\n\t"
		     "add $2, %[sum]\n\t"
		     "add $3, %[sum]\n\t"
		     "add $4, %[sum]\n\t"
		     "sub $1, %[n]\n\t"
		     "jnz 1b"
		     : [sum] "+r"(sum), [n] "+r"(rounds) : : "cc");
#elif defined(__aarch64__)
	asm volatile("1:\n\t"
		     "add %[sum], %[sum], #1\n\t"
		     "add %[sum], %[sum], #2\n\t"
		     "add %[sum], %[sum], #3\n\t"
		     "add %[sum], %[sum], #4\n\t"
		     "subs %[n], %[n], #1\n\t"
		     "b.ne 1b"
		     : [sum] "+r"(sum), [n] "+r"(rounds) : : "cc");
#else
	/* elsewhere the count per round is the compiler's */
	volatile unsigned long acc = 0;

	for (; rounds; rounds--)
		acc += rounds;
	sum = acc;
#endif
	(void)sum;
}

int main(int argc, char **argv)
{
	rounds_of_six(workload_count(argc, argv, 1, "N"));
	return 0;
}
