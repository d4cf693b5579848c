// SPDX-License-Identifier: GPL-2.0-only
/*
 * Recursive-descent parser for perf 6.1's event grammar (parse-events.y).
 * Semantic actions run in the same order as bison's reductions, so an
 * invalid term is reported before a syntax error that follows it, as perf
 * does. A syntax error is reported at the lookahead token's last_column.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "events/lexer.h"
#include "events/pmu.h"

struct parser {
	struct tok_list toks;
	int pos;
	struct parse_state *st;
};

static const struct tok *cur(const struct parser *p)
{
	return &p->toks.toks[p->pos];
}

static const struct tok *peek(const struct parser *p, int ahead)
{
	int i = p->pos + ahead;

	if (i >= p->toks.nr)
		i = p->toks.nr - 1;
	return &p->toks.toks[i];
}

static void advance(struct parser *p)
{
	if (p->pos < p->toks.nr - 1)
		p->pos++;
}

static int syntax_error(struct parser *p)
{
	if (p->st)
		parse_error_add(p->st->err, cur(p)->last, xstrdup("parser error"), NULL);
	return -EINVAL;
}

static bool accept(struct parser *p, int type)
{
	if (cur(p)->type != type)
		return false;
	advance(p);
	return true;
}

static int parse_term(struct parser *p, struct term_list *out)
{
	const struct tok *t = cur(p);
	struct term term = { 0 };

	term.err_term = t->first;
	switch (t->type) {
	case T_RAW:
		term.type = TERM_CONFIG;
		term.config = "config";
		term.num = t->num;
		advance(p);
		break;
	case T_NAME:
	case T_TERM:
		if (t->type == T_NAME) {
			term.type = TERM_USER;
			term.config = t->str;
		} else {
			term.type = (int)t->num;
		}
		advance(p);
		if (!accept(p, '=')) {
			term.num = 1;
			term.no_value = true;
			if (t->type == T_TERM)
				term.config = (char *)term_type_name(term.type);
			break;
		}
		term.err_val = cur(p)->first;
		if (cur(p)->type == T_NAME) {
			term.is_str = true;
			term.str = cur(p)->str;
		} else if (cur(p)->type == T_VALUE) {
			term.num = cur(p)->num;
			/* perf names a numeric built-in term (period=, not "(null)") */
			if (t->type == T_TERM)
				term.config = (char *)term_type_name(term.type);
		} else {
			return syntax_error(p);
		}
		advance(p);
		break;
	case T_DRV_CFG_TERM:
		term.type = TERM_DRV_CFG;
		term.config = t->str;
		term.is_str = true;
		term.str = t->str;
		advance(p);
		break;
	default:
		return syntax_error(p);
	}
	term_list_add(out, &term);
	return 0;
}

/* event_config: term (',' term)* */
static int parse_event_config(struct parser *p, struct term_list *out)
{
	out->terms = NULL;
	out->nr = 0;
	for (;;) {
		if (parse_term(p, out)) {
			term_list_free(out);
			return -EINVAL;
		}
		if (!accept(p, ','))
			return 0;
	}
}

/*
 * '/' event_config '/' or '/' '/'. *has_terms tells them apart (perf passes
 * NULL for "//").
 */
static int parse_slash_config(struct parser *p, struct term_list *terms, bool *has_terms)
{
	*has_terms = false;
	terms->terms = NULL;
	terms->nr = 0;
	if (!accept(p, '/'))
		return syntax_error(p);
	if (accept(p, '/'))
		return 0;
	if (parse_event_config(p, terms))
		return -EINVAL;
	if (!accept(p, '/')) {
		term_list_free(terms);
		return syntax_error(p);
	}
	*has_terms = true;
	return 0;
}

/* opt_event_config: nothing, "//" or "/terms/" */
static int parse_opt_config(struct parser *p, struct term_list *terms, bool *has_terms)
{
	*has_terms = false;
	terms->terms = NULL;
	terms->nr = 0;
	if (cur(p)->type != '/')
		return 0;
	return parse_slash_config(p, terms, has_terms);
}

static void sep_dc(struct parser *p)
{
	accept(p, ':');
}

static int finish(struct term_list *terms, int ret)
{
	term_list_free(terms);
	return ret ? -EINVAL : 0;
}

