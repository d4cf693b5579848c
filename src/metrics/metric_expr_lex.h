/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The tokens of metric expressions, as perf 6.1's flex scanner (util/expr.l) cuts them: the
 * longest match wins, a tie goes to the earlier rule (keyword, literal, number, id, operator),
 * and a character no rule matches is skipped.
 */
#ifndef BPERF_METRIC_EXPR_LEX_H
#define BPERF_METRIC_EXPR_LEX_H

enum expr_token_kind {
	EXPR_TOK_END,
	EXPR_TOK_NUMBER,	/* text: the digits */
	EXPR_TOK_LITERAL,	/* text: "#name" */
	EXPR_TOK_ID,		/* text: unescaped, `?` replaced by the runtime number */
	EXPR_TOK_IF,
	EXPR_TOK_ELSE,
	EXPR_TOK_MIN,
	EXPR_TOK_MAX,
	EXPR_TOK_D_RATIO,
	EXPR_TOK_SOURCE_COUNT,
	EXPR_TOK_OP,		/* op: one of | ^ & < > - + * / % ( ) , */
};

struct expr_token {
	enum expr_token_kind kind;
	char op;
	char *text;		/* NUMBER, LITERAL, ID: owned by the token */
};

/*
 * The token at *pos; *pos moves past it. runtime replaces `?` in ids. The previous token's text
 * is freed.
 */
void expr_next_token(const char **pos, int runtime, struct expr_token *tok);

#endif
