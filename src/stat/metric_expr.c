// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recursive descent evaluator for metric expressions. Precedence, lowest first:
 * `if else`, comparisons, + -, * / %, unary minus. Errors travel with values, so that the
 * branch `if else` does not take cannot fail the whole expression (a / b if b > 0 else 0).
 */
#include "metric_expr.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"

enum token_kind {
	TOK_END,
	TOK_NUM,
	TOK_ID,
	TOK_IF,
	TOK_ELSE,
	TOK_MIN,
	TOK_MAX,
	TOK_D_RATIO,
	TOK_CHAR,	/* one of + - * / % < > ( ) , */
	TOK_BAD,
};

struct token {
	enum token_kind kind;
	char ch;	/* TOK_CHAR */
	double num;	/* TOK_NUM */
	char *id;	/* TOK_ID, unescaped, '@' made '/' */
};

struct parser {
	const char *pos;
	struct token tok;
	metric_expr_lookup_fn lookup;
	void *ctx;
};

/* A value, or the error that stopped its computation. */
struct value {
	double v;
	int err;
};

static bool id_start(char c)
{
	return isalpha((unsigned char)c) || c == '_' || c == '#' || c == '\\';
}

static bool id_char(char c)
{
	return isalnum((unsigned char)c) || strchr("_.:@#?\\", c);
}

static char *read_id(const char **pp)
{
	const char *p = *pp;
	char *id = xzalloc(strlen(p) + 1), *o = id;

	while (*p && id_char(*p)) {
		if (*p == '\\') {
			if (!p[1])
				break;
			p++;
		}
		*o++ = *p == '@' ? '/' : *p;
		p++;
	}
	*pp = p;
	return id;
}

static void next_token(struct parser *ps)
{
	static const struct {
		const char *word;
		enum token_kind kind;
	} keywords[] = {
		{ "if", TOK_IF }, { "else", TOK_ELSE }, { "min", TOK_MIN }, { "max", TOK_MAX },
		{ "d_ratio", TOK_D_RATIO },
	};
	const char *p = ps->pos;
	char *end;

	free(ps->tok.id);
	memset(&ps->tok, 0, sizeof(ps->tok));
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		ps->tok.kind = TOK_END;
	} else if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
		ps->tok.kind = TOK_NUM;
		ps->tok.num = strtod(p, &end);
		p = end;
	} else if (id_start(*p)) {
		ps->tok.kind = TOK_ID;
		ps->tok.id = read_id(&p);
		for (size_t i = 0; i < ARRAY_SIZE(keywords); i++) {
			if (!strcmp(ps->tok.id, keywords[i].word)) {
				ps->tok.kind = keywords[i].kind;
				break;
			}
		}
	} else if (strchr("+-*/%<>(),", *p)) {
		ps->tok.kind = TOK_CHAR;
		ps->tok.ch = *p++;
	} else {
		ps->tok.kind = TOK_BAD;
	}
	ps->pos = p;
}

static bool accept_char(struct parser *ps, char c)
{
	if (ps->tok.kind != TOK_CHAR || ps->tok.ch != c)
		return false;
	next_token(ps);
	return true;
}

static struct value fail(int err)
{
	return (struct value){ .v = 0, .err = err };
}

static struct value parse_if(struct parser *ps);

/* min(a, b), max(a, b), d_ratio(a, b) */
static struct value parse_call(struct parser *ps, enum token_kind fn)
{
	struct value a, b;

	next_token(ps);
	if (!accept_char(ps, '('))
		return fail(-EINVAL);
	a = parse_if(ps);
	if (a.err == -EINVAL || !accept_char(ps, ','))
		return fail(-EINVAL);
	b = parse_if(ps);
	if (b.err == -EINVAL || !accept_char(ps, ')'))
		return fail(-EINVAL);
	if (a.err || b.err)
		return a.err ? a : b;
	switch (fn) {
	case TOK_MIN:
		return (struct value){ .v = a.v < b.v ? a.v : b.v };
	case TOK_MAX:
		return (struct value){ .v = a.v > b.v ? a.v : b.v };
	default:
		return (struct value){ .v = b.v == 0 ? 0 : a.v / b.v };
	}
}

static struct value parse_primary(struct parser *ps)
{
	struct value v = { 0 };

