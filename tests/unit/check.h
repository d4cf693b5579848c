/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit tests' assertions, as in the kernel's BPF selftests: every CHECK_* names what it
 * checks, prints "name: expected X, got Y" on stderr when the check fails, counts the failure,
 * and returns whether the check held, so that a test can stop at a failure and still clean up:
 *
 *	if (!CHECK_OK("leader load", err))
 *		goto out;
 *
 * A test program ends with `return check_exit(NAME);`: 1 if any check failed, else 0 (a test
 * that cannot run returns EXIT_SKIP, with the reason as its last line of output).
 */
#ifndef BPERF_TESTS_UNIT_CHECK_H
#define BPERF_TESTS_UNIT_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define EXIT_SKIP 77

/* The checks of this test program (each test is one program made of one file). */
static int check_total, check_failures;

__attribute__((format(printf, 2, 0), unused))
static bool check_vreport(const char *name, const char *fmt, va_list ap)
{
	/* the test's own stdout lines come first in the log that holds both */
	fflush(stdout);
	fprintf(stderr, "%s: ", name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	check_failures++;
	return false;
}

/* Prints "name: " and the message on stderr and counts a failure. Returns false. */
__attribute__((format(printf, 2, 3), unused))
static bool check_report(const char *name, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vreport(name, fmt, ap);
	va_end(ap);
	return false;
}

/* CHECK_MSG: a condition with its own "expected X, got Y" message (printf arguments). */
__attribute__((format(printf, 3, 4), unused))
static bool check_msg(const char *name, bool held, const char *fmt, ...)
{
	va_list ap;

	check_total++;
	if (held)
		return true;
	va_start(ap, fmt);
	check_vreport(name, fmt, ap);
	va_end(ap);
	return false;
}

__attribute__((unused))
static bool check_true(const char *name, bool held, const char *cond)
{
	check_total++;
	return held || check_report(name, "expected %s, got false", cond);
}

/* Decimal, and hex as well where the hex is what a reader of a config or mask compares. */
__attribute__((unused))
static const char *check_int_text(char *buf, size_t size, long long v)
{
	if (v > 9 || v < -4095)
		snprintf(buf, size, "%lld (%#llx)", v, (unsigned long long)v);
	else
		snprintf(buf, size, "%lld", v);
	return buf;
}

__attribute__((unused))
static bool check_eq(const char *name, long long exp, long long got)
{
	char e[48], g[48];

	check_total++;
	return exp == got || check_report(name, "expected %s, got %s",
					  check_int_text(e, sizeof(e), exp),
					  check_int_text(g, sizeof(g), got));
}

/* NULL equals only NULL. Texts of several lines are shown as blocks, with the first difference. */
__attribute__((unused))
static bool check_str(const char *name, const char *exp, const char *got)
{
	size_t i = 0;

	check_total++;
	if (exp && got ? !strcmp(exp, got) : exp == got)
		return true;
	if (!exp || !got || (!strchr(exp, '\n') && !strchr(got, '\n')))
		return check_report(name, "expected %s%s%s, got %s%s%s", exp ? "'" : "",
				    exp ? exp : "NULL", exp ? "'" : "", got ? "'" : "",
				    got ? got : "NULL", got ? "'" : "");
	while (exp[i] && exp[i] == got[i])
		i++;
	return check_report(name, "expected\n<<<%s>>>\ngot\n<<<%s>>>\n(first difference at byte "
			    "%zu)", exp, got, i);
}

/* err is 0 or -errno, as bperf's and libbpf's functions return. */
__attribute__((unused))
static bool check_ok(const char *name, long long err)
{
	check_total++;
	return !err || check_report(name, "expected success, got %s (%lld)",
				    strerror(err < 0 ? (int)-err : (int)err), err);
}

/* |got - exp| <= tolerance; NaN never passes. */
__attribute__((unused))
static bool check_near(const char *name, double exp, double got, double tolerance)
{
	check_total++;
	return fabs(got - exp) <= tolerance ||
	       check_report(name, "expected %.12g, got %.12g", exp, got);
}

/* The exit status of a test program, after one line that sums its checks up. */
__attribute__((unused))
static int check_exit(const char *test)
{
	fflush(stdout);
	if (check_failures) {
		fprintf(stderr, "%s: %d of %d checks failed\n", test, check_failures, check_total);
		return 1;
	}
	printf("%s: %d checks passed\n", test, check_total);
	return 0;
}

#define CHECK(name, cond) check_true(name, !!(cond), #cond)
#define CHECK_MSG(name, cond, ...) check_msg(name, !!(cond), __VA_ARGS__)
#define CHECK_EQ(name, exp, got) check_eq(name, (long long)(exp), (long long)(got))
#define CHECK_STR(name, exp, got) check_str(name, exp, got)
#define CHECK_OK(name, err) check_ok(name, (long long)(err))
#define CHECK_NEAR(name, exp, got, tolerance) check_near(name, exp, got, tolerance)

#endif /* BPERF_TESTS_UNIT_CHECK_H */
