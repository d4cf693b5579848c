// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf 6.1's metric expression grammar (util/expr.y) as a recursive descent parser. Like
 * perf's bison actions it computes every operand, both branches of `if else` included, so a
 * division by zero anywhere fails the expression as it fails perf's. In the ids mode a value
 * is either a constant or "any value" (NaN) with the set of ids it needs.
 */
#include "metric_expr.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "metric_expr_lex.h"

struct parser {
	const char *pos;
	struct expr_token tok;
	const struct metric_expr_ctx *ctx;
	bool compute_ids;
	int err;		/* the first error; parsing stops there */
};

/* A value, and in the ids mode the ids it needs (NULL: none) */
struct val {
	double v;
	struct metric_ids *ids;
};

static const struct val bottom = { .v = NAN };

static void next(struct parser *ps)
{
	expr_next_token(&ps->pos, ps->ctx->runtime, &ps->tok);
}

static struct val fail(struct parser *ps, int err, struct val a, struct val b)
{
	metric_ids_free(a.ids);
	metric_ids_free(b.ids);
	if (!ps->err)
		ps->err = err;
	return bottom;
}

static bool is_op(const struct parser *ps, char op)
{
	return ps->tok.kind == EXPR_TOK_OP && ps->tok.op == op;
}

static bool expect_op(struct parser *ps, char op)
{
	if (!is_op(ps, op)) {
		if (!ps->err)
			ps->err = -EINVAL;
		return false;
	}
	next(ps);
	return true;
}

/* perf's is_const(): in the ids mode NaN (and infinities) stand for "any value" */
static bool is_const(double v)
{
	return isfinite(v);
}

static struct val union_of(struct val a, struct val b)
{
	return (struct val){ .v = NAN, .ids = metric_ids_union(a.ids, b.ids) };
}

/* (long)v as the CPU converts it, without C's undefined behaviour out of range */
static long to_long(double v)
{
	if (v > -9223372036854775808.0 && v < 9223372036854775808.0)
		return (long)v;
#if defined(__x86_64__) || defined(__i386__)
	return LONG_MIN;	/* cvttsd2si's "integer indefinite" */
#else
	return isnan(v) ? 0 : v > 0 ? LONG_MAX : LONG_MIN;	/* saturating, as arm64's */
#endif
}

static struct val parse_if(struct parser *ps);
static struct val parse_expr(struct parser *ps, int min_prec);

static struct val id_value(struct parser *ps, const char *id, bool source_count)
{
	struct val r = bottom;

	if (ps->compute_ids) {
		r.ids = metric_ids_new();
		metric_ids_insert(r.ids, id);
	} else if (!ps->ctx->lookup ||
		   ps->ctx->lookup(ps->ctx->priv, id, source_count, &r.v)) {
		r.v = NAN;
	}
	return r;
}

static struct val literal_value(struct parser *ps, const char *name)
{
	struct metric_literals *lit = ps->ctx->literals;
	int which = metric_literal_from_name(name);
	struct val r = bottom;

	if (which < 0 || !lit) {
		pr_err("Unrecognized literal '%s'", name);
		return fail(ps, -EINVAL, bottom, bottom);
	}
	if (lit->value(lit, which, &r.v) || isnan(r.v))
		return fail(ps, -EINVAL, bottom, bottom);
	return r;
}

static struct val number_value(struct parser *ps, const char *text)
{
	struct val r = bottom;

	errno = 0;
	r.v = strtod(text, NULL);
	if (errno)	/* out of range, as perf's lexer rejects it */
		return fail(ps, -EINVAL, bottom, bottom);
	return r;
}

/* min(a, b), max(a, b), d_ratio(a, b): their arguments are expressions without `if` */
static struct val parse_call(struct parser *ps, enum expr_token_kind fn)
{
	struct val a, b;

