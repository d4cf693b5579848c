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
	const char *typed;	/* the long option word being parsed, without "--" */
};

static void print_option_line(const struct option *opt);

/*
 * perf's layout for a bad value: the error, the usage line and the lines of the options the
 * typed word names (for a long option, every option whose name starts with the word as typed,
 * "=value" included, so "--timeout=x" lists none).
 */
static void opt_error(const struct parse_ctx *ctx, const struct option *opt, bool as_short,
		      bool unset, const char *what)
{
	char short_text[2] = { opt->short_name, 0 };

	if (as_short)
		fprintf(stderr, " Error: switch `%c' %s", opt->short_name, what);
	else
		fprintf(stderr, " Error: option `%s%s' %s", unset ? "no-" : "", opt->long_name, what);
	usage_for_options(ctx->usage, ctx->opts, as_short ? short_text : ctx->typed, as_short);
}

/* perf's rule: base 10 and nothing after the digits; like strtol, "" is 0 and no range check. */
static int parse_number(const char *arg, long long *out)
{
	char *end;

	*out = strtol(arg, &end, 10);
	return *end ? -EINVAL : 0;
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
		/* perf refuses a sign before it reads the number */
		if (opt->type == OPT_UINTEGER && arg[0] == '-') {
			opt_error(ctx, opt, as_short, false, "expects an unsigned numerical value");
			return PARSE_OPT_ERROR;
		}
		if (parse_number(arg, &v)) {
			opt_error(ctx, opt, as_short, false, "expects a numerical value");
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
		opt_error(ctx, opt, as_short, false, "requires a value");
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

static const char *skip_prefix(const char *s, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(s, prefix, n) ? NULL : s + n;
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* What a long option word names: the option, whether negated, and the value after '='. */
struct long_match {
	const struct option *opt;
	bool unset;
	const char *value;
};

/*
 * perf's matching, in table order: a full name (or "no-" + name, or a "no-xxx" name without
 * its "no-") followed by nothing or "=value" wins at once; otherwise a unique abbreviation
 * does, and two abbreviations are ambiguous. Returns 0, or -ENOENT / -EAGAIN (ambiguous, with
 * *other the first candidate).
 */
static int match_long(const char *text, const struct option *opts, struct long_match *m,
		      struct long_match *other)
{
	const char *end = strchrnul(text, '=');
	const struct option *opt;
	bool ambiguous = false;

	memset(m, 0, sizeof(*m));
	for (opt = opts; opt->type != OPT_END; opt++) {
		const char *ln = opt->long_name, *rest;
		bool unset = false;

		if (!ln)
			continue;
		rest = skip_prefix(text, ln);
		if (!rest && starts_with(ln, "no-")) {
			rest = skip_prefix(text, ln + 3);
			unset = rest || starts_with(ln + 3, text);
			if (!rest && unset)
				goto abbreviated;
		}
		if (!rest) {
			if (!strncmp(ln, text, end - text))
				goto abbreviated;
			unset = true;
			/* "--n", "--no" and "--no-" abbreviate every negation */
			if (starts_with("no-", text))
				goto abbreviated;
			if (!starts_with(text, "no-"))
				continue;
			rest = skip_prefix(text + 3, ln);
			if (!rest && starts_with(ln, text + 3))
				goto abbreviated;
			if (!rest)
				continue;
		}
		if (*rest && *rest != '=')
			continue;
		m->opt = opt;
		m->unset = unset;
		m->value = *rest ? rest + 1 : NULL;
		return 0;
abbreviated:
		if (m->opt) {
			*other = *m;
			ambiguous = true;
		}
		m->opt = opt;
		m->unset = unset;
		m->value = !unset && *end ? end + 1 : NULL;
	}
	if (ambiguous)
		return -EAGAIN;
	return m->opt ? 0 : -ENOENT;
}

static int parse_long(struct parse_ctx *ctx, int *i)
{
	const char *text = ctx->argv[*i] + 2;
	struct long_match m, other;
	const struct option *opt;
	const char *value;
	int err;

	if (!strcmp(text, "help"))
		return PARSE_OPT_HELP;
	ctx->typed = text;
	err = match_long(text, ctx->opts, &m, &other);
	if (err == -EAGAIN) {
		fprintf(stderr, " Error: Ambiguous option: %s (could be --%s%s or --%s%s)\n", text,
			other.unset ? "no-" : "", other.opt->long_name, m.unset ? "no-" : "",
			m.opt->long_name);
		usage_for_options(ctx->usage, ctx->opts, text, false);
		return PARSE_OPT_ERROR;
	}
	if (err) {
		fprintf(stderr, "  Error: unknown option `%s'\n", text);
		usage_with_options(ctx->usage, ctx->opts);
		return PARSE_OPT_ERROR;
	}
	opt = m.opt;
	if (m.unset && m.value) {
		opt_error(ctx, opt, false, true, "takes no value");
		return PARSE_OPT_ERROR;
	}
	if (m.unset && (opt->flags & OPTF_NONEG)) {
		opt_error(ctx, opt, false, true, "isn't available");
		return PARSE_OPT_ERROR;
	}
	if (m.value && !takes_value(opt)) {
		opt_error(ctx, opt, false, false, "takes no value");
		return PARSE_OPT_ERROR;
	}
	if (m.unset || !takes_value(opt))
		return apply_option(ctx, opt, NULL, m.unset, false);
	value = m.value;
	if (!value) {
		err = take_value(ctx, opt, NULL, i, false, &value);
		if (err)
			return err;
	}
	return apply_option(ctx, opt, value, false, false);
}

int parse_options(int argc, const char **argv, const struct option *opts,
		  const char *const *usage)
{
	struct parse_ctx ctx = { argc, argv, opts, usage, NULL };
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

void usage_for_options(const char *const *usage, const struct option *opts, const char *text,
		       bool short_name)
{
	const struct option *opt;

	if (usage) {
		fprintf(stderr, "\n Usage: %s\n", *usage);
		while (*++usage)
			fprintf(stderr, "    or: %s\n", *usage);
		fputc('\n', stderr);
	}
	for (opt = opts; opt->type != OPT_END; opt++) {
		if (opt->flags & OPTF_HIDDEN)
			continue;
		if (short_name) {
			if (opt->short_name == *text) {
				print_option_line(opt);
				break;
			}
			continue;
		}
		if (!opt->long_name)
			continue;
		if (starts_with(opt->long_name, text))
			print_option_line(opt);
		/* perf's test, which only "n", "no" and "no-" pass */
		if (starts_with("no-", text) && starts_with(opt->long_name, text + 3))
			print_option_line(opt);
	}
}
