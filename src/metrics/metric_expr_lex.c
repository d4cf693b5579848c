// SPDX-License-Identifier: GPL-2.0-only
/* The metric expression scanner: perf 6.1's util/expr.l rules, matched by hand. */
#include "metric_expr_lex.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

static size_t digits(const char *p)
{
	size_t n = 0;

	while (isdigit((unsigned char)p[n]))
		n++;
	return n;
}

/* ([0-9]+\.?[0-9]*|[0-9]*\.?[0-9]+)(e-?[0-9]+)? */
static size_t number_len(const char *p)
{
	size_t n = digits(p), e;

	if (n && p[n] == '.')
		n += 1 + digits(p + n + 1);
	else if (!n && p[0] == '.' && digits(p + 1))
		n = 1 + digits(p + 1);
	if (!n || p[n] != 'e')
		return n;
	e = n + 1 + (p[n + 1] == '-');
	return digits(p + e) ? e + digits(p + e) : n;
}

static bool sym_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_.:@?", c));
}

/* (\\[-,=]|[0-9a-zA-Z_.:@?])+ */
static size_t symbol_len(const char *p)
{
	size_t n = 0;

	for (;;) {
		if (p[n] == '\\' && p[n + 1] && strchr("-,=", p[n + 1]))
			n += 2;
		else if (sym_char(p[n]))
			n++;
		else
			return n;
	}
}

/* #[0-9a-zA-Z_.-]+ */
static size_t literal_len(const char *p)
{
	size_t n = 1;

	if (p[0] != '#')
		return 0;
	while (isalnum((unsigned char)p[n]) || (p[n] && strchr("_.-", p[n])))
		n++;
	return n > 1 ? n : 0;
}

static const struct {
	const char *word;
	enum expr_token_kind kind;
} keywords[] = {
	{ "d_ratio", EXPR_TOK_D_RATIO }, { "max", EXPR_TOK_MAX }, { "min", EXPR_TOK_MIN },
	{ "if", EXPR_TOK_IF }, { "else", EXPR_TOK_ELSE },
	{ "source_count", EXPR_TOK_SOURCE_COUNT },
};

/* An id's text: `\x` is x, `?` the runtime number (perf's normalize()). */
static char *normalize(const char *p, size_t len, int runtime)
{
	char num[16], *out = xzalloc(len * sizeof(num) + 1), *o = out;
	int nlen = snprintf(num, sizeof(num), "%d", runtime);

	for (size_t i = 0; i < len; i++) {
		if (p[i] == '\\') {
			*o++ = p[++i];
		} else if (p[i] == '?') {
			memcpy(o, num, nlen);
			o += nlen;
		} else {
			*o++ = p[i];
		}
	}
	return out;
}

void expr_next_token(const char **pos, int runtime, struct expr_token *tok)
{
	const char *p = *pos;

	free(tok->text);
	memset(tok, 0, sizeof(*tok));
	for (; *p; p++) {
		size_t best = 0, len;
		enum expr_token_kind kind = EXPR_TOK_END;

		for (size_t i = 0; i < ARRAY_SIZE(keywords); i++) {
			len = strlen(keywords[i].word);
			if (!strncmp(p, keywords[i].word, len) && len > best) {
				best = len;
				kind = keywords[i].kind;
			}
		}
		len = literal_len(p);
		if (len > best) {
			best = len;
			kind = EXPR_TOK_LITERAL;
		}
		len = number_len(p);
		if (len > best) {
			best = len;
			kind = EXPR_TOK_NUMBER;
		}
		len = symbol_len(p);
		if (len > best) {
			best = len;
			kind = EXPR_TOK_ID;
		}
		if (!best && strchr("|^&<>-+*/%(),", *p)) {
			best = 1;
			kind = EXPR_TOK_OP;
			tok->op = *p;
		}
		if (!best)
			continue;	/* perf's `.` rule: anything else is dropped */
		tok->kind = kind;
		if (kind == EXPR_TOK_ID)
			tok->text = normalize(p, best, runtime);
		else if (kind == EXPR_TOK_NUMBER || kind == EXPR_TOK_LITERAL)
			tok->text = memcpy(xzalloc(best + 1), p, best);
		*pos = p + best;
		return;
	}
	tok->kind = EXPR_TOK_END;
	*pos = p;
}
