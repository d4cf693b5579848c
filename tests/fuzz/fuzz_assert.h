/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The fuzz targets' invariant check: ASSERT(cond) names the file, the line and the condition on
 * stderr and aborts, so that libFuzzer keeps the input that broke it. The file is named without
 * its directory, as "fuzz_http.c:37: ...", the line tests/lib.sh's fuzz_run and fuzz_regress look
 * for in the fuzzer's log.
 */
#ifndef BPERF_TESTS_FUZZ_ASSERT_H
#define BPERF_TESTS_FUZZ_ASSERT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASSERT(cond)						\
	do {							\
		if (!(cond))					\
			broken(__FILE__, __LINE__, #cond);	\
	} while (0)

static inline void broken(const char *file, int line, const char *what)
{
	/* __FILE__ is the path the Makefile compiled, tests/fuzz/... */
	const char *name = strrchr(file, '/');

	fprintf(stderr, "%s:%d: %s\n", name ? name + 1 : file, line, what);
	abort();
}

#endif /* BPERF_TESTS_FUZZ_ASSERT_H */
