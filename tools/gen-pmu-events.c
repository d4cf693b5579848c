// SPDX-License-Identifier: GPL-2.0-only
/*
 * gen-pmu-events ARCH DIR OUTPUT: turns perf 6.1's event tables (DIR/ARCH and DIR/test, the JSON
 * of tools/perf/pmu-events/arch/ in Debian's linux-source-6.1) into the C data that
 * src/events/pmu_tables.c reads (layout: src/events/pmu_tables_data.h). Built for the build
 * machine (HOSTCC) and run at build time; its output is never committed.
 *
 * The entries are those perf 6.1's generator (pmu-events/jevents.py) builds, field for field and
 * byte for byte, in its order: the same walk of the directories, the same event strings,
 * description suffixes, PMU names and architecture-standard events, the same sort inside a table.
 * The JSON reader knows the subset the tables use: a file is an array of flat objects whose
 * values are all strings.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The fields of an entry, in the order of perf's struct pmu_event. */
enum field {
	F_NAME, F_COMPAT, F_EVENT, F_DESC, F_TOPIC, F_LONG_DESC, F_PMU, F_UNIT, F_PERPKG,
	F_AGGR_MODE, F_METRIC_EXPR, F_METRIC_NAME, F_METRIC_GROUP, F_DEPRECATED,
	F_METRIC_CONSTRAINT, NR_FIELDS
};

/* An entry while it is built: NULL is Python's None, "" stays "" (it sorts apart from None). */
struct entry {
	char *f[NR_FIELDS];
	size_t seq;	/* position in the walk: the sort is stable */
};

struct table {
	char *name;
	struct entry **entries;
	size_t nr;
};

struct gen {
	const char *file;	/* the JSON file being read, for messages */
	char *topic;		/* the topic of its entries */
	/* architecture-standard events, keyed by lower-cased name */
	struct entry **std;
	size_t nr_std;
	struct table *tables;
	size_t nr_tables;
	bool table_open;
	size_t *sys;		/* indices of the tables of `sys` directories */
	size_t nr_sys;
	size_t seq;
};

__attribute__((format(printf, 1, 2), noreturn))
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("gen-pmu-events: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *xalloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	return s ? strcpy(xalloc(NULL, strlen(s) + 1), s) : NULL;
}

__attribute__((format(printf, 1, 2)))
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

