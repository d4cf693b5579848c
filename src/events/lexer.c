// SPDX-License-Identifier: GPL-2.0-only
/*
 * A hand-written scanner that behaves like perf 6.1's flex scanner. Flex
 * picks the longest match and, between equally long matches, the rule that
 * comes first in the file; each rule below reports its match length and the
 * scanner keeps that order. Every matched rule moves the location the way
 * perf's YY_USER_ACTION does (last_column takes the previous first_column),
 * including rules that return no token, so error columns come out as perf's.
 */
#include "events/lexer.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "events/evlist.h"
#include "events/parse_internal.h"

enum lex_state { ST_INITIAL, ST_EVENT, ST_CONFIG, ST_MEM, ST_ARRAY };

struct scanner {
	const char *s;
	int len;
	int pos;
	enum lex_state state;
	int column;	/* flex yycolumn */
	int first;	/* yylloc.first_column */
	int last;	/* yylloc.last_column */
	alias_class_fn classify;
	void *priv;
	struct tok_list *out;
	/*
	 * Memos that keep the <event> rules linear: each event start looks ahead for a '}' and
	 * for a bpf object's suffix, and such lookaheads from successive starts cover the same
	 * text ("{{{...", "a.o.o.o..."). close_from..close_at holds no '}' (close_at: the first
	 * one at or after close_from, or len); suffix_from..suffix_end is a run of [a-zA-Z0-9._].
	 */
	int close_from, close_at;
	int suffix_from, suffix_end;
};

/*
 * flex echoes a character that fits no rule (an unbalanced '{') to stdout
 * and perf then counts the rest as a plain list. bperf keeps stdout clean
 * and remembers the first such character so the parser can reject it.
 */
static void note_stray(struct scanner *sc, int pos)
{
	if (sc->out->stray < 0)
		sc->out->stray = pos;
}

struct literal {
	const char *text;
	int type;
	uint64_t num;
};

#define SYM(t, c) ((uint64_t)(t) << 16 | (c))

static const struct literal symbols[] = {
	{ "cpu-cycles", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) },
	{ "cycles", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES) },
	{ "stalled-cycles-frontend", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND) },
	{ "idle-cycles-frontend", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND) },
	{ "stalled-cycles-backend", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND) },
	{ "idle-cycles-backend", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND) },
	{ "instructions", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS) },
	{ "cache-references", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES) },
	{ "cache-misses", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES) },
	{ "branch-instructions", T_VALUE_SYM_HW,
	  SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS) },
	{ "branches", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS) },
	{ "branch-misses", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES) },
	{ "bus-cycles", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES) },
	{ "ref-cycles", T_VALUE_SYM_HW, SYM(PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES) },
	{ "cpu-clock", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK) },
	{ "task-clock", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) },
	{ "page-faults", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS) },
	{ "faults", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS) },
	{ "minor-faults", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN) },
	{ "major-faults", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ) },
	{ "context-switches", T_VALUE_SYM_SW,
	  SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES) },
	{ "cs", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES) },
	{ "cpu-migrations", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS) },
	{ "migrations", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS) },
	{ "alignment-faults", T_VALUE_SYM_SW,
	  SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS) },
	{ "emulation-faults", T_VALUE_SYM_SW,
	  SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS) },
	{ "dummy", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY) },
	{ "duration_time", T_VALUE_SYM_TOOL, TOOL_DURATION_TIME },
	{ "user_time", T_VALUE_SYM_TOOL, TOOL_USER_TIME },
	{ "system_time", T_VALUE_SYM_TOOL, TOOL_SYSTEM_TIME },
	{ "bpf-output", T_VALUE_SYM_SW, SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT) },
	{ "cgroup-switches", T_VALUE_SYM_SW,
	  SYM(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES) },
};

/* Kernel PMU events perf names in its scanner, since they clash with other rules. */
static const char *const kernel_pmu_literals[] = {
	"cycles-ct", "cycles-t", "mem-loads", "mem-loads-aux", "mem-stores",
};
static const char *const kernel_pmu_prefixes[] = { "topdown-", "tx-capacity-", "el-capacity-" };

