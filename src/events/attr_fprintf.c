// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's -vv dump of a perf_event_attr: only non-zero fields, in perf 6.1's
 * order, "  %-32s %s" per line, hex for config words and addresses, flag
 * names for sample_type, read_format and branch_sample_type.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "events/evlist.h"

struct bit_name {
	uint64_t bit;
	const char *name;
};

#define SAMPLE(n) { PERF_SAMPLE_##n, #n }
static const struct bit_name sample_bits[] = {
	SAMPLE(IP), SAMPLE(TID), SAMPLE(TIME), SAMPLE(ADDR), SAMPLE(READ), SAMPLE(CALLCHAIN),
	SAMPLE(ID), SAMPLE(CPU), SAMPLE(PERIOD), SAMPLE(STREAM_ID), SAMPLE(RAW),
	SAMPLE(BRANCH_STACK), SAMPLE(REGS_USER), SAMPLE(STACK_USER), SAMPLE(IDENTIFIER),
	SAMPLE(REGS_INTR), SAMPLE(DATA_SRC), SAMPLE(WEIGHT), SAMPLE(PHYS_ADDR), SAMPLE(AUX),
	SAMPLE(CGROUP), SAMPLE(DATA_PAGE_SIZE), SAMPLE(CODE_PAGE_SIZE), SAMPLE(WEIGHT_STRUCT),
	{ 0, NULL },
};
#undef SAMPLE

#define BRANCH(n) { PERF_SAMPLE_BRANCH_##n, #n }
static const struct bit_name branch_bits[] = {
	BRANCH(USER), BRANCH(KERNEL), BRANCH(HV), BRANCH(ANY), BRANCH(ANY_CALL),
	BRANCH(ANY_RETURN), BRANCH(IND_CALL), BRANCH(ABORT_TX), BRANCH(IN_TX), BRANCH(NO_TX),
	BRANCH(COND), BRANCH(CALL_STACK), BRANCH(IND_JUMP), BRANCH(CALL), BRANCH(NO_FLAGS),
	BRANCH(NO_CYCLES), BRANCH(TYPE_SAVE), BRANCH(HW_INDEX),
	{ 0, NULL },
};
#undef BRANCH

static const struct bit_name read_bits[] = {
	{ PERF_FORMAT_TOTAL_TIME_ENABLED, "TOTAL_TIME_ENABLED" },
	{ PERF_FORMAT_TOTAL_TIME_RUNNING, "TOTAL_TIME_RUNNING" },
	{ PERF_FORMAT_ID, "ID" },
	{ PERF_FORMAT_GROUP, "GROUP" },
	{ 0, NULL },
};

/* Unknown bits print nothing, as in perf. */
static void bits(char *buf, size_t size, uint64_t value, const struct bit_name *names)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int i = 0; names[i].name; i++) {
		if (!(value & names[i].bit))
			continue;
		n += snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "|" : "",
			      names[i].name);
	}
}

static void line(FILE *out, const char *name, const char *val)
{
	fprintf(out, "  %-32s %s\n", name, val);
}

static void p_unsigned(FILE *out, const char *name, uint64_t v)
{
	char buf[32];

	if (!v)
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	line(out, name, buf);
}

static void p_hex(FILE *out, const char *name, uint64_t v)
{
	char buf[32];

	if (!v)
		return;
	snprintf(buf, sizeof(buf), "%#" PRIx64, v);
	line(out, name, buf);
}

static void p_bits(FILE *out, const char *name, uint64_t v, const struct bit_name *names)
{
	char buf[1024];

	if (!v)
		return;
	bits(buf, sizeof(buf), v, names);
	line(out, name, buf);
}

void perf_event_attr_fprintf(FILE *out, const struct perf_event_attr *a)
{
	char buf[32];

	fprintf(out, "perf_event_attr:\n");
	p_unsigned(out, "type", a->type);
	p_unsigned(out, "size", a->size);
	p_hex(out, "config", a->config);
	p_unsigned(out, "{ sample_period, sample_freq }", a->sample_period);
	p_bits(out, "sample_type", a->sample_type, sample_bits);
	p_bits(out, "read_format", a->read_format, read_bits);
	p_unsigned(out, "disabled", a->disabled);
	p_unsigned(out, "inherit", a->inherit);
	p_unsigned(out, "pinned", a->pinned);
	p_unsigned(out, "exclusive", a->exclusive);
	p_unsigned(out, "exclude_user", a->exclude_user);
	p_unsigned(out, "exclude_kernel", a->exclude_kernel);
	p_unsigned(out, "exclude_hv", a->exclude_hv);
	p_unsigned(out, "exclude_idle", a->exclude_idle);
	p_unsigned(out, "mmap", a->mmap);
	p_unsigned(out, "comm", a->comm);
	p_unsigned(out, "freq", a->freq);
	p_unsigned(out, "inherit_stat", a->inherit_stat);
	p_unsigned(out, "enable_on_exec", a->enable_on_exec);
	p_unsigned(out, "task", a->task);
	p_unsigned(out, "watermark", a->watermark);
	p_unsigned(out, "precise_ip", a->precise_ip);
	p_unsigned(out, "mmap_data", a->mmap_data);
	p_unsigned(out, "sample_id_all", a->sample_id_all);
	p_unsigned(out, "exclude_host", a->exclude_host);
	p_unsigned(out, "exclude_guest", a->exclude_guest);
	p_unsigned(out, "exclude_callchain_kernel", a->exclude_callchain_kernel);
	p_unsigned(out, "exclude_callchain_user", a->exclude_callchain_user);
	p_unsigned(out, "mmap2", a->mmap2);
	p_unsigned(out, "comm_exec", a->comm_exec);
	p_unsigned(out, "use_clockid", a->use_clockid);
	p_unsigned(out, "context_switch", a->context_switch);
	p_unsigned(out, "write_backward", a->write_backward);
	p_unsigned(out, "namespaces", a->namespaces);
	p_unsigned(out, "ksymbol", a->ksymbol);
	p_unsigned(out, "bpf_event", a->bpf_event);
	p_unsigned(out, "aux_output", a->aux_output);
	p_unsigned(out, "cgroup", a->cgroup);
	p_unsigned(out, "text_poke", a->text_poke);
	p_unsigned(out, "build_id", a->build_id);
	p_unsigned(out, "inherit_thread", a->inherit_thread);
	p_unsigned(out, "remove_on_exec", a->remove_on_exec);
	p_unsigned(out, "sigtrap", a->sigtrap);
	p_unsigned(out, "{ wakeup_events, wakeup_watermark }", a->wakeup_events);
	p_unsigned(out, "bp_type", a->bp_type);
	p_hex(out, "{ bp_addr, config1 }", a->bp_addr);
	p_hex(out, "{ bp_len, config2 }", a->bp_len);
	p_bits(out, "branch_sample_type", a->branch_sample_type, branch_bits);
	p_hex(out, "sample_regs_user", a->sample_regs_user);
	p_unsigned(out, "sample_stack_user", a->sample_stack_user);
	if (a->clockid) {
		snprintf(buf, sizeof(buf), "%" PRId64, (int64_t)a->clockid);
		line(out, "clockid", buf);
	}
	p_hex(out, "sample_regs_intr", a->sample_regs_intr);
	p_unsigned(out, "aux_watermark", a->aux_watermark);
	p_unsigned(out, "sample_max_stack", a->sample_max_stack);
	p_unsigned(out, "aux_sample_size", a->aux_sample_size);
	p_unsigned(out, "sig_data", a->sig_data);
}