/* s + t, freeing s */
static char *append(char *s, const char *t)
{
	size_t n = s ? strlen(s) : 0;

	s = xalloc(s, n + strlen(t) + 1);
	strcpy(s + n, t);
	return s;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* ---- JSON: an array of flat objects of strings ---- */

#define MAX_KEYS 64

struct jobj {
	int n;
	char *key[MAX_KEYS];
	char *val[MAX_KEYS];
};

struct jreader {
	const char *file;
	const char *p;
};

__attribute__((format(printf, 2, 3), noreturn))
static void json_die(struct jreader *r, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	die("%s: %s near '%.20s'", r->file, msg, r->p);
}

static void json_space(struct jreader *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static void json_expect(struct jreader *r, char c)
{
	json_space(r);
	if (*r->p != c)
		json_die(r, "expected '%c'", c);
	r->p++;
}

static void put_utf8(char **out, unsigned int cp)
{
	char *o = *out;

	if (cp < 0x80) {
		*o++ = cp;
	} else if (cp < 0x800) {
		*o++ = 0xc0 | cp >> 6;
		*o++ = 0x80 | (cp & 0x3f);
	} else {
		*o++ = 0xe0 | cp >> 12;
		*o++ = 0x80 | (cp >> 6 & 0x3f);
		*o++ = 0x80 | (cp & 0x3f);
	}
	*out = o;
}

static char *json_string(struct jreader *r)
{
	const char *start;
	char *s, *o;

	json_expect(r, '"');
	start = r->p;
	while (*r->p != '"') {
		if (!*r->p)
			json_die(r, "unterminated string");
		if (*r->p == '\\' && r->p[1])
			r->p++;
		r->p++;
	}
	/* the decoded text is never longer than the encoded one */
	s = o = xalloc(NULL, r->p - start + 1);
	for (const char *q = start; q < r->p; q++) {
		unsigned int cp;

		if (*q != '\\') {
			*o++ = *q;
			continue;
		}
		switch (*++q) {
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case '"': case '\\': case '/': *o++ = *q; break;
		case 'u':
			if (sscanf(q + 1, "%4x", &cp) != 1 || cp >= 0xd800)
				json_die(r, "unsupported \\u escape");
			put_utf8(&o, cp);
			q += 4;
			break;
		default:
			json_die(r, "bad escape");
		}
	}
	*o = '\0';
	r->p++;
	return s;
}

/* Python's dict keeps the last of two equal keys. */
static void jobj_set(struct jreader *r, struct jobj *o, char *key, char *val)
{
	for (int i = 0; i < o->n; i++) {
		if (!strcmp(o->key[i], key)) {
			free(o->val[i]);
			free(key);
			o->val[i] = val;
			return;
		}
	}
	if (o->n == MAX_KEYS)
		json_die(r, "more than %d keys", MAX_KEYS);
	o->key[o->n] = key;
	o->val[o->n++] = val;
}

static const char *jget(const struct jobj *o, const char *key)
{
	for (int i = 0; i < o->n; i++)
		if (!strcmp(o->key[i], key))
			return o->val[i];
	return NULL;
}

static void jobj_free(struct jobj *o)
{
	for (int i = 0; i < o->n; i++) {
		free(o->key[i]);
		free(o->val[i]);
	}
	o->n = 0;
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, n;

	if (!f)
		die("%s: %s", path, strerror(errno));
	do {
		buf = xalloc(buf, len + 65536 + 1);
		n = fread(buf + len, 1, 65536, f);
		len += n;
	} while (n);
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len)
		die("%s: NUL byte in JSON", path);
	return buf;
}

/* Calls fn for each object of the array in the file. */
static void json_read_array(const char *path, void (*fn)(struct gen *, const struct jobj *),
			    struct gen *g)
{
	char *text = read_file(path);
	struct jreader r = { .file = path, .p = text };
	struct jobj o = { 0 };

	json_expect(&r, '[');
	json_space(&r);
	if (*r.p == ']') {
		r.p++;
	} else {
		for (;;) {
			json_expect(&r, '{');
			json_space(&r);
			if (*r.p == '}') {
				r.p++;
			} else {
				for (;;) {
					char *key = json_string(&r);

					json_expect(&r, ':');
					json_space(&r);
					if (*r.p != '"')
						json_die(&r, "a value that is not a string");
					jobj_set(&r, &o, key, json_string(&r));
					json_space(&r);
					if (*r.p == ',') {
						r.p++;
						continue;
					}
					json_expect(&r, '}');
					break;
				}
			}
			fn(g, &o);
			jobj_free(&o);
			json_space(&r);
			if (*r.p == ',') {
				r.p++;
				continue;
			}
			json_expect(&r, ']');
			break;
		}
	}
	json_space(&r);
	if (*r.p)
		json_die(&r, "text after the array");
	free(text);
}

/* ---- one JSON object -> one entry, as jevents.py's JsonEvent ---- */

/* Python's int(s, 0) for what the tables hold: decimal, 0x hex, 0o octal, 0b binary. */
static unsigned long long parse_int0(struct gen *g, const char *s, int base)
{
	const char *p = s;
	unsigned long long v = 0;
	bool digits = false;

	while (isspace((unsigned char)*p))
		p++;
	if (base == 0) {
		base = 10;
		if (p[0] == '0' && p[1] && strchr("xXoObB", p[1])) {
			base = strchr("xX", p[1]) ? 16 : strchr("oO", p[1]) ? 8 : 2;
			p += 2;
		} else if (p[0] == '0') {
			/* Python refuses 010 with base 0: only zeros may follow a leading 0 */
			for (const char *q = p; *q && !isspace((unsigned char)*q); q++)
				if (*q != '0' && *q != '_')
					die("%s: bad number '%s'", g->file, s);
		}
	}
	for (; *p && !isspace((unsigned char)*p); p++) {
		int d;

		if (*p == '_')
			continue;
		d = isdigit((unsigned char)*p) ? *p - '0' :
		    isxdigit((unsigned char)*p) ? tolower((unsigned char)*p) - 'a' + 10 : 99;
		if (d >= base)
			die("%s: bad number '%s'", g->file, s);
		v = v * base + d;
		digits = true;
	}
	while (isspace((unsigned char)*p))
		p++;
	if (!digits || *p)
		die("%s: bad number '%s'", g->file, s);
	return v;
}

/* the first item of a comma-separated list, as a number */
static unsigned long long first_int0(struct gen *g, const char *s)
{
	char *item = xstrdup(s);
	unsigned long long v;

	item[strcspn(item, ",")] = '\0';
	v = parse_int0(g, item, 0);
	free(item);
	return v;
}

/* Python's hex(), except that 0 is "0" (jevents' llx) */
static char *llx(unsigned long long v)
{
	return v ? xasprintf("%#llx", v) : xstrdup("0");
}

static char *removesuffix(char *s, const char *suffix)
{
	if (ends_with(s, suffix))
		s[strlen(s) - strlen(suffix)] = '\0';
	return s;
}

static char *fixdesc(const char *s)
{
	if (!s)
		return NULL;
	return removesuffix(removesuffix(removesuffix(xstrdup(s), ".  "), ". "), ".");
}

static const char *unit_to_pmu(const char *unit, char **owned)
{
	static const char *const map[][2] = {
		{ "CBO", "uncore_cbox" }, { "QPI LL", "uncore_qpi" }, { "SBO", "uncore_sbox" },
		{ "iMPH-U", "uncore_arb" }, { "CPU-M-CF", "cpum_cf" }, { "CPU-M-SF", "cpum_sf" },
		{ "PAI-CRYPTO", "pai_crypto" }, { "UPI LL", "uncore_upi" },
		{ "hisi_sicl,cpa", "hisi_sicl,cpa" }, { "hisi_sccl,ddrc", "hisi_sccl,ddrc" },
		{ "hisi_sccl,hha", "hisi_sccl,hha" }, { "hisi_sccl,l3c", "hisi_sccl,l3c" },
		{ "imx8_ddr", "imx8_ddr" }, { "L3PMC", "amd_l3" }, { "DFPMC", "amd_df" },
		{ "cpu_core", "cpu_core" }, { "cpu_atom", "cpu_atom" },
	};

	if (!unit || !*unit)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (!strcmp(unit, map[i][0]))
			return map[i][1];
	*owned = xasprintf("uncore_%s", unit);
	for (char *p = *owned; *p; p++)
		*p = tolower((unsigned char)*p);
	return *owned;
}

/* Where perf puts the MSR value: the term of the MSR named by the first item of MSRIndex. */
static const char *msr_term(struct gen *g, const char *index)
{
	if (!index || !*index)
		return NULL;
	switch (first_int0(g, index)) {
	case 0x3F6: return "ldlat=";
	case 0x1A6: case 0x1A7: return "offcore_rsp=";
	case 0x3F7: return "frontend=";
	}
	die("%s: unknown MSRIndex '%s'", g->file, index);
}

/* Events whose encoding perf fixes whatever the JSON says. */
static const char *fixed_event(const char *name)
{
	static const char *const fixed[][2] = {
		{ "inst_retired.any", "event=0xc0,period=2000003" },
		{ "inst_retired.any_p", "event=0xc0,period=2000003" },
		{ "cpu_clk_unhalted.ref", "event=0x0,umask=0x03,period=2000003" },
		{ "cpu_clk_unhalted.thread", "event=0x3c,period=2000003" },
		{ "cpu_clk_unhalted.core", "event=0x3c,period=2000003" },
		{ "cpu_clk_unhalted.thread_any", "event=0x3c,any=1,period=2000003" },
	};

	for (size_t i = 0; name && i < ARRAY_SIZE(fixed); i++)
		if (!strcasecmp(name, fixed[i][0]))
			return fixed[i][1];
	return NULL;
}

static char *lower(const char *s)
{
	char *l = xstrdup(s);

	for (char *p = l; p && *p; p++)
		*p = tolower((unsigned char)*p);
	return l;
}

static struct entry *find_std(struct gen *g, const char *name)
{
	char *l = lower(name);
	struct entry *found = NULL;

	for (size_t i = 0; i < g->nr_std && !found; i++)
		if (!strcmp(g->std[i]->f[F_NAME], l))
			found = g->std[i];
	free(l);
	return found;
}

static struct entry *entry_from_json(struct gen *g, const struct jobj *o)
{
	static const char *const terms[][2] = {
		{ "AnyThread", "any=" }, { "PortMask", "ch_mask=" }, { "CounterMask", "cmask=" },
		{ "EdgeDetect", "edge=" }, { "FCMask", "fc_mask=" }, { "Invert", "inv=" },
		{ "SampleAfterValue", "period=" }, { "UMask", "umask=" },
	};
	struct entry *e = xalloc(NULL, sizeof(*e));
	unsigned long long eventcode = 0;
	const char *v, *precise, *msr, *pmu, *aggr, *fixed;
	char *extra = xstrdup(""), *event, *owned_pmu = NULL;
	struct entry *std;

	memset(e, 0, sizeof(*e));
	/* a backslash would be read as a C escape by perf's generated code: none in 6.1's data */
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->key[i], "MetricExpr") && strchr(o->val[i], '\\'))
			die("%s: backslash in %s", g->file, o->key[i]);

	if ((v = jget(o, "EventCode")))
		eventcode = first_int0(g, v);
	if ((v = jget(o, "ExtSel")))
		eventcode |= parse_int0(g, v, 10) << 8;
	e->f[F_NAME] = (v = jget(o, "EventName")) ? lower(v) : NULL;
	e->f[F_TOPIC] = xstrdup("");
	e->f[F_COMPAT] = xstrdup(jget(o, "Compat"));
	e->f[F_DESC] = fixdesc(jget(o, "BriefDescription"));
	e->f[F_LONG_DESC] = fixdesc(jget(o, "PublicDescription"));
	precise = jget(o, "PEBS");
	msr = msr_term(g, jget(o, "MSRIndex"));
	if (jget(o, "Data_LA")) {
		extra = append(extra, "  Supports address when precise");
		if (jget(o, "Errata"))
			extra = append(extra, ".");
	}
	if ((v = jget(o, "Errata"))) {
		extra = append(extra, "  Spec update: ");
		extra = append(extra, v);
	}
	pmu = unit_to_pmu(jget(o, "Unit"), &owned_pmu);
	e->f[F_PMU] = xstrdup(pmu);
	free(owned_pmu);
	e->f[F_UNIT] = xstrdup(jget(o, "ScaleUnit"));
	e->f[F_PERPKG] = xstrdup(jget(o, "PerPkg"));
	aggr = jget(o, "AggregationMode");
	if (aggr && *aggr) {
		if (strcmp(aggr, "PerChip") && strcmp(aggr, "PerCore"))
			die("%s: unknown AggregationMode '%s'", g->file, aggr);
		e->f[F_AGGR_MODE] = xstrdup(strcmp(aggr, "PerChip") ? "2" : "1");
	}
	e->f[F_DEPRECATED] = xstrdup(jget(o, "Deprecated"));
	e->f[F_METRIC_NAME] = xstrdup(jget(o, "MetricName"));
	e->f[F_METRIC_GROUP] = xstrdup(jget(o, "MetricGroup"));
	e->f[F_METRIC_CONSTRAINT] = xstrdup(jget(o, "MetricConstraint"));
	e->f[F_METRIC_EXPR] = xstrdup(jget(o, "MetricExpr"));
	if (precise && *precise && e->f[F_DESC] && *e->f[F_DESC] &&
	    !strstr(e->f[F_DESC], "(Precise Event)"))
		extra = append(extra, strcmp(precise, "2") ? " (Precise event)" :
			       " (Must be precise)");

	if ((v = jget(o, "ConfigCode")))
		event = append(xstrdup("config="), llx(parse_int0(g, v, 0)));
	else
		event = append(xstrdup("event="), llx(eventcode));
	for (size_t i = 0; i < ARRAY_SIZE(terms); i++) {
		v = jget(o, terms[i][0]);
		if (v && strcmp(v, "0")) {
			event = append(event, ",");
			event = append(event, terms[i][1]);
			event = append(event, v);
		}
	}
	if ((v = jget(o, "Filter")) && *v) {
		event = append(event, ",");
		event = append(event, v);
	}
	if (msr) {
		v = jget(o, "MSRValue");
		event = append(event, ",");
		event = append(event, msr);
		event = append(event, v ? v : "None");
	}
	if (*extra && e->f[F_DESC] && *e->f[F_DESC])
		e->f[F_DESC] = append(e->f[F_DESC], extra);
	if (*extra && e->f[F_LONG_DESC] && *e->f[F_LONG_DESC])
		e->f[F_LONG_DESC] = append(e->f[F_LONG_DESC], extra);
	free(extra);
	if (e->f[F_PMU]) {
		char *d = e->f[F_DESC] ? e->f[F_DESC] : xstrdup("");

		if (*d && !ends_with(d, ". "))
			d = append(d, ". ");
		d = append(d, "Unit: ");
		d = append(d, e->f[F_PMU]);
		e->f[F_DESC] = append(d, " ");
	}
	v = jget(o, "ArchStdEvent");
	if (v && (std = find_std(g, v))) {
		free(event);
		event = xstrdup(std->f[F_EVENT]);
		/* every field still unset or empty comes from the standard event */
		for (int i = 0; i < NR_FIELDS; i++) {
			if (i == F_EVENT || (e->f[i] && *e->f[i]))
				continue;
			free(e->f[i]);
			e->f[i] = xstrdup(std->f[i]);
		}
	}
	fixed = e->f[F_NAME] ? fixed_event(e->f[F_NAME]) : NULL;
	if (fixed) {
		free(event);
		event = xstrdup(fixed);
	}
	/* jevents returns None for the event of an entry without a name */
	if (!e->f[F_NAME] || !*e->f[F_NAME]) {
		free(event);
		event = NULL;
	}
	e->f[F_EVENT] = event;
	e->seq = g->seq++;
	return e;
}