static const char *const cache_types[] = {
	"L1-dcache", "l1-d", "l1d", "L1-data", "L1-icache", "l1-i", "l1i", "L1-instruction",
	"LLC", "L2", "dTLB", "d-tlb", "Data-TLB", "iTLB", "i-tlb", "Instruction-TLB",
	"branch", "branches", "bpu", "btb", "bpc", "node",
};

static const char *const cache_op_results[] = {
	"load", "loads", "read", "store", "stores", "write", "prefetch", "prefetches",
	"speculative-read", "speculative-load", "refs", "Reference", "ops", "access",
	"misses", "miss",
};

static const struct literal term_keywords[] = {
	{ "config", T_TERM, TERM_CONFIG },
	{ "config1", T_TERM, TERM_CONFIG1 },
	{ "config2", T_TERM, TERM_CONFIG2 },
	{ "name", T_TERM, TERM_NAME },
	{ "period", T_TERM, TERM_SAMPLE_PERIOD },
	{ "freq", T_TERM, TERM_SAMPLE_FREQ },
	{ "branch_type", T_TERM, TERM_BRANCH_SAMPLE_TYPE },
	{ "time", T_TERM, TERM_TIME },
	{ "call-graph", T_TERM, TERM_CALLGRAPH },
	{ "stack-size", T_TERM, TERM_STACKSIZE },
	{ "max-stack", T_TERM, TERM_MAX_STACK },
	{ "nr", T_TERM, TERM_MAX_EVENTS },
	{ "inherit", T_TERM, TERM_INHERIT },
	{ "no-inherit", T_TERM, TERM_NOINHERIT },
	{ "overwrite", T_TERM, TERM_OVERWRITE },
	{ "no-overwrite", T_TERM, TERM_NOOVERWRITE },
	{ "percore", T_TERM, TERM_PERCORE },
	{ "aux-output", T_TERM, TERM_AUX_OUTPUT },
	{ "aux-sample-size", T_TERM, TERM_AUX_SAMPLE_SIZE },
	{ "metric-id", T_TERM, TERM_METRIC_ID },
};

/* The best match so far: flex keeps the longest, and the earliest rule on a tie. */
struct match {
	int len;
	int rule;
	int type;
	uint64_t num;
};

static void consider(struct match *m, int len, int rule, int type, uint64_t num)
{
	if (len > m->len) {
		m->len = len;
		m->rule = rule;
		m->type = type;
		m->num = num;
	}
}

static bool at_end(const struct scanner *sc, int i)
{
	return i >= sc->len;
}

static int literal_len(const struct scanner *sc, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(sc->len - sc->pos) >= n && !memcmp(sc->s + sc->pos, lit, n))
		return (int)n;
	return 0;
}

static int span(const struct scanner *sc, int from, const char *reject)
{
	int i = from;

	while (!at_end(sc, i) && !strchr(reject, sc->s[i]))
		i++;
	return i - from;
}

/* The first '}' at or after i (len if none). */
static int next_close(struct scanner *sc, int i)
{
	if (i < sc->close_from || i > sc->close_at) {
		sc->close_from = i;
		sc->close_at = i + span(sc, i, "}");
	}
	return sc->close_at;
}