static int parse_pmu_event(struct parser *p)
{
	char *name = cur(p)->str;
	struct term_list terms;
	bool has;

	advance(p);
	if (parse_slash_config(p, &terms, &has))
		return -EINVAL;
	return finish(&terms, add_pmu_glob(p->st, name, has ? &terms : NULL));
}

static int parse_tracepoint(struct parser *p)
{
	struct term_list terms;
	char *sys, *event;
	bool has;
	int ret;

	if (peek(p, 1)->type == '-') {
		/* PE_NAME '-' PE_NAME ':' PE_NAME */
		const char *a = cur(p)->str;

		advance(p);
		advance(p);
		if (cur(p)->type != T_NAME)
			return syntax_error(p);
		sys = xasprintf("%s-%s", a, cur(p)->str);
	} else {
		sys = xstrdup(cur(p)->str);
	}
	advance(p);
	if (!accept(p, ':') || cur(p)->type != T_NAME) {
		free(sys);
		return syntax_error(p);
	}
	event = cur(p)->str;
	advance(p);
	if (parse_opt_config(p, &terms, &has)) {
		free(sys);
		return -EINVAL;
	}
	ret = add_tracepoint(p->st, sys, event, has ? &terms : NULL);
	free(sys);
	if (ret)
		return finish(&terms, ret);
	sep_dc(p);
	return finish(&terms, 0);
}

static int parse_symbol(struct parser *p)
{
	uint64_t v = cur(p)->num;
	bool tool = cur(p)->type == T_VALUE_SYM_TOOL;
	struct term_list terms = { NULL, 0 };
	int ret;

	advance(p);
	if (cur(p)->type == '/' && !tool && peek(p, 1)->type != '/') {
		bool has;

		if (parse_slash_config(p, &terms, &has))
			return -EINVAL;
		ret = add_numeric(p->st, (uint32_t)(v >> 16), v & 0xff, &terms);
		return finish(&terms, ret);
	}
	/* sep_slash_slash_dc: "//", ':' or nothing */
	if (cur(p)->type == '/') {
		advance(p);
		if (!accept(p, '/'))
			return syntax_error(p);
	} else {
		sep_dc(p);
	}
	if (tool)
		return add_tool(p->st, (enum tool_event)v);
	return add_numeric(p->st, (uint32_t)(v >> 16), v & 0xff, NULL);
}

static int parse_cache(struct parser *p)
{
	const char *type = cur(p)->str, *op1 = NULL, *op2 = NULL;
	struct term_list terms;
	bool has;
	int ret;

	advance(p);
	if (accept(p, '-')) {
		if (cur(p)->type != T_NAME_CACHE_OP_RESULT)
			return syntax_error(p);
		op1 = cur(p)->str;
		advance(p);
		if (accept(p, '-')) {
			if (cur(p)->type != T_NAME_CACHE_OP_RESULT)
				return syntax_error(p);
			op2 = cur(p)->str;
			advance(p);
		}
	}
	if (parse_opt_config(p, &terms, &has))
		return -EINVAL;
	ret = add_cache(p->st, type, op1, op2, has ? &terms : NULL);
	if (!ret)
		sep_dc(p);
	return finish(&terms, ret);
}

static int parse_mem(struct parser *p)
{
	uint64_t addr, len = 0;
	const char *bp = NULL;

	advance(p);
	if (cur(p)->type != T_VALUE)
		return syntax_error(p);
	addr = cur(p)->num;
	advance(p);
	if (accept(p, '/')) {
		if (cur(p)->type != T_VALUE)
			return syntax_error(p);
		len = cur(p)->num;
		advance(p);
	}
	if (cur(p)->type == ':' && peek(p, 1)->type == T_MODIFIER_BP) {
		advance(p);
		bp = cur(p)->str;
		advance(p);
	}
	sep_dc(p);
	return add_breakpoint(p->st, addr, bp, len);
}

static int parse_numeric(struct parser *p, uint32_t type, uint64_t config)
{
	struct term_list terms;
	bool has;
	int ret;

	if (parse_opt_config(p, &terms, &has))
		return -EINVAL;
	ret = add_numeric(p->st, type, config, has ? &terms : NULL);
	if (!ret)
		sep_dc(p);
	return finish(&terms, ret);
}