/* ---- the walk of jevents.py ---- */

static void add_std(struct gen *g, const struct jobj *o)
{
	struct entry *e = entry_from_json(g, o);
	size_t i;

	if (!e->f[F_NAME] || !*e->f[F_NAME])
		return;
	/* a later file's event of the same name replaces the earlier one */
	for (i = 0; i < g->nr_std; i++)
		if (!strcmp(g->std[i]->f[F_NAME], e->f[F_NAME]))
			break;
	if (i == g->nr_std)
		g->std = xalloc(g->std, ++g->nr_std * sizeof(*g->std));
	g->std[i] = e;
}

static char *topic_of(const char *file)
{
	char *t;

	if (ends_with(file, "metrics.json"))
		return xstrdup("metrics");
	t = removesuffix(xstrdup(file), ".json");
	for (char *p = t; *p; p++)
		if (*p == '-')
			*p = ' ';
	return t;
}

static void add_to_table(struct gen *g, const struct jobj *o)
{
	struct table *t = &g->tables[g->nr_tables - 1];
	struct entry *e = entry_from_json(g, o);

	free(e->f[F_TOPIC]);
	e->f[F_TOPIC] = xstrdup(g->topic);
	t->entries = xalloc(t->entries, (t->nr + 1) * sizeof(*t->entries));
	t->entries[t->nr++] = e;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in a directory, sorted as Python sorts strings (by code point = UTF-8 bytes). */
static char **list_dir(const char *path, size_t *nr)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;

	if (!d)
		die("%s: %s", path, strerror(errno));
	*nr = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		names = xalloc(names, (*nr + 1) * sizeof(*names));
		names[(*nr)++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(names, *nr, sizeof(*names), cmp_name);
	return names;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode);
}

