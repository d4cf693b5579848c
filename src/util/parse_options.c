// SPDX-License-Identifier: GPL-2.0-only
#include "parse_options.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One parse: the words, the option table and the usage line errors print. */
struct parse_ctx {
	int argc;
	const char **argv;
	const struct option *opts;
	const char *const *usage;
};

static void print_option_line(const struct option *opt);

/* perf's layout for a bad value: the error, the usage line and that option's line. */
static void opt_error(const struct parse_ctx *ctx, const struct option *opt, bool as_short,
		      const char *what)
{
	if (as_short)
		fprintf(stderr, " Error: switch `%c' %s\n", opt->short_name, what);
	else
		fprintf(stderr, " Error: option `%s' %s\n", opt->long_name, what);
	fprintf(stderr, " Usage: %s\n\n", *ctx->usage);
	print_option_line(opt);
}

static int parse_number(const char *arg, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 0);
	if (errno || end == arg || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* Applies one option. arg is its value or NULL; unset for --no-<name>. */
static int apply_option(const struct parse_ctx *ctx, const struct option *opt, const char *arg,
			bool unset, bool as_short)
{
	long long v;

	switch (opt->type) {
	case OPT_BOOLEAN:
		*(bool *)opt->value = !unset;
		return 0;
	case OPT_INCR:
		*(int *)opt->value = unset ? 0 : *(int *)opt->value + 1;
		return 0;
	case OPT_STRING:
		*(const char **)opt->value = unset ? NULL : arg;
		return 0;
	case OPT_INTEGER:
	case OPT_UINTEGER:
		if (unset) {
			*(int *)opt->value = 0;
			return 0;
		}
		if (parse_number(arg, opt->type == OPT_UINTEGER ? 0 : INT_MIN,
				 opt->type == OPT_UINTEGER ? UINT_MAX : INT_MAX, &v)) {
			opt_error(ctx, opt, as_short, "expects a numerical value");
			return PARSE_OPT_ERROR;
		}
		if (opt->type == OPT_UINTEGER)
			*(unsigned int *)opt->value = (unsigned int)v;
		else
			*(int *)opt->value = (int)v;
		return 0;
	case OPT_CALLBACK:
		return opt->callback(opt, arg, unset) ? PARSE_OPT_ERROR : 0;
	case OPT_END:
		break;
	}
	return PARSE_OPT_ERROR;
}

static bool takes_value(const struct option *opt)
{
	return opt->type == OPT_STRING || opt->type == OPT_INTEGER ||
	       opt->type == OPT_UINTEGER || (opt->type == OPT_CALLBACK && opt->argh);
}

/* Fetches the option's value from the rest of the word or the next argv word. */
static int take_value(const struct parse_ctx *ctx, const struct option *opt, const char *rest,
		      int *i, bool as_short, const char **value)
{
	if (rest && *rest) {
		*value = rest;
		return 0;
	}
	if (opt->flags & OPTF_OPTARG) {
		*value = NULL;
		return 0;
	}
	if (*i + 1 >= ctx->argc) {
		opt_error(ctx, opt, as_short, "requires a value");
		return PARSE_OPT_ERROR;
	}
	*value = ctx->argv[++*i];
	return 0;
}

static int parse_short(const struct parse_ctx *ctx, int *i)
{
	const char *p = ctx->argv[*i] + 1;

	while (*p) {
		const struct option *opt;
		const char *value = NULL;
		int err;

		if (*p == 'h')
			return PARSE_OPT_HELP;
		for (opt = ctx->opts; opt->type != OPT_END; opt++)
			if (opt->short_name == *p)
				break;
		if (opt->type == OPT_END) {
			fprintf(stderr, "  Error: unknown switch `%c'\n", *p);
			usage_with_options(ctx->usage, ctx->opts);
			return PARSE_OPT_ERROR;
		}
		if (takes_value(opt)) {
			err = take_value(ctx, opt, p + 1, i, true, &value);
			if (err)
				return err;
			return apply_option(ctx, opt, value, false, true);
		}
		err = apply_option(ctx, opt, NULL, false, true);
		if (err)
			return err;
		p++;
	}
	return 0;
}

/* Finds a long option by exact name or unique prefix; *unset for the --no- form. */
static const struct option *find_long(const char *name, size_t len, const struct option *opts,
				      bool *unset, bool *ambiguous)
{
	bool negated = len > 3 && !strncmp(name, "no-", 3);
	const struct option *found = NULL, *opt;
	int nr_prefix = 0;

	*ambiguous = false;
	*unset = false;
	/* Exact names first: "--no-inherit" is an option of its own, not "--inherit" unset. */
	for (opt = opts; opt->type != OPT_END; opt++)
		if (opt->long_name && strlen(opt->long_name) == len &&
		    !strncmp(opt->long_name, name, len))
			return opt;
	for (opt = opts; opt->type != OPT_END; opt++) {
		const char *ln = opt->long_name;

		if (!ln)
			continue;
		if (negated && !(opt->flags & OPTF_NONEG) && !strncmp(ln, name + 3, len - 3)) {
			if (strlen(ln) == len - 3) {
				*unset = true;
				return opt;
			}
			nr_prefix++;
			found = opt;
			*unset = true;
		} else if (!strncmp(ln, name, len)) {
			nr_prefix++;
			found = opt;
			*unset = false;
		}
	}
	if (nr_prefix > 1) {
		*ambiguous = true;
		return NULL;
	}
	return found;
}

static int parse_long(const struct parse_ctx *ctx, int *i)
{
	const char *name = ctx->argv[*i] + 2;
	const char *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct option *opt;
	const char *value = NULL;
	bool unset, ambiguous;
	int err;

	if (len == 4 && !strncmp(name, "help", 4))
		return PARSE_OPT_HELP;
	opt = find_long(name, len, ctx->opts, &unset, &ambiguous);
	if (!opt) {
		if (ambiguous)
			fprintf(stderr, "  Error: Ambiguous option: %.*s\n", (int)len, name);
		else
			fprintf(stderr, "  Error: unknown option `%.*s'\n", (int)len, name);
		usage_with_options(ctx->usage, ctx->opts);
		return PARSE_OPT_ERROR;
	}
	if (eq && (unset || !takes_value(opt))) {
		opt_error(ctx, opt, false, "takes no value");
		return PARSE_OPT_ERROR;
	}
	if (unset || !takes_value(opt))
		return apply_option(ctx, opt, NULL, unset, false);
	if (eq) {
		value = eq + 1;
	} else {
		err = take_value(ctx, opt, NULL, i, false, &value);
		if (err)
			return err;
	}
	return apply_option(ctx, opt, value, false, false);
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	struct parse_ctx ctx = { argc, argv, opts, usage };
	int i, err;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];

		if (arg[0] != '-' || !arg[1])
			return i;
		if (!strcmp(arg, "--"))
			return i + 1;
		if (arg[1] == '-')
			err = parse_long(&ctx, &i);
		else
			err = parse_short(&ctx, &i);
		if (err)
			return err;
	}
	return argc;
}

