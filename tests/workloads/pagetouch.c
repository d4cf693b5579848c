// SPDX-License-Identifier: GPL-2.0-only
/*
 * pagetouch N: write one byte to each of N fresh anonymous pages, causing exactly N page faults
 * on top of the program's fixed start-up faults. Huge pages are refused so that one fault maps
 * exactly one page.
 */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

int main(int argc, char **argv)
{
	unsigned long pages = workload_count(argc, argv, 1, "NR_PAGES");
	long page_size = sysconf(_SC_PAGESIZE);
	volatile char *area;
	unsigned long i;

	if (!pages)
		return 0;

	area = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (area == MAP_FAILED) {
		perror("pagetouch: mmap");
		return 1;
	}
	/* fails harmlessly on kernels without THP, where there is nothing to refuse */
	madvise((void *)area, pages * page_size, MADV_NOHUGEPAGE);

	for (i = 0; i < pages; i++)
		area[i * page_size] = 1;
	return 0;
}