static bool is_leaf_dir(const char *path)
{
	size_t nr;
	char **names = list_dir(path, &nr);
	bool leaf = true;

	for (size_t i = 0; i < nr; i++) {
		char *p = xasprintf("%s/%s", path, names[i]);

		leaf &= !is_dir(p);
		free(p);
		free(names[i]);
	}
	free(names);
	return leaf;
}

/* Each leaf directory starts a table; JSON files 1 to 4 levels down go to the open table. */
static void walk(struct gen *g, const char *path, const char *table_prefix, int level)
{
	size_t nr;
	char **names = list_dir(path, &nr);

	for (size_t i = 0; i < nr; i++) {
		char *item = xasprintf("%s/%s", path, names[i]);
		char *prefix = xasprintf("%s_%s", table_prefix, names[i]);

		if (is_dir(item) && is_leaf_dir(item)) {
			struct table *t;

			g->tables = xalloc(g->tables, (g->nr_tables + 1) * sizeof(*g->tables));
			t = &g->tables[g->nr_tables++];
			memset(t, 0, sizeof(*t));
			t->name = xstrdup(prefix);
			for (char *p = t->name; *p; p++)
				if (*p == '-')
					*p = '_';
			if (!strcmp(names[i], "sys")) {
				g->sys = xalloc(g->sys, (g->nr_sys + 1) * sizeof(*g->sys));
				g->sys[g->nr_sys++] = g->nr_tables - 1;
			}
			g->table_open = true;
		} else if (level >= 1 && level <= 4 && is_file(item) &&
			   ends_with(names[i], ".json")) {
			if (!g->table_open)
				die("%s: no table directory above it", item);
			g->file = item;
			g->topic = topic_of(names[i]);
			json_read_array(item, add_to_table, g);
			free(g->topic);
		}
		if (is_dir(item))
			walk(g, item, prefix, level + 1);
		free(prefix);
		free(item);
		free(names[i]);
	}
	free(names);
}