static bool is_hex(char c)
{
	return isxdigit((unsigned char)c);
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int match_hex_run(const struct scanner *sc, int from)
{
	int i = from;

	while (!at_end(sc, i) && is_hex(sc->s[i]))
		i++;
	return i - from;
}

/* r{num_raw_hex} and r0x{num_raw_hex} */
static int match_raw(const struct scanner *sc, bool with_0x)
{
	int p = sc->pos, n;

	if (at_end(sc, p) || sc->s[p] != 'r')
		return 0;
	if (with_0x) {
		if (sc->len - p < 3 || sc->s[p + 1] != '0' || sc->s[p + 2] != 'x')
			return 0;
		n = match_hex_run(sc, p + 3);
		return n ? 3 + n : 0;
	}
	n = match_hex_run(sc, p + 1);
	return n ? 1 + n : 0;
}

static int match_dec(const struct scanner *sc)
{
	int i = sc->pos;

	while (!at_end(sc, i) && is_digit(sc->s[i]))
		i++;
	return i - sc->pos;
}

static int match_hexnum(const struct scanner *sc)
{
	int p = sc->pos, n;

	if (sc->len - p < 3 || sc->s[p] != '0' || sc->s[p + 1] != 'x')
		return 0;
	n = match_hex_run(sc, p + 2);
	return n ? 2 + n : 0;
}

static int match_class_run(const struct scanner *sc, int from, bool (*first)(char),
			   bool (*rest)(char))
{
	int i = from;

	if (at_end(sc, i) || !first(sc->s[i]))
		return 0;
	i++;
	while (!at_end(sc, i) && rest(sc->s[i]))
		i++;
	return i - from;
}

static bool name_first(char c)
{
	return is_alpha(c) || c == '_' || c == '*' || c == '?' || c == '[' || c == ']';
}

static bool name_rest(char c)
{
	return name_first(c) || is_digit(c) || c == '.' || c == '!';
}

static bool minus_first(char c)
{
	return is_alpha(c) || c == '_' || c == '*' || c == '?';
}

static bool minus_rest(char c)
{
	return minus_first(c) || is_digit(c) || c == '-' || c == '.' || c == ':';
}

static bool tag_rest(char c)
{
	return name_first(c) || is_digit(c) || c == '-' || c == ',' || c == '.' || c == ':' ||
	       c == '=';
}

static bool bpf_suffix_char(char c)
{
	return is_alpha(c) || is_digit(c) || c == '.' || c == '_';
}

/* The end of the [a-zA-Z0-9._]* run starting at i. */
static int bpf_suffix_end(struct scanner *sc, int i)
{
	if (i < sc->suffix_from || i > sc->suffix_end) {
		sc->suffix_from = i;
		sc->suffix_end = i;
		while (!at_end(sc, sc->suffix_end) && bpf_suffix_char(sc->s[sc->suffix_end]))
			sc->suffix_end++;
	}
	return sc->suffix_end;
}

static bool modifier_char(char c)
{
	return c && strchr("ukhpPGHSDIWeb", c);
}

static bool drv_first(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '.';
}

static bool drv_value(char c)
{
	return drv_first(c) || c == '*' || c == '?' || c == ':';
}

/* {name_tag}: a quoted name */
static int match_name_tag(const struct scanner *sc)
{
	int p = sc->pos, i;

	if (at_end(sc, p) || sc->s[p] != '\'' || at_end(sc, p + 1) || !name_first(sc->s[p + 1]))
		return 0;
	i = p + 2;
	while (!at_end(sc, i) && tag_rest(sc->s[i]))
		i++;
	if (at_end(sc, i) || sc->s[i] != '\'')
		return 0;
	return i + 1 - p;
}

/* !{drv_cfg_term} */
static int match_drv_cfg(const struct scanner *sc)
{
	int p = sc->pos, i, n;

	if (at_end(sc, p) || sc->s[p] != '!')
		return 0;
	n = match_class_run(sc, p + 1, drv_first, drv_first);
	if (!n)
		return 0;
	i = p + 1 + n;
	if (!at_end(sc, i) && sc->s[i] == '=') {
		int v = match_class_run(sc, i + 1, drv_value, drv_value);

		if (v)
			i += 1 + v;
	}
	return i - p;
}

static int match_kernel_pmu(const struct scanner *sc)
{
	int best = 0;

	for (size_t i = 0; i < ARRAY_SIZE(kernel_pmu_literals); i++) {
		int n = literal_len(sc, kernel_pmu_literals[i]);

		if (n > best)
			best = n;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kernel_pmu_prefixes); i++) {
		int n = literal_len(sc, kernel_pmu_prefixes[i]), j;

		if (!n)
			continue;
		j = sc->pos + n;
		while (!at_end(sc, j) && ((sc->s[j] >= 'a' && sc->s[j] <= 'z') || sc->s[j] == '-'))
			j++;
		if (j - sc->pos > n && j - sc->pos > best)
			best = j - sc->pos;
	}
	return best;
}

static int match_literal_set(const struct scanner *sc, const char *const *set, size_t nr)
{
	int best = 0;

	for (size_t i = 0; i < nr; i++) {
		int n = literal_len(sc, set[i]);

		if (n > best)
			best = n;
	}
	return best;
}

