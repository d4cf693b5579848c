/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared between the event parser's files: terms, the parse state and the event builders. */
#ifndef BPERF_EVENTS_PARSE_INTERNAL_H
#define BPERF_EVENTS_PARSE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "events/evlist.h"

/* perf's PARSE_EVENTS__TERM_TYPE_*, in perf's order (the "valid terms" list follows it) */
enum term_type {
	TERM_USER,
	TERM_CONFIG,
	TERM_CONFIG1,
	TERM_CONFIG2,
	TERM_NAME,
	TERM_SAMPLE_PERIOD,
	TERM_SAMPLE_FREQ,
	TERM_BRANCH_SAMPLE_TYPE,
	TERM_TIME,
	TERM_CALLGRAPH,
	TERM_STACKSIZE,
	TERM_NOINHERIT,
	TERM_INHERIT,
	TERM_MAX_STACK,
	TERM_MAX_EVENTS,
	TERM_NOOVERWRITE,
	TERM_OVERWRITE,
	TERM_DRV_CFG,
	TERM_PERCORE,
	TERM_AUX_OUTPUT,
	TERM_AUX_SAMPLE_SIZE,
	TERM_METRIC_ID,
	TERM_NR,
};

/* One `name=value` inside /.../ */
struct term {
	int type;	  /* enum term_type */
	char *config;	  /* the name as written, NULL for built-in terms written without '=' */
	bool is_str;
	char *str;
	uint64_t num;
	bool no_value;	  /* written without '=': num is 1 */
	int err_term;	  /* column of the name, for error messages */
	int err_val;	  /* column of the value */
};

struct term_list {
	struct term *terms;
	int nr;
};

void term_list_add(struct term_list *list, const struct term *t);
void term_list_copy(struct term_list *dst, const struct term_list *src);
void term_list_free(struct term_list *list);
const char *term_type_name(int type);

struct pmu;
struct pmu_set;

/* What one parse_events() call works on. */
struct parse_state {
	const char *input;
	const struct parse_events_ctx *ctx;
	struct parse_events_error *err;
	struct pmu_set *pmus;	/* sysfs PMUs, loaded as they are needed */
	struct evsel *evsels;	/* events made so far (idx local to this call) */
	int nr;
	int base_idx;		/* evlist->nr: the first new evsel's idx */
	bool auto_merge;	/* PMU events now made are instances a glob or alias matched */
};

/* Records an error the way perf's parse_events_error__handle does (str and help are taken). */
void parse_error_add(struct parse_events_error *err, int idx, char *str, char *help);

/* Event builders; each appends evsels to state and returns 0 or -errno. */
struct evsel *state_new_evsel(struct parse_state *state, const struct perf_event_attr *attr,
			      const char *name);
int add_numeric(struct parse_state *state, uint32_t type, uint64_t config,
		struct term_list *terms);
int add_tool(struct parse_state *state, enum tool_event tool);
int add_cache(struct parse_state *state, const char *type, const char *op1, const char *op2,
	      struct term_list *terms);
int add_breakpoint(struct parse_state *state, uint64_t addr, const char *bp_type, uint64_t len);
int add_tracepoint(struct parse_state *state, const char *sys, const char *event,
		   struct term_list *terms);
int add_pmu_event(struct parse_state *state, const char *pmu_name, struct term_list *terms,
		  bool use_alias);
int add_pmu_glob(struct parse_state *state, const char *name, struct term_list *terms);
int add_multi_pmu_alias(struct parse_state *state, const char *alias, struct term_list *terms);

/* Checking and applying built-in terms (perf's config_term_common and friends). */
int config_term_common(struct perf_event_attr *attr, const struct term *t,
		       struct parse_events_error *err);
char *valid_terms_help(const char *pmu_formats);

/* Modifiers after ':' (add: a group modifier, applied on top of the members' own). */
int apply_modifier(struct evsel *evsels, int nr, const char *mod, bool add);

/* Sets the unit and scale perf gives events of this attr (msec for the clocks). */
void evsel_set_default_unit(struct evsel *evsel);

#endif