static void read_std_events(struct gen *g, const char *arch_dir)
{
	size_t nr;
	char **names = list_dir(arch_dir, &nr);

	for (size_t i = 0; i < nr; i++) {
		char *item = xasprintf("%s/%s", arch_dir, names[i]);

		if (is_file(item) && ends_with(names[i], ".json")) {
			g->file = item;
			json_read_array(item, add_std, g);
		}
		free(item);
		free(names[i]);
	}
	free(names);
}

/* ---- the order inside a table: (has desc, topic, name, pmu, metric_name), stable ---- */

static int cmp_opt(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = *(struct entry *const *)pa, *b = *(struct entry *const *)pb;
	int c;

	if (!a->f[F_DESC] != !b->f[F_DESC])
		return a->f[F_DESC] ? 1 : -1;
	if ((c = cmp_opt(a->f[F_TOPIC], b->f[F_TOPIC])) ||
	    (c = cmp_opt(a->f[F_NAME], b->f[F_NAME])) ||
	    (c = cmp_opt(a->f[F_PMU], b->f[F_PMU])) ||
	    (c = cmp_opt(a->f[F_METRIC_NAME], b->f[F_METRIC_NAME])))
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ---- output ---- */

/* Interning: a hash of strings to pool offsets; the pool starts with "" at offset 0. */
struct pool {
	char *buf;
	size_t len;
	uint32_t *slots;	/* offset + 1, 0 = empty */
	size_t nr_slots;
	size_t used;
};

static uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ULL;

	while (n--)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

static uint32_t pool_add(struct pool *pl, const char *s)
{
	size_t mask, i;

	if (!s || !*s)
		return 0;
	if (2 * (pl->used + 1) > pl->nr_slots) {
		struct pool old = *pl;

		pl->nr_slots = old.nr_slots ? 2 * old.nr_slots : 4096;
		pl->slots = calloc(pl->nr_slots, sizeof(*pl->slots));
		if (!pl->slots)
			die("out of memory");
		pl->used = 0;
		mask = pl->nr_slots - 1;
		for (size_t k = 0; k < old.nr_slots; k++) {
			const char *t = pl->buf + old.slots[k] - 1;

			if (!old.slots[k])
				continue;
			for (i = hash_bytes(t, strlen(t)) & mask; pl->slots[i]; i = (i + 1) & mask)
				;
			pl->slots[i] = old.slots[k];
			pl->used++;
		}
		free(old.slots);
	}
	mask = pl->nr_slots - 1;
	for (i = hash_bytes(s, strlen(s)) & mask; pl->slots[i]; i = (i + 1) & mask)
		if (!strcmp(pl->buf + pl->slots[i] - 1, s))
			return pl->slots[i] - 1;
	pl->buf = xalloc(pl->buf, pl->len + strlen(s) + 1);
	strcpy(pl->buf + pl->len, s);
	pl->slots[i] = pl->len + 1;
	pl->used++;
	pl->len += strlen(s) + 1;
	if (pl->len > UINT32_MAX)
		die("string pool over 4 GB");
	return pl->slots[i] - 1;
}

/* the short fields: pool offsets, each once; index 0 = absent */
struct shorts {
	uint32_t *off;
	size_t nr;
};

static uint16_t short_add(struct shorts *sh, struct pool *pl, const char *s)
{
	uint32_t off = pool_add(pl, s);
	size_t i;

	if (!off)
		return 0;
	for (i = 1; i < sh->nr; i++)
		if (sh->off[i] == off)
			return i;
	if (sh->nr == UINT16_MAX)
		die("more than %u distinct short fields", UINT16_MAX);
	sh->off = xalloc(sh->off, (sh->nr + 1) * sizeof(*sh->off));
	sh->off[sh->nr] = off;
	return sh->nr++;
}

/* records: each distinct one once (a hash of their bytes to their index) */
struct recs {
	uint32_t (*r)[15];
	size_t nr;
	uint32_t *slots;	/* index + 1 */
	size_t nr_slots;
};

static uint32_t rec_add(struct recs *rs, const uint32_t r[15])
{
	size_t mask, i;

	if (2 * (rs->nr + 1) > rs->nr_slots) {
		free(rs->slots);
		rs->nr_slots = rs->nr_slots ? 2 * rs->nr_slots : 4096;
		rs->slots = calloc(rs->nr_slots, sizeof(*rs->slots));
		if (!rs->slots)
			die("out of memory");
		mask = rs->nr_slots - 1;
		for (size_t k = 0; k < rs->nr; k++) {
			for (i = hash_bytes(rs->r[k], sizeof(rs->r[k])) & mask; rs->slots[i];
			     i = (i + 1) & mask)
				;
			rs->slots[i] = k + 1;
		}
	}
	mask = rs->nr_slots - 1;
	for (i = hash_bytes(r, sizeof(rs->r[0])) & mask; rs->slots[i]; i = (i + 1) & mask)
		if (!memcmp(rs->r[rs->slots[i] - 1], r, sizeof(rs->r[0])))
			return rs->slots[i] - 1;
	rs->r = xalloc(rs->r, (rs->nr + 1) * sizeof(*rs->r));
	memcpy(rs->r[rs->nr], r, sizeof(rs->r[0]));
	rs->slots[i] = rs->nr + 1;
	return rs->nr++;
}

/* an entry as the fields of struct pmu_table_rec, in its order */
struct record {
	uint32_t f[15];
};

static struct record record_of(const struct entry *e, struct pool *pl, struct shorts *sh)
{
	char *const *f = e->f;

	return (struct record){ {
		pool_add(pl, f[F_NAME]), pool_add(pl, f[F_EVENT]), pool_add(pl, f[F_DESC]),
		pool_add(pl, f[F_LONG_DESC]), pool_add(pl, f[F_METRIC_EXPR]),
		pool_add(pl, f[F_METRIC_NAME]), pool_add(pl, f[F_METRIC_GROUP]),
		short_add(sh, pl, f[F_COMPAT]), short_add(sh, pl, f[F_TOPIC]),
		short_add(sh, pl, f[F_PMU]), short_add(sh, pl, f[F_UNIT]),
		short_add(sh, pl, f[F_PERPKG]), short_add(sh, pl, f[F_AGGR_MODE]),
		short_add(sh, pl, f[F_DEPRECATED]), short_add(sh, pl, f[F_METRIC_CONSTRAINT]),
	} };
}

static void emit_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f || *p == '?')
			fprintf(out, "\\%03o", *p);	/* '?': no trigraph can form */
		else
			fputc(*p, out);
	}
	fputs("\\000\"\n", out);
}