static void user_action(struct scanner *sc, int len)
{
	sc->last = sc->first;
	sc->first = sc->column;
	sc->column += len;
}

static void emit(struct scanner *sc, int type, const char *text, int len, uint64_t num)
{
	struct tok_list *out = sc->out;
	struct tok *t;

	out->toks = xgrow(out->toks, out->nr, sizeof(*out->toks));
	t = &out->toks[out->nr++];
	t->type = type;
	t->str = text ? strndup(text, len) : NULL;
	if (text && !t->str)
		t->str = xstrdup("");
	t->num = num;
	t->first = sc->first;
	t->last = sc->last;
}

/*
 * perf's __value(): type, or T_ERROR when the number does not fit in 64 bits (strtoull's
 * ERANGE; leading zeros are fine).
 */
static int number_token(const char *text, int len, int base, int type, uint64_t *num)
{
	char *buf = xzalloc(len + 1);
	int err;

	memcpy(buf, text, len);
	errno = 0;
	*num = strtoull(buf, NULL, base);
	err = errno;
	free(buf);
	return err ? T_ERROR : type;
}

/* The <event> state: grab the whole event's text so the parser can name it. */
static bool scan_event_state(struct scanner *sc)
{
	const char *s = sc->s;
	int p = sc->pos, i, n;
	struct match m = { 0, 0, 0, 0 };

	if (at_end(sc, p)) {
		sc->state = ST_INITIAL;
		return true;
	}
	/* group: [^,{}/]*[{][^}]*[}][^,{}/]* */
	i = p + span(sc, p, ",{}/");
	if (!at_end(sc, i) && s[i] == '{') {
		i = next_close(sc, i + 1);
		if (!at_end(sc, i)) {
			i++;
			i += span(sc, i, ",{}/");
			consider(&m, i - p, 1, 0, 0);
		}
	}
	/* event_pmu: [^,{}/]+[/][^/]*[/][^,{}/]* */
	n = span(sc, p, ",{}/");
	i = p + n;
	if (n && !at_end(sc, i) && s[i] == '/') {
		i++;
		i += span(sc, i, "/");
		if (!at_end(sc, i)) {
			i++;
			i += span(sc, i, ",{}/");
			consider(&m, i - p, 2, T_EVENT_NAME, 0);
		}
	}
	/* bpf_object and bpf_source: [^,{}]+\.(o|bpf|c)[a-zA-Z0-9._]* */
	n = span(sc, p, ",{}");
	for (int k = p + 1; k < p + n; k++) {
		int e;

		if (s[k] != '.')
			continue;
		if (k + 1 < sc->len && s[k + 1] == 'o')
			e = k + 2;
		else if (k + 3 < sc->len && !strncmp(s + k + 1, "bpf", 3))
			e = k + 4;
		else if (k + 1 < sc->len && s[k + 1] == 'c')
			e = k + 2;
		else
			continue;
		consider(&m, bpf_suffix_end(sc, e) - p, 3, T_EVENT_NAME, 0);
	}
	n = span(sc, p, ",{}/");
	if (n)
		consider(&m, n, 5, T_EVENT_NAME, 0);
	if (s[p] == ',')
		consider(&m, 1, 6, ',', 0);

	if (!m.len) {
		/* flex's default rule echoes the character */
		user_action(sc, 1);
		note_stray(sc, p);
		sc->pos++;
		return false;
	}
	user_action(sc, m.len);
	if (m.rule == 1) {
		sc->column -= m.len;
		sc->state = ST_INITIAL;
		return false;
	}
	if (m.type == ',') {
		emit(sc, ',', NULL, 0, 0);
		sc->pos++;
		return false;
	}
	emit(sc, T_EVENT_NAME, s + p, m.len, 0);
	sc->column -= m.len;
	sc->state = ST_INITIAL;
	return false;
}

