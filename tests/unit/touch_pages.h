/* SPDX-License-Identifier: GPL-2.0-only */
/* Unit tests' page-fault workload: exactly one fault per page touched. */
#ifndef BPERF_TESTS_TOUCH_PAGES_H
#define BPERF_TESTS_TOUCH_PAGES_H

#include <sys/mman.h>
#include <unistd.h>

/* Touches n fresh anonymous pages (no huge pages: one fault each). */
static inline void touch_pages(int n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (int i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	munmap(p, n * page);
}

#endif
