// SPDX-License-Identifier: GPL-2.0-only
/*
 * Builders for the legacy event kinds (hardware and software symbols, raw,
 * numeric type:config, hardware cache, breakpoints, tool events): each one
 * builds the perf_event_attr as perf 6.1's parse-events.c does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <linux/hw_breakpoint.h>

#include "util/common.h"
#include "events/parse_internal.h"
#include "events/pmu.h"

void evsel_set_default_unit(struct evsel *evsel)
{
	const struct perf_event_attr *a = &evsel->attr;

	evsel->unit = "";
	evsel->scale = 1.0;
	evsel->is_clock = a->type == PERF_TYPE_SOFTWARE &&
			  (a->config == PERF_COUNT_SW_CPU_CLOCK ||
			   a->config == PERF_COUNT_SW_TASK_CLOCK);
	if (evsel->is_clock) {
		evsel->unit = "msec";
		evsel->scale = 1e-6;
	}
}

static const char *pmu_name_for_type(uint32_t type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return "cpu";
	case PERF_TYPE_SOFTWARE:
		return "software";
	case PERF_TYPE_TRACEPOINT:
		return "tracepoint";
	case PERF_TYPE_BREAKPOINT:
		return "breakpoint";
	default:
		return NULL;
	}
}

/* perf's __add_event with init_attr: event_attr_init sets exclude_guest and the ABI size */
struct evsel *state_new_evsel(struct parse_state *state, const struct perf_event_attr *attr,
			      const char *name)
{
	struct evsel *e;
	const char *pmu;

	state->evsels = xgrow(state->evsels, state->nr, sizeof(*state->evsels));
	e = &state->evsels[state->nr];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->attr.exclude_guest = 1;
	e->attr.size = PERF_ATTR_SIZE_VER7;
	e->idx = state->base_idx + state->nr;
	e->leader_idx = e->idx;
	e->nr_members = 1;
	e->name = name ? xstrdup(name) : NULL;
	pmu = pmu_name_for_type(attr->type);
	e->pmu_name = pmu ? xstrdup(pmu) : NULL;
	evsel_set_default_unit(e);
	state->nr++;
	return e;
}

#define MAX_HYBRID_PMUS 4
#define PMU_TYPE_SHIFT 32	/* perf_event.h's PERF_PMU_TYPE_SHIFT (Linux 6.0+ headers) */

/*
 * On a hybrid machine (cpu_core and cpu_atom PMUs) a hardware, cache or raw event becomes one
 * event per hybrid PMU, as perf makes them: hardware and cache events keep their type with the
 * PMU's type in config[63:32], a raw event takes the PMU's type; each copy is counted on its
 * PMU's CPUs. --cputype keeps one PMU. Returns 1 when it made the copies, 0 on a machine that
 * is not hybrid (or for other events).
 */
static int add_hybrid(struct parse_state *state, const struct perf_event_attr *attr,
		      const char *name)
{
	struct pmu *pmus[MAX_HYBRID_PMUS];
	const char *only = state->ctx ? state->ctx->cputype_pmu : NULL;
	int i, nr;

	if (attr->type != PERF_TYPE_HARDWARE && attr->type != PERF_TYPE_HW_CACHE &&
	    attr->type != PERF_TYPE_RAW)
		return 0;
	nr = pmu_hybrid_list(state->pmus, pmus, MAX_HYBRID_PMUS);
	if (!nr)
		return 0;
	for (i = 0; i < nr; i++) {
		struct perf_event_attr copy = *attr;
		struct evsel *e;

		if (only && strcmp(only, pmus[i]->name))
			continue;
		if (copy.type == PERF_TYPE_RAW)
			copy.type = pmus[i]->type;
		else
			copy.config = (copy.config & 0xffffffffull) |
				      ((__u64)pmus[i]->type << PMU_TYPE_SHIFT);
		e = state_new_evsel(state, &copy, name);
		free(e->pmu_name);
		e->pmu_name = xstrdup(pmus[i]->name);
		e->cpumask = xstrdup(pmus[i]->cpumask);
		e->hybrid = true;
	}
	return 1;
}

/* A legacy event: copies on a hybrid machine's PMUs, else the one event. */
static void add_legacy(struct parse_state *state, const struct perf_event_attr *attr,
		       const char *name)
{
	if (!add_hybrid(state, attr, name))
		state_new_evsel(state, attr, name);
}

static const char *config_str(const struct term_list *terms, int type)
{
	for (int i = 0; terms && i < terms->nr; i++)
		if (terms->terms[i].type == type)
			return terms->terms[i].str;
	return NULL;
}

static int config_attr_common(struct perf_event_attr *attr, const struct term_list *terms,
			      struct parse_events_error *err)
{
	for (int i = 0; terms && i < terms->nr; i++)
		if (config_term_common(attr, &terms->terms[i], err))
			return -EINVAL;
	return 0;
}