static bool scan_mem_state(struct scanner *sc)
{
	const char *s = sc->s;
	int p = sc->pos, n;
	struct match m = { 0, 0, 0, 0 };
	uint64_t num = 0;
	int type;

	if (at_end(sc, p)) {
		sc->state = ST_INITIAL;
		return true;
	}
	n = 0;
	while (n < 3 && !at_end(sc, p + n) && strchr("rwx", s[p + n]))
		n++;
	if (n)
		consider(&m, n, 1, T_MODIFIER_BP, 0);
	if (s[p] == ':')
		consider(&m, 1, 2, ':', 0);
	if (s[p] == '/')
		consider(&m, 1, 3, '/', 0);
	consider(&m, match_dec(sc), 4, T_VALUE, 10);
	consider(&m, match_hexnum(sc), 5, T_VALUE, 16);
	if (!m.len) {
		user_action(sc, 1);
		if (s[p] == '\n') {
			note_stray(sc, p);
			sc->pos++;
			return false;
		}
		/* ". { unput(*yytext); BEGIN(INITIAL); }": the column is not given back */
		sc->state = ST_INITIAL;
		return false;
	}
	user_action(sc, m.len);
	type = m.type;
	if (type == T_VALUE)
		type = number_token(s + p, m.len, (int)m.num, T_VALUE, &num);
	emit(sc, type, s + p, m.len, num);
	sc->pos += m.len;
	return false;
}

static bool scan_array_state(struct scanner *sc)
{
	const char *s = sc->s;
	int p = sc->pos;
	struct match m = { 0, 0, 0, 0 };
	uint64_t num = 0;
	int type;

	if (at_end(sc, p))
		return true;
	if (s[p] == ']')
		consider(&m, 1, 1, ']', 0);
	consider(&m, match_dec(sc), 2, T_VALUE, 10);
	consider(&m, match_hexnum(sc), 3, T_VALUE, 16);
	if (s[p] == ',')
		consider(&m, 1, 4, ',', 0);
	if (literal_len(sc, "..."))
		consider(&m, 3, 5, T_ARRAY_RANGE, 0);
	if (!m.len) {
		user_action(sc, 1);
		note_stray(sc, p);
		sc->pos++;
		return false;
	}
	user_action(sc, m.len);
	type = m.type;
	if (type == T_VALUE)
		type = number_token(s + p, m.len, (int)m.num, T_VALUE, &num);
	if (type == ']')
		sc->state = ST_CONFIG;
	emit(sc, type, s + p, m.len, num);
	sc->pos += m.len;
	return false;
}

/* The INITIAL state, and the inclusive <config> state (which adds its own rules first). */
/* The rules of perf's config state (inside "pmu/.../"), which come first there. */
static void consider_config_rules(struct scanner *sc, struct match *m)
{
	const char *s = sc->s;
	int p = sc->pos;

	for (size_t i = 0; i < ARRAY_SIZE(term_keywords); i++)
		consider(m, literal_len(sc, term_keywords[i].text), 1, T_TERM, term_keywords[i].num);
	consider(m, match_raw(sc, false), 2, T_RAW, 0);
	consider(m, match_raw(sc, true), 3, T_RAW, 0);
	if (s[p] == ',')
		consider(m, 1, 4, ',', 0);
	if (s[p] == '/')
		consider(m, 1, 5, '/', 0);
	consider(m, match_class_run(sc, p, minus_first, minus_rest), 6, T_NAME, 0);
	consider(m, literal_len(sc, "[all]"), 7, T_ARRAY_ALL, 0);
	if (s[p] == '[')
		consider(m, 1, 8, '[', 0);
	consider(m, match_drv_cfg(sc), 9, T_DRV_CFG_TERM, 0);
}

/* The rules of perf's initial state, in perf's order (flex takes the longest, then the first). */
static void consider_initial_rules(struct scanner *sc, struct match *m)
{
	const char *s = sc->s;
	int p = sc->pos, n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(symbols); i++)
		consider(m, literal_len(sc, symbols[i].text), 20, symbols[i].type, symbols[i].num);
	consider(m, match_kernel_pmu(sc), 21, T_KERNEL_PMU_EVENT, 0);
	consider(m, match_literal_set(sc, cache_types, ARRAY_SIZE(cache_types)), 22,
		 T_NAME_CACHE_TYPE, 0);
	consider(m, match_literal_set(sc, cache_op_results, ARRAY_SIZE(cache_op_results)), 23,
		 T_NAME_CACHE_OP_RESULT, 0);
	consider(m, literal_len(sc, "mem:"), 24, T_PREFIX_MEM, 0);
	consider(m, match_raw(sc, false), 25, T_RAW, 0);
	consider(m, match_dec(sc), 27, T_VALUE, 10);
	consider(m, match_hexnum(sc), 28, T_VALUE, 16);
	while (!at_end(sc, p + n) && modifier_char(s[p + n]))
		n++;
	consider(m, n, 29, T_MODIFIER_EVENT, 0);
	consider(m, match_class_run(sc, p, name_first, name_rest), 30, T_NAME, 1);
	consider(m, match_name_tag(sc), 31, T_NAME, 0);
	if (strchr("/-,:{}=", s[p]))
		consider(m, 1, 32, s[p], 0);
	if (s[p] != '\n')
		consider(m, 1, 40, 0, 0);	/* ".": ignored */
}

