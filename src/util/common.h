/* SPDX-License-Identifier: GPL-2.0-only */
/* Small helpers shared by every part of bperf: error printing, allocation, files, the clock. */
#ifndef BPERF_COMMON_H
#define BPERF_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* perf's exit codes: usage errors and semantic option errors */
#define EXIT_USAGE 129
#define EXIT_EINVAL 234 /* (-EINVAL) & 0xff, what perf returns for bad option combinations */
#define EXIT_FATAL 255

/* The one error printer: a line on stderr, printf-style, newline added. */
void pr_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same line, only when verbosity >= level. */
void pr_debug(int verbosity, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Allocation that cannot fail: bperf has nothing sensible to do without memory. */
void *xzalloc(size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/*
 * Room for element nr of an array that only ever grows by one through this helper: it doubles
 * at each power of two, so n appends copy O(n) bytes in all. Growing by one element each time
 * is quadratic wherever realloc moves the block, as sanitizer allocators always do.
 */
void *xgrow(void *ptr, size_t nr, size_t elem_size);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * A double truncated to u64 as a C cast does, but defined for every value (NaN and negatives
 * give 0, too large ones UINT64_MAX): counts replayed from a file can be anything.
 */
static inline unsigned long long double_to_u64(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551616.0)
		return ~0ULL;
	return (unsigned long long)v;
}

/* CLOCK_MONOTONIC in nanoseconds: the clock of wall times, intervals and enabled times. */
unsigned long long now_ns(void);

/* Reads a small sysfs-like file into buf (trailing newline removed); -errno on failure. */
int read_text_file(const char *path, char *buf, size_t size);

#endif