	next(ps);
	if (!expect_op(ps, '('))
		return bottom;
	a = parse_expr(ps, 0);
	if (ps->err || !expect_op(ps, ','))
		return fail(ps, -EINVAL, a, bottom);
	b = parse_expr(ps, 0);
	if (ps->err || !expect_op(ps, ')'))
		return fail(ps, -EINVAL, a, b);
	if (fn == EXPR_TOK_D_RATIO) {
		/* a constant 0 divisor: 0, and a's events are not needed */
		if (b.v == 0) {
			metric_ids_free(a.ids);
			return (struct val){ .v = 0 };
		}
		if (!ps->compute_ids || (is_const(a.v) && is_const(b.v)))
			return (struct val){ .v = a.v / b.v };
		return union_of(a, b);
	}
	if (ps->compute_ids)
		return union_of(a, b);
	if (fn == EXPR_TOK_MIN)
		return (struct val){ .v = a.v < b.v ? a.v : b.v };
	return (struct val){ .v = a.v > b.v ? a.v : b.v };
}

static struct val parse_primary(struct parser *ps)
{
	enum expr_token_kind kind = ps->tok.kind;
	struct val r;

	switch (kind) {
	case EXPR_TOK_NUMBER:
		r = number_value(ps, ps->tok.text);
		break;
	case EXPR_TOK_LITERAL:
		r = literal_value(ps, ps->tok.text);
		break;
	case EXPR_TOK_ID:
		r = id_value(ps, ps->tok.text, false);
		break;
	case EXPR_TOK_SOURCE_COUNT:
		next(ps);
		if (!expect_op(ps, '('))
			return bottom;
		if (ps->tok.kind != EXPR_TOK_ID)
			return fail(ps, -EINVAL, bottom, bottom);
		r = id_value(ps, ps->tok.text, true);
		next(ps);
		if (!expect_op(ps, ')'))
			return fail(ps, -EINVAL, r, bottom);
		return r;
	case EXPR_TOK_MIN:
	case EXPR_TOK_MAX:
	case EXPR_TOK_D_RATIO:
		return parse_call(ps, kind);
	case EXPR_TOK_OP:
		if (ps->tok.op == '-') {
			next(ps);
			r = parse_primary(ps);
			r.v = -r.v;
			return r;
		}
		if (ps->tok.op == '(') {
			next(ps);
			r = parse_if(ps);
			if (ps->err || !expect_op(ps, ')'))
				return fail(ps, -EINVAL, r, bottom);
			return r;
		}
		/* fall through */
	default:
		return fail(ps, -EINVAL, bottom, bottom);
	}
	if (!ps->err)
		next(ps);
	return r;
}

static int precedence(const struct parser *ps)
{
	if (ps->tok.kind != EXPR_TOK_OP)
		return 0;
	switch (ps->tok.op) {
	case '|':
		return 1;
	case '^':
		return 2;
	case '&':
		return 3;
	case '<':
	case '>':
		return 4;
	case '-':
	case '+':
		return 5;
	case '*':
	case '/':
	case '%':
		return 6;
	default:
		return 0;
	}
}

static struct val binary(struct parser *ps, char op, struct val a, struct val b)
{
	double x = a.v, y = b.v;

	/* perf checks the divisor first, in both modes: x / 0 is never an expression */
	if ((op == '/' || op == '%') && y == 0)
		return fail(ps, -EDOM, a, b);
	if (ps->compute_ids && !(is_const(x) && is_const(y)))
		return union_of(a, b);
	switch (op) {
	case '|':
		return (struct val){ .v = to_long(x) | to_long(y) };
	case '^':
		return (struct val){ .v = to_long(x) ^ to_long(y) };
	case '&':
		return (struct val){ .v = to_long(x) & to_long(y) };
	case '<':
		return (struct val){ .v = x < y };
	case '>':
		return (struct val){ .v = x > y };
	case '-':
		return (struct val){ .v = x - y };
	case '+':
		return (struct val){ .v = x + y };
	case '*':
		return (struct val){ .v = x * y };
	case '/':
		return (struct val){ .v = x / y };
	default:
		/* a divisor that is 0 as a long is a SIGFPE in perf: a division by zero here */
		if (to_long(y) == 0)
			return fail(ps, -EDOM, a, b);
		if (to_long(y) == -1)
			return (struct val){ .v = 0 };
		return (struct val){ .v = to_long(x) % to_long(y) };
	}
}