struct map_row {
	char *arch, *cpuid, *table;
};

/* mapfile.csv: the first row and rows starting with '#' are skipped, as by jevents.py */
static size_t read_mapfile(const char *dir, const char *arch, struct map_row **rows, size_t nr)
{
	char *path = xasprintf("%s/%s/mapfile.csv", dir, arch);
	char *text = read_file(path), *line, *save = NULL;
	bool first = true;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *col[4] = { 0 }, *p = line, *t;
		int n = 0;

		line[strcspn(line, "\r")] = '\0';
		if (first || !*line || line[0] == '#') {
			first = false;
			continue;
		}
		while (n < 4 && p) {
			col[n++] = p;
			p = strchr(p, ',');
			if (p)
				*p++ = '\0';
		}
		if (n < 3 || strchr(line, '"'))
			die("%s: cannot read the row '%s'", path, line);
		t = xasprintf("pme_%s", col[2]);
		for (char *q = t; *q; q++)
			if (*q == '/' || *q == '-')
				*q = '_';
		*rows = xalloc(*rows, (nr + 1) * sizeof(**rows));
		(*rows)[nr++] = (struct map_row){ xstrdup(arch), xstrdup(col[0]), t };
	}
	free(text);
	free(path);
	return nr;
}

static size_t table_index(struct gen *g, const char *name)
{
	for (size_t i = 0; i < g->nr_tables; i++)
		if (!strcmp(g->tables[i].name, name))
			return i;
	die("the mapfile names %s, which has no directory", name);
}