static int parse_kernel_pmu_event(struct parser *p)
{
	const char *name = cur(p)->str;
	struct term_list terms = { NULL, 0 };
	bool has = false;
	char *full;
	int ret;

	if (cur(p)->type == T_PMU_EVENT_PRE) {
		/* PE_PMU_EVENT_PRE '-' PE_PMU_EVENT_SUF ['-' PE_PMU_EVENT_SUF2] */
		advance(p);
		if (!accept(p, '-') || cur(p)->type != T_PMU_EVENT_SUF)
			return syntax_error(p);
		full = xasprintf("%s-%s", name, cur(p)->str);
		advance(p);
		if (cur(p)->type == '-' && peek(p, 1)->type == T_PMU_EVENT_SUF2) {
			char *longer = xasprintf("%s-%s", full, peek(p, 1)->str);

			free(full);
			full = longer;
			advance(p);
			advance(p);
		}
		sep_dc(p);
		ret = add_multi_pmu_alias(p->st, full, NULL);
		free(full);
		return ret ? -EINVAL : 0;
	}
	advance(p);
	if (cur(p)->type == '/') {
		if (parse_slash_config(p, &terms, &has))
			return -EINVAL;
	} else {
		sep_dc(p);
	}
	ret = add_multi_pmu_alias(p->st, name, has ? &terms : NULL);
	return finish(&terms, ret);
}

static int parse_event_def(struct parser *p)
{
	const struct tok *t = cur(p);
	uint64_t a;

	switch (t->type) {
	case T_NAME:
		switch (peek(p, 1)->type) {
		case '/':
			return parse_pmu_event(p);
		case ':':
		case '-':
			return parse_tracepoint(p);
		default:
			advance(p);
			return syntax_error(p);
		}
	case T_KERNEL_PMU_EVENT:
	case T_PMU_EVENT_PRE:
		return parse_kernel_pmu_event(p);
	case T_VALUE_SYM_HW:
	case T_VALUE_SYM_SW:
	case T_VALUE_SYM_TOOL:
		return parse_symbol(p);
	case T_NAME_CACHE_TYPE:
		return parse_cache(p);
	case T_PREFIX_MEM:
		return parse_mem(p);
	case T_RAW:
		a = t->num;
		advance(p);
		return parse_numeric(p, PERF_TYPE_RAW, a);
	case T_VALUE:
		a = t->num;
		advance(p);
		if (!accept(p, ':') || cur(p)->type != T_VALUE)
			return syntax_error(p);
		{
			uint64_t config = cur(p)->num;

			advance(p);
			return parse_numeric(p, (uint32_t)a, config);
		}
	default:
		return syntax_error(p);
	}
}

/* event: [PE_EVENT_NAME] event_def [PE_MODIFIER_EVENT] */
static int parse_event(struct parser *p)
{
	const struct tok *name = NULL;
	int start = p->st->nr;

	if (cur(p)->type == T_EVENT_NAME) {
		name = cur(p);
		advance(p);
	}
	if (parse_event_def(p))
		return -EINVAL;
	for (int i = start; name && i < p->st->nr; i++)
		if (!p->st->evsels[i].name)
			p->st->evsels[i].name = xstrdup(name->str);
	if (cur(p)->type == T_MODIFIER_EVENT) {
		if (apply_modifier(p->st->evsels + start, p->st->nr - start, cur(p)->str, false)) {
			parse_error_add(p->st->err, cur(p)->first, xstrdup("Bad modifier"), NULL);
			return -EINVAL;
		}
		advance(p);
	}
	return 0;
}

/* x86's perf metrics: the core PMU (type PERF_TYPE_RAW), among those loaded, has "slots". */
static bool have_perf_metrics(const struct parse_state *st)
{
#if defined(__x86_64__) || defined(__i386__)
	for (int i = 0; i < st->pmus->nr; i++) {
		const struct pmu *pmu = st->pmus->list[i];

		if (pmu->type != PERF_TYPE_RAW)
			continue;
		for (int j = 0; j < pmu->nr_aliases; j++)
			if (!strcmp(pmu->aliases[j].name, "slots"))
				return true;
	}
#endif
	return false;
}

