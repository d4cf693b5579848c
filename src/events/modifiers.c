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

/* The exclusions a modifier starts from: the event's own (none for a group's modifier). */
static void modifier_from_evsel(struct modifier *mod, const struct evsel *evsel)
{
	const struct perf_event_attr *a = evsel ? &evsel->attr : NULL;

	memset(mod, 0, sizeof(*mod));
	if (!a)
		return;
	mod->eu = a->exclude_user;
	mod->ek = a->exclude_kernel;
	mod->eh = a->exclude_hv;
	mod->eH = a->exclude_host;
	mod->eG = a->exclude_guest;
	mod->eI = a->exclude_idle;
	mod->precise = a->precise_ip;
	mod->pinned = a->pinned;
	mod->exclusive = a->exclusive;
	mod->exclude_GH = evsel->exclude_GH;
}

/*
 * perf's letters: the first of u, k and h excludes all three, then each letter includes its
 * level again (G and H alike, for guest and host). *exclude: whether one of u, k, h came.
 * Returns false at a letter that is no modifier.
 */
static bool apply_letter(struct modifier *mod, char c, int *exclude)
{
	if ((c == 'u' || c == 'k' || c == 'h') && !*exclude)
		*exclude = mod->eu = mod->ek = mod->eh = 1;
	if ((c == 'G' || c == 'H') && !mod->exclude_GH)
		mod->exclude_GH = mod->eG = mod->eH = 1;
	/* u, and precise sampling, need exclude_guest */
	if ((c == 'u' || c == 'p') && !mod->exclude_GH)
		mod->eG = 1;
	switch (c) {
	case 'u':
		mod->eu = 0;
		break;
	case 'k':
		mod->ek = 0;
		break;
	case 'h':
		mod->eh = 0;
		break;
	case 'G':
		mod->eG = 0;
		break;
	case 'H':
		mod->eH = 0;
		break;
	case 'I':
		mod->eI = 1;
		break;
	case 'p':
		mod->precise++;
		break;
	case 'P':
		mod->precise_max = 1;
		break;
	case 'S':
		mod->sample_read = 1;
		break;
	case 'D':
		mod->pinned = 1;
		break;
	case 'e':
		mod->exclusive = 1;
		break;
	case 'W':
		mod->weak = 1;
		break;
	case 'b':
		mod->bpf_counter = 1;
		break;
	default:
		return false;
	}
	return true;
}

static int get_modifier(struct modifier *mod, const char *str, const struct evsel *evsel)
{
	int exclude;

	modifier_from_evsel(mod, evsel);
	exclude = mod->eu | mod->ek | mod->eh;
	while (*str && apply_letter(mod, *str, &exclude))
		str++;
	return mod->precise > 3 ? -EINVAL : 0;
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
