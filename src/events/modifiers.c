// SPDX-License-Identifier: GPL-2.0-only
/*
 * Event modifiers (":ukhGHIpPSDWeb") with perf 6.1's exclude_* logic: the
 * first of u/k/h excludes everything then re-includes its own context, 'u'
 * and 'p' also set exclude_guest unless G/H was given, and a group modifier
 * starts from each member's current settings instead of from zero.
 */
#include <errno.h>
#include <string.h>

#include "events/parse_internal.h"

struct modifier {
	int eu, ek, eh, eH, eG, eI;
	int precise, precise_max, sample_read, pinned, exclusive;
	int exclude_GH, weak, bpf_counter;
};

/* perf's check_modifier: not too long and no letter twice, except 'p' */
static int check_modifier(const char *str)
{
	if (strlen(str) > strlen("ukhGHpppPSDIWeb"))
		return -1;
	for (const char *p = str; *p; p++)
		if (*p != 'p' && strchr(p + 1, *p))
			return -1;
	return 0;
}

static int get_modifier(struct modifier *mod, const char *str, const struct evsel *evsel)
{
	const struct perf_event_attr *a = evsel ? &evsel->attr : NULL;
	int eu = a ? a->exclude_user : 0;
	int ek = a ? a->exclude_kernel : 0;
	int eh = a ? a->exclude_hv : 0;
	int eH = a ? a->exclude_host : 0;
	int eG = a ? a->exclude_guest : 0;
	int eI = a ? a->exclude_idle : 0;
	int precise = a ? a->precise_ip : 0;
	int pinned = a ? a->pinned : 0;
	int exclusive = a ? a->exclusive : 0;
	int exclude = eu | ek | eh;
	int exclude_GH = evsel ? evsel->exclude_GH : 0;
	int precise_max = 0, sample_read = 0, weak = 0, bpf_counter = 0;

	memset(mod, 0, sizeof(*mod));
	for (; *str; str++) {
		switch (*str) {
		case 'u':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			if (!exclude_GH)
				eG = 1;
			eu = 0;
			break;
		case 'k':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			ek = 0;
			break;
		case 'h':
			if (!exclude)
				exclude = eu = ek = eh = 1;
			eh = 0;
			break;
		case 'G':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eG = 0;
			break;
		case 'H':
			if (!exclude_GH)
				exclude_GH = eG = eH = 1;
			eH = 0;
			break;
		case 'I':
			eI = 1;
			break;
		case 'p':
			precise++;
			/* precise sampling needs exclude_guest */
			if (!exclude_GH)
				eG = 1;
			break;
		case 'P':
			precise_max = 1;
			break;
		case 'S':
			sample_read = 1;
			break;
		case 'D':
			pinned = 1;
			break;
		case 'e':
			exclusive = 1;
			break;
		case 'W':
			weak = 1;
			break;
		case 'b':
			bpf_counter = 1;
			break;
		default:
			goto done;
		}
	}
done:
	if (precise > 3)
		return -EINVAL;
	mod->eu = eu;
	mod->ek = ek;
	mod->eh = eh;
	mod->eH = eH;
	mod->eG = eG;
	mod->eI = eI;
	mod->precise = precise;
	mod->precise_max = precise_max;
	mod->sample_read = sample_read;
	mod->pinned = pinned;
	mod->exclusive = exclusive;
	mod->exclude_GH = exclude_GH;
	mod->weak = weak;
	mod->bpf_counter = bpf_counter;
	return 0;
}

int apply_modifier(struct evsel *evsels, int nr, const char *str, bool add)
{
	struct modifier mod;

	if (check_modifier(str))
		return -EINVAL;
	if (!add && get_modifier(&mod, str, NULL))
		return -EINVAL;
	for (int i = 0; i < nr; i++) {
		struct evsel *e = &evsels[i];

		if (add && get_modifier(&mod, str, e))
			return -EINVAL;
		e->attr.exclude_user = mod.eu;
		e->attr.exclude_kernel = mod.ek;
		e->attr.exclude_hv = mod.eh;
		e->attr.precise_ip = mod.precise;
		e->attr.exclude_host = mod.eH;
		e->attr.exclude_guest = mod.eG;
		e->attr.exclude_idle = mod.eI;
		e->exclude_GH = mod.exclude_GH;
		e->sample_read = mod.sample_read;
		e->precise_max = mod.precise_max;
		e->weak_group = mod.weak;
		e->bpf_counter = mod.bpf_counter;
		if (e->leader_idx == e->idx) {
			e->attr.pinned = mod.pinned;
			e->attr.exclusive = mod.exclusive;
		}
	}
	return 0;
}