/*
 * perf's x86 group leader: where the core PMU has perf metrics, a group with a slots event and a
 * topdown event of the cpu PMUs is led by the (first) slots event, moved to the group's front:
 * the kernel only reads topdown metrics through a slots leader.
 */
static void topdown_slots_first(struct parse_state *st, int start)
{
	int slots = -1, i;
	bool topdown = false;
	struct evsel moved;

	if (!have_perf_metrics(st))
		return;
	for (i = start; i < st->nr; i++) {
		const struct evsel *e = &st->evsels[i];

		if (!e->pmu_name || strncmp(e->pmu_name, "cpu", 3) || !e->name)
			continue;
		if (strcasestr(e->name, "slots")) {
			slots = i;
			if (slots == start)
				return;
		}
		if (strcasestr(e->name, "topdown"))
			topdown = true;
		if (slots >= 0 && topdown)
			break;
	}
	if (slots < 0 || !topdown)
		return;
	moved = st->evsels[slots];
	memmove(&st->evsels[start + 1], &st->evsels[start],
		(slots - start) * sizeof(st->evsels[0]));
	st->evsels[start] = moved;
	for (i = start; i <= slots; i++)
		st->evsels[i].idx = st->base_idx + i;
}

static void set_leader(struct parse_state *st, int start, const char *group_name)
{
	struct evsel *leader;
	int n = st->nr - start;

	if (n <= 0) {
		fprintf(stderr, "WARNING: failed to set leader: empty list");
		return;
	}
	topdown_slots_first(st, start);
	leader = &st->evsels[start];
	for (int i = start; i < st->nr; i++) {
		st->evsels[i].leader_idx = leader->idx;
		st->evsels[i].nr_members = 0;
		st->evsels[i].in_group = n > 1;
	}
	leader->nr_members = n;
	leader->group_name = group_name ? xstrdup(group_name) : NULL;
}

/* group: [PE_NAME] '{' event (',' event)* '}' [':' PE_MODIFIER_EVENT] */
static int parse_group(struct parser *p)
{
	const char *group_name = NULL;
	int start = p->st->nr;

	if (cur(p)->type == T_NAME) {
		group_name = cur(p)->str;
		advance(p);
	}
	advance(p);	/* '{' */
	for (;;) {
		if (parse_event(p))
			return -EINVAL;
		if (!accept(p, ','))
			break;
	}
	if (!accept(p, '}'))
		return syntax_error(p);
	set_leader(p->st, start, group_name);
	if (accept(p, ':')) {
		if (cur(p)->type != T_MODIFIER_EVENT)
			return syntax_error(p);
		if (apply_modifier(p->st->evsels + start, p->st->nr - start, cur(p)->str, true)) {
			parse_error_add(p->st->err, cur(p)->first, xstrdup("Bad modifier"), NULL);
			return -EINVAL;
		}
		advance(p);
	}
	return 0;
}

int parse_event_string(struct parse_state *st, const char *str)
{
	struct parser p = { .st = st };
	int ret = 0;

	lex_events(str, false, pmu_alias_token_class, st->pmus, &p.toks);
	if (p.toks.stray >= 0) {
		parse_error_add(st->err, p.toks.stray, xstrdup("unbalanced group brace"), NULL);
		tok_list_free(&p.toks);
		return -EINVAL;
	}
	for (;;) {
		bool group = cur(&p)->type == '{' ||
			     (cur(&p)->type == T_NAME && peek(&p, 1)->type == '{');

		ret = group ? parse_group(&p) : parse_event(&p);
		if (ret)
			break;
		if (accept(&p, ','))
			continue;
		if (cur(&p)->type != T_EOF)
			ret = syntax_error(&p);
		break;
	}
	tok_list_free(&p.toks);
	return ret;
}

int parse_terms_string(const char *str, struct term_list *out)
{
	struct parser p = { .st = NULL };
	int ret;

	lex_events(str, true, NULL, NULL, &p.toks);
	ret = parse_event_config(&p, out);
	if (!ret && cur(&p)->type != T_EOF) {
		term_list_free(out);
		ret = -EINVAL;
	}
	tok_list_free(&p.toks);
	return ret;
}