/* Binary operators binding tighter than min_prec, left-associative. */
static struct val parse_expr(struct parser *ps, int min_prec)
{
	struct val a = parse_primary(ps);
	int prec;

	while (!ps->err && (prec = precedence(ps)) > min_prec) {
		char op = ps->tok.op;
		struct val b;

		next(ps);
		b = parse_expr(ps, prec);
		if (ps->err)
			return fail(ps, ps->err, a, b);
		a = binary(ps, op, a, b);
	}
	return a;
}

/* expr | expr if expr else if_expr */
static struct val parse_if(struct parser *ps)
{
	struct val a = parse_expr(ps, 0), c, b;

	if (ps->err || ps->tok.kind != EXPR_TOK_IF)
		return a;
	next(ps);
	c = parse_expr(ps, 0);
	if (ps->err || ps->tok.kind != EXPR_TOK_ELSE) {
		metric_ids_free(c.ids);
		return fail(ps, -EINVAL, a, bottom);
	}
	next(ps);
	b = parse_if(ps);
	if (ps->err) {
		metric_ids_free(c.ids);
		return fail(ps, ps->err, a, b);
	}
	if (c.v == 0) {
		metric_ids_free(a.ids);
		metric_ids_free(c.ids);
		return b;
	}
	if (!ps->compute_ids || is_const(c.v)) {
		metric_ids_free(c.ids);
		metric_ids_free(b.ids);
		return a;
	}
	if (a.v == b.v) {	/* the same constant either way: no events needed */
		metric_ids_free(a.ids);
		metric_ids_free(c.ids);
		metric_ids_free(b.ids);
		return (struct val){ .v = a.v };
	}
	return union_of(a, union_of(c, b));
}

static int parse(const char *expr, const struct metric_expr_ctx *ctx, bool compute_ids,
		 struct val *out)
{
	struct parser ps = { .pos = expr, .ctx = ctx, .compute_ids = compute_ids };
	struct val v;

	next(&ps);
	v = parse_if(&ps);
	if (!ps.err && ps.tok.kind != EXPR_TOK_END)
		v = fail(&ps, -EINVAL, v, bottom);
	free(ps.tok.text);
	if (ps.err) {
		metric_ids_free(v.ids);
		return ps.err;
	}
	*out = v;
	return 0;
}

int metric_expr_eval(const char *expr, const struct metric_expr_ctx *ctx, double *result)
{
	struct val v;
	int err = parse(expr, ctx, false, &v);

	if (!err)
		*result = v.v;
	return err;
}

int metric_expr_find_ids(const char *expr, const struct metric_expr_ctx *ctx,
			 struct metric_ids **ids)
{
	struct val v;
	int err = parse(expr, ctx, true, &v);

	if (err)
		return err;
	/* perf's start rule: ctx->ids = ids__union($1.ids, ctx->ids) */
	*ids = metric_ids_union(v.ids, *ids ? *ids : metric_ids_new());
	return 0;
}

struct appearance {
	char **ids;
	int nr;
};

static int record_id(void *priv, const char *id, bool source_count, double *value)
{
	struct appearance *a = priv;

	*value = 1;
	for (int i = 0; i < a->nr; i++)
		if (!strcmp(a->ids[i], id))
			return 0;
	a->ids = xrealloc(a->ids, (a->nr + 2) * sizeof(*a->ids));
	a->ids[a->nr++] = xstrdup(id);
	a->ids[a->nr] = NULL;
	return 0;
}

int metric_expr_ids(const char *expr, char ***ids)
{
	struct appearance a = { .ids = xzalloc(sizeof(char *)) };
	struct metric_expr_ctx ctx = { .lookup = record_id, .priv = &a };
	double unused;
	int err = metric_expr_eval(expr, &ctx, &unused);

	/* ids read as 1 can divide by 0 ((a - b) / c): not an error of the syntax */
	if (err && err != -EDOM) {
		metric_expr_ids_free(a.ids);
		return err;
	}
	*ids = a.ids;
	return a.nr;
}

void metric_expr_ids_free(char **ids)
{
	if (!ids)
		return;
	for (char **p = ids; *p; p++)
		free(*p);
	free(ids);
}