	switch (ps->tok.kind) {
	case TOK_NUM:
		v.v = ps->tok.num;
		next_token(ps);
		return v;
	case TOK_ID:
		v.err = ps->lookup(ps->ctx, ps->tok.id, &v.v);
		next_token(ps);
		return v;
	case TOK_MIN:
	case TOK_MAX:
	case TOK_D_RATIO:
		return parse_call(ps, ps->tok.kind);
	case TOK_CHAR:
		if (accept_char(ps, '(')) {
			v = parse_if(ps);
			if (v.err != -EINVAL && !accept_char(ps, ')'))
				return fail(-EINVAL);
			return v;
		}
		return fail(-EINVAL);
	default:
		return fail(-EINVAL);
	}
}

static struct value parse_unary(struct parser *ps)
{
	struct value v;

	if (!accept_char(ps, '-'))
		return parse_primary(ps);
	v = parse_unary(ps);
	v.v = -v.v;
	return v;
}

/* a op b, with a's or b's error carried on (a syntax error always wins) */
static struct value apply(char op, struct value a, struct value b)
{
	if (a.err == -EINVAL || b.err == -EINVAL)
		return fail(-EINVAL);
	if (a.err || b.err)
		return a.err ? a : b;
	switch (op) {
	case '+':
		return (struct value){ .v = a.v + b.v };
	case '-':
		return (struct value){ .v = a.v - b.v };
	case '*':
		return (struct value){ .v = a.v * b.v };
	case '/':
		return b.v == 0 ? fail(-EDOM) : (struct value){ .v = a.v / b.v };
	case '%':
		return b.v == 0 ? fail(-EDOM) : (struct value){ .v = fmod(a.v, b.v) };
	case '<':
		return (struct value){ .v = a.v < b.v };
	default:
		return (struct value){ .v = a.v > b.v };
	}
}

/* One level of left-associative binary operators from ops, over operands of sub. */
static struct value parse_binary(struct parser *ps, const char *ops,
				 struct value (*sub)(struct parser *))
{
	struct value v = sub(ps);

	while (v.err != -EINVAL && ps->tok.kind == TOK_CHAR && strchr(ops, ps->tok.ch)) {
		char op = ps->tok.ch;

		next_token(ps);
		v = apply(op, v, sub(ps));
	}
	return v;
}

static struct value parse_mul(struct parser *ps)
{
	return parse_binary(ps, "*/%", parse_unary);
}

static struct value parse_add(struct parser *ps)
{
	return parse_binary(ps, "+-", parse_mul);
}

static struct value parse_cmp(struct parser *ps)
{
	return parse_binary(ps, "<>", parse_add);
}

static struct value parse_if(struct parser *ps)
{
	struct value then = parse_cmp(ps), cond, other;

	if (then.err == -EINVAL || ps->tok.kind != TOK_IF)
		return then;
	next_token(ps);
	cond = parse_cmp(ps);
	if (cond.err == -EINVAL || ps->tok.kind != TOK_ELSE)
		return fail(-EINVAL);
	next_token(ps);
	other = parse_if(ps);
	if (other.err == -EINVAL)
		return other;
	if (cond.err)
		return cond;
	return cond.v != 0 ? then : other;
}

int metric_expr_eval(const char *expr, metric_expr_lookup_fn lookup, void *ctx, double *result)
{
	struct parser ps = { .pos = expr, .lookup = lookup, .ctx = ctx };
	struct value v;

	next_token(&ps);
	v = parse_if(&ps);
	if (!v.err && ps.tok.kind != TOK_END)
		v.err = -EINVAL;
	free(ps.tok.id);
	if (v.err)
		return v.err;
	*result = v.v;
	return 0;
}

struct id_collector {
	char **ids;
	int nr;
};

static int collect_id(void *ctx, const char *id, double *value)
{
	struct id_collector *c = ctx;
	int i;

	*value = 1;
	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->ids[i], id))
			return 0;
	c->ids = xrealloc(c->ids, (c->nr + 2) * sizeof(*c->ids));
	c->ids[c->nr++] = xstrdup(id);
	c->ids[c->nr] = NULL;
	return 0;
}

int metric_expr_ids(const char *expr, char ***ids)
{
	struct id_collector c = { .ids = xzalloc(sizeof(char *)) };
	double unused;
	int err = metric_expr_eval(expr, collect_id, &c, &unused);

	/* every id reads as 1, so only the syntax can fail (or a literal division by zero) */
	if (err == -EINVAL) {
		metric_expr_ids_free(c.ids);
		return err;
	}
	*ids = c.ids;
	return c.nr;
}

void metric_expr_ids_free(char **ids)
{
	if (!ids)
		return;
	for (char **p = ids; *p; p++)
		free(*p);
	free(ids);
}