static void emit(struct gen *g, const char *dir, char *const *archs, size_t nr_archs, FILE *out)
{
	struct pool pool = { 0 };
	struct shorts sh = { 0 };
	struct recs rs = { 0 };
	struct map_row *rows = NULL;
	uint32_t *entries = NULL;
	size_t nr_rows = 0, nr_entries = 0;

	/* offset 0 is "", which stands for every absent field */
	pool.buf = xalloc(NULL, 1);
	pool.buf[0] = '\0';
	pool.len = 1;
	sh.off = xalloc(NULL, sizeof(*sh.off));
	sh.off[0] = 0;
	sh.nr = 1;

	for (size_t t = 0; t < g->nr_tables; t++) {
		struct table *tb = &g->tables[t];

		qsort(tb->entries, tb->nr, sizeof(*tb->entries), cmp_entry);
		entries = xalloc(entries, (nr_entries + tb->nr) * sizeof(*entries));
		for (size_t i = 0; i < tb->nr; i++) {
			struct record r = record_of(tb->entries[i], &pool, &sh);

			entries[nr_entries++] = rec_add(&rs, r.f);
		}
	}
	for (size_t a = 0; a < nr_archs; a++) {
		if (!strcmp(archs[a], "test")) {
			rows = xalloc(rows, (nr_rows + 1) * sizeof(*rows));
			rows[nr_rows++] = (struct map_row){ xstrdup("testarch"), xstrdup("testcpu"),
							     xstrdup("pme_test_soc_cpu") };
		} else {
			nr_rows = read_mapfile(dir, archs[a], &rows, nr_rows);
		}
	}

	fprintf(out, "/* Generated by tools/gen-pmu-events from %s (%s", dir, archs[0]);
	for (size_t a = 1; a < nr_archs; a++)
		fprintf(out, ", %s", archs[a]);
	fprintf(out, "): do not edit. */\n#include \"events/pmu_tables_data.h\"\n\n");
	/* names of the tables and rows go to the pool before it is written */
	for (size_t t = 0; t < g->nr_tables; t++)
		pool_add(&pool, g->tables[t].name);
	for (size_t i = 0; i < nr_rows; i++) {
		pool_add(&pool, rows[i].arch);
		pool_add(&pool, rows[i].cpuid);
	}

	fputs("static const char pool[] =\n", out);
	for (size_t off = 0; off < pool.len; off += strlen(pool.buf + off) + 1)
		emit_string(out, pool.buf + off);
	fputs(";\n\nstatic const uint32_t shorts[] = {\n", out);
	for (size_t i = 0; i < sh.nr; i++)
		fprintf(out, "%u,%s", sh.off[i], i % 16 == 15 ? "\n" : "");
	fputs("\n};\n\nstatic const struct pmu_table_rec recs[] = {\n", out);
	for (size_t i = 0; i < rs.nr; i++) {
		fputc('{', out);
		for (int k = 0; k < 15; k++)
			fprintf(out, "%u%s", rs.r[i][k], k < 14 ? "," : "},\n");
	}
	fputs("};\n\nstatic const uint32_t entries[] = {\n", out);
	for (size_t i = 0; i < nr_entries; i++)
		fprintf(out, "%u,%s", entries[i], i % 16 == 15 ? "\n" : "");
	fputs("\n};\n\nstatic const struct pmu_table tables[] = {\n", out);
	for (size_t t = 0, first = 0; t < g->nr_tables; first += g->tables[t++].nr)
		fprintf(out, "{ %u, %zu, %zu }, /* %s */\n", pool_add(&pool, g->tables[t].name),
			first, g->tables[t].nr, g->tables[t].name);
	fputs("};\n\nstatic const struct pmu_table_map_row map[] = {\n", out);
	for (size_t i = 0; i < nr_rows; i++)
		fprintf(out, "{ %u, %u, %zu }, /* %s */\n", pool_add(&pool, rows[i].arch),
			pool_add(&pool, rows[i].cpuid), table_index(g, rows[i].table),
			rows[i].table);
	fputs("};\n\nstatic const uint32_t sys_tables[] = {\n", out);
	for (size_t i = 0; i < g->nr_sys; i++)
		fprintf(out, "%zu, /* %s */\n", g->sys[i], g->tables[g->sys[i]].name);
	fputs("};\n\nconst struct pmu_tables_data pmu_tables_data = {\n"
	      "\t.pool = pool, .pool_size = sizeof(pool),\n"
	      "\t.shorts = shorts, .nr_shorts = sizeof(shorts) / sizeof(shorts[0]),\n"
	      "\t.recs = recs, .nr_recs = sizeof(recs) / sizeof(recs[0]),\n"
	      "\t.entries = entries, .nr_entries = sizeof(entries) / sizeof(entries[0]),\n"
	      "\t.tables = tables, .nr_tables = sizeof(tables) / sizeof(tables[0]),\n"
	      "\t.map = map, .nr_map = sizeof(map) / sizeof(map[0]),\n"
	      "\t.sys_tables = sys_tables,\n"
	      "\t.nr_sys_tables = sizeof(sys_tables) / sizeof(sys_tables[0]),\n"
	      "};\n", out);
}

int main(int argc, char **argv)
{
	struct gen g = { 0 };
	char *archs[2];
	FILE *out;

	if (argc != 4) {
		fprintf(stderr, "usage: gen-pmu-events ARCH DIR OUTPUT\n");
		return 2;
	}
	/* perf's x86 build holds x86 and test, its arm64 build arm64 and test: sorted by name */
	if (strcmp(argv[1], "test") < 0) {
		archs[0] = argv[1];
		archs[1] = "test";
	} else {
		archs[0] = "test";
		archs[1] = argv[1];
	}
	for (int a = 0; a < 2; a++) {
		char *p = xasprintf("%s/%s", argv[2], archs[a]);

		if (!is_dir(p))
			die("%s: no such directory", p);
		read_std_events(&g, p);
		free(p);
	}
	for (int a = 0; a < 2; a++) {
		char *p = xasprintf("%s/%s", argv[2], archs[a]);

		g.table_open = false;
		walk(&g, p, "pme", 0);
		free(p);
	}
	out = fopen(argv[3], "w");
	if (!out)
		die("%s: %s", argv[3], strerror(errno));
	emit(&g, argv[2], archs, 2, out);
	if (fclose(out))
		die("%s: write error", argv[3]);
	return 0;
}