static void print_option_line(const struct option *opt)
{
	int pos;

	if (opt->short_name && opt->long_name)
		pos = fprintf(stderr, "    -%c, --%s", opt->short_name, opt->long_name);
	else if (opt->short_name)
		pos = fprintf(stderr, "    -%c", opt->short_name);
	else
		pos = fprintf(stderr, "        --%s", opt->long_name);
	if (opt->argh)
		pos += fprintf(stderr, opt->flags & OPTF_OPTARG ? "[=%s]" : " %s", opt->argh);
	if (pos <= 24)
		fprintf(stderr, "%*s%s\n", 26 - pos, "", opt->help);
	else
		fprintf(stderr, "\n%26s%s\n", "", opt->help);
}

void usage_with_options(const char *const *usage, const struct option *opts)
{
	const struct option *opt;

	fprintf(stderr, "\n Usage: %s\n", *usage);
	while (*++usage)
		fprintf(stderr, "    or: %s\n", *usage);
	fputc('\n', stderr);
	for (opt = opts; opt->type != OPT_END; opt++)
		if (!(opt->flags & OPTF_HIDDEN))
			print_option_line(opt);
	fputc('\n', stderr);
}

void usage_with_one_option(const char *const *usage, const struct option *opts, char short_name)
{
	const struct option *opt;

	fprintf(stderr, "\n Usage: %s\n\n", *usage);
	for (opt = opts; opt->type != OPT_END; opt++)
		if (opt->short_name == short_name)
			print_option_line(opt);
}

void option_error_usage(const char *const *usage, const struct option *opts,
			const char *long_name)
{
	const struct option *opt;

	fprintf(stderr, " Usage: %s\n\n", *usage);
	for (opt = opts; opt->type != OPT_END; opt++)
		if (opt->long_name && !strcmp(opt->long_name, long_name))
			print_option_line(opt);
}
