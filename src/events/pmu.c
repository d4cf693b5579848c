// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reads PMUs from sysfs the way perf 6.1 does: a PMU exists when it has a
 * type file; format/ and events/ are read in directory order; event aliases
 * carry optional .unit, .scale, .per-pkg and .snapshot files.
 */
#include "events/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"
#include "events/lexer.h"

struct pmu_set *pmu_set_new(const char *sysfs_root)
{
	struct pmu_set *set = xzalloc(sizeof(*set));

	if (!sysfs_root || !*sysfs_root)
		sysfs_root = "/sys";
	set->devices_dir = xasprintf("%s/bus/event_source/devices", sysfs_root);
	return set;
}

static void pmu_free(struct pmu *pmu)
{
	for (int i = 0; i < pmu->nr_formats; i++)
		free(pmu->formats[i].name);
	for (int i = 0; i < pmu->nr_aliases; i++) {
		free(pmu->aliases[i].name);
		free(pmu->aliases[i].str);
		term_list_free(&pmu->aliases[i].terms);
	}
	free(pmu->formats);
	free(pmu->aliases);
	free(pmu->cpumask);
	free(pmu->id);
	free(pmu->name);
	free(pmu);
}

void pmu_set_free(struct pmu_set *set)
{
	if (!set)
		return;
	for (int i = 0; i < set->nr; i++)
		pmu_free(set->list[i]);
	free(set->list);
	free(set->devices_dir);
	free(set);
}

/* "config:0-7,21": returns 0 and fills the format, or -EINVAL */
static int parse_format_text(const char *text, struct pmu_format *f)
{
	const char *p = text;
	char *end;

	if (!strncmp(p, "config2:", 8)) {
		f->value = FORMAT_CONFIG2;
		p += 8;
	} else if (!strncmp(p, "config1:", 8)) {
		f->value = FORMAT_CONFIG1;
		p += 8;
	} else if (!strncmp(p, "config:", 7)) {
		f->value = FORMAT_CONFIG;
		p += 7;
	} else {
		return -EINVAL;
	}
	f->bits = 0;
	for (;;) {
		unsigned long lo, hi;

		lo = strtoul(p, &end, 10);
		if (end == p)
			return -EINVAL;
		hi = lo;
		p = end;
		if (*p == '-') {
			hi = strtoul(p + 1, &end, 10);
			if (end == p + 1)
				return -EINVAL;
			p = end;
		}
		for (unsigned long b = lo; b <= hi && b < 64; b++)
			f->bits |= 1ULL << b;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

static void load_formats(struct pmu *pmu, const char *dir)
{
	char *path = xasprintf("%s/format", dir);
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d) {
		free(path);
		return;
	}
	while ((de = readdir(d))) {
		struct pmu_format f = { 0 };
		char buf[256];
		char *file;

		if (de->d_name[0] == '.')
			continue;
		file = xasprintf("%s/%s", path, de->d_name);
		if (read_text_file(file, buf, sizeof(buf)) == 0 && parse_format_text(buf, &f) == 0) {
			f.name = xstrdup(de->d_name);
			pmu->formats = xrealloc(pmu->formats,
						sizeof(*pmu->formats) * (pmu->nr_formats + 1));
			pmu->formats[pmu->nr_formats++] = f;
		}
		free(file);
	}
	closedir(d);
	free(path);
}

static bool has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s && !strcmp(name + n - s, suffix);
}

static bool alias_info_file(const char *name)
{
	return has_suffix(name, ".unit") || has_suffix(name, ".scale") ||
	       has_suffix(name, ".per-pkg") || has_suffix(name, ".snapshot");
}

static bool file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* perf's strtod under the C locale, for .scale files */
static double parse_scale(const char *text)
{
	locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	locale_t old = c ? uselocale(c) : (locale_t)0;
	double v = strtod(text, NULL);

	if (c) {
		uselocale(old);
		freelocale(c);
	}
	return v;
}

