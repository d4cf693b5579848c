/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tokenizer for perf's event syntax. It reproduces perf 6.1's flex scanner
 * (parse-events.l): the same start states, the same longest-match rule
 * priorities and the same odd column bookkeeping, because perf reports error
 * positions from those columns.
 */
#ifndef BPERF_EVENTS_LEXER_H
#define BPERF_EVENTS_LEXER_H

#include <stdbool.h>
#include <stdint.h>

enum tok_type {
	T_EOF = 0,
	/* single characters use their own code: '/', '-', ',', ':', '{', '}', '=', '[', ']' */
	T_EVENT_NAME = 256, /* whole text of one event, used for its name */
	T_VALUE_SYM_HW,
	T_VALUE_SYM_SW,
	T_VALUE_SYM_TOOL,
	T_KERNEL_PMU_EVENT,
	T_PMU_EVENT_PRE,
	T_PMU_EVENT_SUF,
	T_PMU_EVENT_SUF2,
	T_NAME_CACHE_TYPE,
	T_NAME_CACHE_OP_RESULT,
	T_PREFIX_MEM,
	T_RAW,
	T_VALUE,
	T_MODIFIER_EVENT,
	T_MODIFIER_BP,
	T_NAME,
	T_TERM,
	T_DRV_CFG_TERM,
	T_ARRAY_ALL,
	T_ARRAY_RANGE,
	T_ERROR,
};

struct tok {
	int type;
	char *str;	/* token text (T_EVENT_NAME: the event text) */
	/* T_VALUE and T_RAW: the value, T_VALUE_SYM_*: type << 16 | config, T_TERM: term type */
	uint64_t num;
	int first;	/* bison @N.first_column */
	int last;	/* bison @N.last_column: where perf reports syntax errors */
};

/* Classifies a bare name against the sysfs PMU event aliases (perf's pmu_str_check). */
typedef int (*alias_class_fn)(const char *name, void *priv);

struct tok_list {
	struct tok *toks;
	int nr;
	int stray;	/* offset of the first character no rule matched, -1 if none */
};

/*
 * Scans str starting in the "event" state (terms_only: the "config" state,
 * for sysfs alias values). Characters that fit no rule (an unbalanced '{' or
 * '}', which perf's flex scanner echoes to stdout) are skipped and the first
 * one's offset is kept in out->stray.
 */
void lex_events(const char *str, bool terms_only, alias_class_fn classify, void *priv,
		struct tok_list *out);
void tok_list_free(struct tok_list *list);

#endif