/* The state a token leads to from the initial (or config) state. */
static void initial_next_state(struct scanner *sc, int type, bool config)
{
	switch (type) {
	case T_PREFIX_MEM:
		sc->state = ST_MEM;
		break;
	case '/':
		sc->state = config ? ST_INITIAL : ST_CONFIG;
		break;
	case ',':
		if (!config)
			sc->state = ST_EVENT;
		break;
	case '{':
		sc->state = ST_EVENT;
		break;
	case '[':
		sc->state = ST_ARRAY;
		break;
	default:
		break;
	}
}

static bool scan_initial_state(struct scanner *sc)
{
	const char *s = sc->s;
	int p = sc->pos;
	bool config = sc->state == ST_CONFIG;
	struct match m = { 0, 0, 0, 0 };
	uint64_t num = 0;
	int type;

	if (at_end(sc, p))
		return true;
	if (config)
		consider_config_rules(sc, &m);
	consider_initial_rules(sc, &m);
	if (!m.len) {
		user_action(sc, 1);	/* "\n": ignored */
		sc->pos++;
		return false;
	}
	user_action(sc, m.len);
	type = m.type;
	if (m.rule == 40) {
		sc->pos++;
		return false;
	}
	if (type == T_VALUE)
		type = number_token(s + p, m.len, (int)m.num, T_VALUE, &num);
	else if (type == T_RAW)	/* perf's raw(): the hex after 'r' ("0x" included) */
		type = number_token(s + p + 1, m.len - 1, 16, T_RAW, &num);
	else
		num = m.num;
	if (m.rule == 30) {
		char *text = strndup(s + p, m.len);

		type = sc->classify ? sc->classify(text, sc->priv) : T_NAME;
		free(text);
		num = 0;
	}
	initial_next_state(sc, type, config);
	emit(sc, type, s + p, m.len, num);
	sc->pos += m.len;
	return false;
}

void lex_events(const char *str, bool terms_only, alias_class_fn classify, void *priv,
		struct tok_list *out)
{
	struct scanner sc = {
		.s = str,
		.len = (int)strlen(str),
		.state = terms_only ? ST_CONFIG : ST_EVENT,
		/* bison starts its locations at column 1; the first action moves it to last */
		.first = 1,
		.last = 1,
		.classify = classify,
		.priv = priv,
		.out = out,
		.close_from = -1,
		.close_at = -1,
		.suffix_from = -1,
		.suffix_end = -1,
	};
	bool done = false;

	out->toks = NULL;
	out->nr = 0;
	out->stray = -1;
	while (!done) {
		switch (sc.state) {
		case ST_EVENT:
			done = scan_event_state(&sc);
			if (done) {
				/* <<EOF>> in <event> goes back to INITIAL, which then ends */
				done = at_end(&sc, sc.pos);
			}
			break;
		case ST_MEM:
			done = scan_mem_state(&sc);
			break;
		case ST_ARRAY:
			done = scan_array_state(&sc);
			break;
		default:
			done = scan_initial_state(&sc);
			break;
		}
	}
	/* the end token keeps the location of the last matched rule, as bison's yylloc */
	emit(&sc, T_EOF, NULL, 0, 0);
	out->toks[out->nr - 1].first = sc.first;
	out->toks[out->nr - 1].last = sc.last;
}

void tok_list_free(struct tok_list *list)
{
	for (int i = 0; i < list->nr; i++)
		free(list->toks[i].str);
	free(list->toks);
	list->toks = NULL;
	list->nr = 0;
}
