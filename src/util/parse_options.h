/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A small command-line option parser with perf's rules: bundled short
 * options, attached or separate values, --long=value, unique prefixes of
 * long names, --no-<name> for booleans, and parsing stops at the first
 * non-option (the workload command).
 */
#ifndef BPERF_PARSE_OPTIONS_H
#define BPERF_PARSE_OPTIONS_H

#include <stdbool.h>

enum option_type {
	OPT_END,
	OPT_BOOLEAN,  /* bool; --no-<name> clears it */
	OPT_INCR,     /* int counter, e.g. -vv */
	OPT_STRING,   /* const char * */
	OPT_INTEGER,  /* int, numerical value required */
	OPT_UINTEGER, /* unsigned int */
	OPT_CALLBACK, /* cb(opt, value, unset): 0 or a negative error */
};

#define OPTF_NONEG (1 << 0)	   /* no --no-<name> form */
#define OPTF_OPTARG (1 << 1)	   /* the value is optional (only with =) */
#define OPTF_HIDDEN (1 << 2)	   /* left out of the usage text */

struct option {
	enum option_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;	/* "<event>", shown in the usage text */
	const char *help;
	int flags;
	int (*callback)(const struct option *opt, const char *arg, bool unset);
	void *data;		/* for callbacks */
};

#define PARSE_OPT_HELP (-2)	/* -h / --help was given */
#define PARSE_OPT_ERROR (-1)	/* message and usage printed; the caller exits 129 */

/*
 * Parses argv[1..]; returns the index of the first non-option argument
 * (argc if none), or PARSE_OPT_HELP / PARSE_OPT_ERROR. Errors are printed
 * in perf's layout with the usage line; a failing callback prints its own.
 */
int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage);

/* " Usage: <usage>\n\n" then the option list, on stderr. */
void usage_with_options(const char *const *usage, const struct option *opts);

/* The usage line alone followed by one option's line, as perf prints after an -e error. */
void usage_with_one_option(const char *const *usage, const struct option *opts, char short_name);

/*
 * perf's parse_options_usage(): "\n Usage: ...\n\n" (left out when usage is NULL), then the
 * line of the option whose short name is text[0] (short_name), or of every option whose long
 * name starts with text.
 */
void usage_for_options(const char *const *usage, const struct option *opts, const char *text,
		       bool short_name);

/* After " Error: ..." of a bad combination: the usage line and the named option's line. */
void option_error_usage(const char *const *usage, const struct option *opts,
			const char *long_name);

#endif