/* perf re-prints an alias's terms into 256 bytes, numbers with %#x of their low 32 bits */
char *pmu_terms_string(const struct term_list *terms)
{
	char buf[256];
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < terms->nr && n < (int)sizeof(buf); i++) {
		const struct term *t = &terms->terms[i];
		const char *name = t->config ? t->config : "(null)";

		if (n)
			n += snprintf(buf + n, sizeof(buf) - n, ",");
		if (n >= (int)sizeof(buf))
			break;
		if (t->is_str)
			n += snprintf(buf + n, sizeof(buf) - n, "%s=%s", name, t->str);
		else
			n += snprintf(buf + n, sizeof(buf) - n, "%s=%#x", name, (unsigned int)t->num);
	}
	return xstrdup(buf);
}

static void load_alias(struct pmu *pmu, const char *events, const char *name)
{
	struct pmu_alias a = { 0 };
	char *path = xasprintf("%s/%s", events, name);
	char buf[256];

	if (read_text_file(path, buf, sizeof(buf)) < 0) {
		free(path);
		return;
	}
	free(path);
	if (parse_terms_string(buf, &a.terms) < 0)
		return;
	a.name = xstrdup(name);
	a.scale = 1.0;
	path = xasprintf("%s/%s.unit", events, name);
	if (read_text_file(path, buf, sizeof(buf)) == 0)
		snprintf(a.unit, sizeof(a.unit), "%.31s", buf); /* perf reads 31 bytes */
	free(path);
	path = xasprintf("%s/%s.scale", events, name);
	if (read_text_file(path, buf, sizeof(buf)) == 0)
		a.scale = parse_scale(buf);
	free(path);
	path = xasprintf("%s/%s.per-pkg", events, name);
	a.per_pkg = file_exists(path);
	free(path);
	path = xasprintf("%s/%s.snapshot", events, name);
	a.snapshot = file_exists(path);
	free(path);
	a.str = pmu_terms_string(&a.terms);
	/* xgrow: table aliases are appended later (pmu_json.c) */
	pmu->aliases = xgrow(pmu->aliases, pmu->nr_aliases, sizeof(*pmu->aliases));
	pmu->aliases[pmu->nr_aliases++] = a;
}

static void load_aliases(struct pmu *pmu, const char *dir)
{
	char *path = xasprintf("%s/events", dir);
	struct dirent *de;
	DIR *d = opendir(path);

	if (!d) {
		free(path);
		return;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (alias_info_file(de->d_name))
			continue;
		load_alias(pmu, path, de->d_name);
	}
	closedir(d);
	free(path);
}

static struct pmu *pmu_load(struct pmu_set *set, const char *name)
{
	char *dir = xasprintf("%s/%s", set->devices_dir, name);
	char *path = xasprintf("%s/type", dir);
	char buf[4096];
	struct pmu *pmu;

	if (read_text_file(path, buf, sizeof(buf)) < 0) {
		free(path);
		free(dir);
		return NULL;
	}
	free(path);
	pmu = xzalloc(sizeof(*pmu));
	pmu->name = xstrdup(name);
	pmu->type = (uint32_t)strtoul(buf, NULL, 0);
	load_formats(pmu, dir);
	load_aliases(pmu, dir);
	path = xasprintf("%s/cpumask", dir);
	if (read_text_file(path, buf, sizeof(buf)) == 0) {
		pmu->is_uncore = true;
		pmu->cpumask = xstrdup(buf);
	}
	free(path);
	path = xasprintf("%s/cpus", dir);
	if (read_text_file(path, buf, sizeof(buf)) == 0) {
		pmu->has_cpus = true;
		if (!pmu->cpumask)
			pmu->cpumask = xstrdup(buf);
	}
	free(path);
	if (pmu->is_uncore) {
		path = xasprintf("%s/identifier", dir);
		if (read_text_file(path, buf, sizeof(buf)) == 0)
			pmu->id = xstrdup(buf);
		free(path);
	}
	free(dir);
	set->list = xrealloc(set->list, sizeof(*set->list) * (set->nr + 1));
	set->list[set->nr++] = pmu;
	return pmu;
}

struct pmu *pmu_find(struct pmu_set *set, const char *name)
{
	for (int i = 0; i < set->nr; i++)
		if (!strcmp(set->list[i]->name, name))
			return set->list[i];
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return NULL;
	return pmu_load(set, name);
}