int add_numeric(struct parse_state *state, uint32_t type, uint64_t config,
		struct term_list *terms)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.type = type;
	attr.config = config;
	if (config_attr_common(&attr, terms, state->err))
		return -EINVAL;
	add_legacy(state, &attr, config_str(terms, TERM_NAME));
	return 0;
}

int add_tool(struct parse_state *state, enum tool_event tool)
{
	struct perf_event_attr attr;
	struct evsel *e;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	e = state_new_evsel(state, &attr, NULL);
	e->tool = tool;
	e->unit = "ns";
	/* perf opens tool events on CPU 0 only, if at all */
	e->cpumask = xstrdup("0");
	return 0;
}

#define MAX_ALIASES 8

static const char *const hw_cache[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};

static const char *const hw_cache_op[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};

static const char *const hw_cache_result[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

#define OP_BIT(op) (1U << PERF_COUNT_HW_CACHE_OP_##op)

/* Which operations each cache supports: L1I reads and prefetches, iTLB and BPU reads only. */
static const unsigned int hw_cache_ops_valid[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP_BIT(READ) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP_BIT(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP_BIT(READ) | OP_BIT(WRITE) | OP_BIT(PREFETCH),
};

bool hw_cache_op_valid(int type, int op)
{
	return hw_cache_ops_valid[type] & (1U << op);
}

const char *hw_cache_name(int type, int idx)
{
	return hw_cache[type][idx];
}

const char *hw_cache_op_name(int op, int idx)
{
	return hw_cache_op[op][idx];
}

const char *hw_cache_result_name(int result, int idx)
{
	return hw_cache_result[result][idx];
}

/* perf's parse_aliases: the first row with any alias that prefixes str (case-insensitive) */
static int parse_aliases(const char *str, const char *const names[][MAX_ALIASES], int size)
{
	for (int i = 0; i < size; i++) {
		for (int j = 0; j < MAX_ALIASES && names[i][j]; j++) {
			size_t n = strlen(names[i][j]);

			if (!strncasecmp(str, names[i][j], n))
				return i;
		}
	}
	return -1;
}

int add_cache(struct parse_state *state, const char *type, const char *op1, const char *op2,
	      struct term_list *terms)
{
	const char *ops[2] = { op1, op2 };
	int cache_type, cache_op = -1, cache_result = -1;
	struct perf_event_attr attr;
	const char *config_name;
	char name[128];
	int n;

	cache_type = parse_aliases(type, hw_cache, PERF_COUNT_HW_CACHE_MAX);
	if (cache_type < 0)
		return -EINVAL;
	n = snprintf(name, sizeof(name), "%s", type);
	for (int i = 0; i < 2 && ops[i]; i++) {
		if (n < (int)sizeof(name))
			n += snprintf(name + n, sizeof(name) - n, "-%s", ops[i]);
		if (cache_op == -1) {
			cache_op = parse_aliases(ops[i], hw_cache_op, PERF_COUNT_HW_CACHE_OP_MAX);
			if (cache_op >= 0) {
				if (!hw_cache_op_valid(cache_type, cache_op))
					return -EINVAL;
				continue;
			}
		}
		if (cache_result == -1) {
			cache_result = parse_aliases(ops[i], hw_cache_result,
						     PERF_COUNT_HW_CACHE_RESULT_MAX);
			if (cache_result >= 0)
				continue;
		}
	}
	if (cache_op == -1)
		cache_op = PERF_COUNT_HW_CACHE_OP_READ;
	if (cache_result == -1)
		cache_result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_HW_CACHE;
	attr.config = cache_type | (cache_op << 8) | ((uint64_t)cache_result << 16);
	if (config_attr_common(&attr, terms, state->err))
		return -EINVAL;
	config_name = config_str(terms, TERM_NAME);
	add_legacy(state, &attr, config_name ? config_name : name);
	return 0;
}

static int parse_bp_type(const char *type, struct perf_event_attr *attr)
{
	for (int i = 0; i < 3 && type && type[i]; i++) {
		unsigned int bit;

		switch (type[i]) {
		case 'r':
			bit = HW_BREAKPOINT_R;
			break;
		case 'w':
			bit = HW_BREAKPOINT_W;
			break;
		case 'x':
			bit = HW_BREAKPOINT_X;
			break;
		default:
			return -EINVAL;
		}
		if (attr->bp_type & bit)
			return -EINVAL;
		attr->bp_type |= bit;
	}
	if (!attr->bp_type)
		attr->bp_type = HW_BREAKPOINT_R | HW_BREAKPOINT_W;
	return 0;
}

int add_breakpoint(struct parse_state *state, uint64_t addr, const char *bp_type, uint64_t len)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.bp_addr = addr;
	if (parse_bp_type(bp_type, &attr))
		return -EINVAL;
	if (!len)
		len = attr.bp_type == HW_BREAKPOINT_X ? sizeof(long) : HW_BREAKPOINT_LEN_4;
	attr.bp_len = len;
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.sample_period = 1;
	state_new_evsel(state, &attr, NULL);
	return 0;
}