void pmu_scan_all(struct pmu_set *set)
{
	struct dirent *de;
	DIR *d;

	if (set->scanned)
		return;
	set->scanned = true;
	d = opendir(set->devices_dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		pmu_find(set, de->d_name);
	}
	closedir(d);
}

bool pmu_is_hybrid(const struct pmu *pmu)
{
	return !strncmp(pmu->name, "cpu_", 4) && !pmu->is_uncore && pmu->cpumask;
}

/* cpu_core's type comes first (the kernel registers it first); names break ties */
static bool hybrid_before(const struct pmu *a, const struct pmu *b)
{
	return a->type != b->type ? a->type < b->type : strcmp(a->name, b->name) > 0;
}

int pmu_hybrid_list(struct pmu_set *set, struct pmu **out, int max)
{
	int i, j, nr = 0;

	pmu_scan_all(set);
	for (i = 0; i < set->nr && nr < max; i++) {
		struct pmu *pmu = set->list[i];

		if (!pmu_is_hybrid(pmu))
			continue;
		for (j = nr; j > 0 && hybrid_before(pmu, out[j - 1]); j--)
			out[j] = out[j - 1];
		out[j] = pmu;
		nr++;
	}
	return nr;
}

const struct pmu_format *pmu_find_format(const struct pmu *pmu, const char *name)
{
	for (int i = 0; i < pmu->nr_formats; i++)
		if (!strcmp(pmu->formats[i].name, name))
			return &pmu->formats[i];
	return NULL;
}

char *pmu_formats_string(const struct pmu *pmu)
{
	size_t len = 0;
	char *s;

	if (!pmu->nr_formats)
		return NULL;
	for (int i = 0; i < pmu->nr_formats; i++)
		len += strlen(pmu->formats[i].name) + 1;
	s = xzalloc(len + 1);
	for (int i = 0; i < pmu->nr_formats; i++) {
		if (i)
			strcat(s, ",");
		strcat(s, pmu->formats[i].name);
	}
	return s;
}

/*
 * perf splits alias names at '-' into a prefix, a suffix and a second suffix
 * token class, and whole names without '-' are kernel PMU events.
 */
int pmu_alias_token_class(const char *name, void *priv)
{
	struct pmu_set *set = priv;

	/* perf reads every PMU here, first, whatever the name: its -v notes come now */
	pmu_load_all_table_aliases(set);
	/* perf: "cpu" is the PMU of cpu// even where a cpu-cycles alias makes it a prefix */
	if (!strcmp(name, "cpu"))
		return T_NAME;
	for (int i = 0; i < set->nr; i++) {
		const struct pmu *pmu = set->list[i];

		for (int j = 0; j < pmu->nr_aliases; j++) {
			const char *a = pmu->aliases[j].name;
			const char *d1 = strchr(a, '-');
			const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
			size_t n = strlen(name);

			/* perf compares with strcasecmp: TSC is msr's tsc */
			if (!d1) {
				if (!strcasecmp(a, name))
					return T_KERNEL_PMU_EVENT;
				continue;
			}
			if ((size_t)(d1 - a) == n && !strncasecmp(a, name, n))
				return T_PMU_EVENT_PRE;
			if (d2) {
				if ((size_t)(d2 - d1 - 1) == n && !strncasecmp(d1 + 1, name, n))
					return T_PMU_EVENT_SUF;
				if (!strcasecmp(d2 + 1, name))
					return T_PMU_EVENT_SUF2;
			} else if (!strcasecmp(d1 + 1, name)) {
				return T_PMU_EVENT_SUF;
			}
		}
	}
	return T_NAME;
}

uint64_t pmu_format_max(uint64_t bits)
{
	int w = __builtin_popcountll(bits);

	if (!w)
		return 0;
	if (w < 64)
		return (1ULL << w) - 1;
	return ~0ULL;
}

void pmu_format_apply(uint64_t bits, uint64_t value, uint64_t *v)
{
	int vbit = 0;

	for (int fbit = 0; fbit < 64; fbit++) {
		if (!(bits & (1ULL << fbit)))
			continue;
		if (vbit < 64 && (value & (1ULL << vbit)))
			*v |= 1ULL << fbit;
		vbit++;
	}
}
