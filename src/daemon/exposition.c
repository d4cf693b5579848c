// SPDX-License-Identifier: GPL-2.0-only
/*
 * The /metrics body (exposition.h): Prometheus text 0.0.4 or OpenMetrics 1.0. Built by hand, one
 * memcpy per fragment and a small integer printer, because a scrape of 1,000 cgroups x 5 events
 * x every CPU is tens of thousands of lines and must take a few milliseconds.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/common.h"
#include "exposition.h"

/* ---- Accept negotiation ---------------------------------------------------------------- */

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static const char *trim_end(const char *p, const char *end)
{
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

static bool token_is(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) == n && !strncasecmp(p, word, n);
}

int accept_parse_q(const char *p, const char *end)
{
	int q = 0, digits = 0;

	if (p == end || (*p != '0' && *p != '1'))
		return -1;
	q = (*p++ - '0') * 1000;
	if (p == end)
		return q;
	if (*p++ != '.')
		return -1;
	for (int scale = 100; p < end; p++, digits++, scale /= 10) {
		if (digits == 3 || *p < '0' || *p > '9')
			return -1;
		q += (*p - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

enum media { MEDIA_OTHER, MEDIA_TEXT, MEDIA_OPENMETRICS };

/*
 * One media range "type/subtype;param=value;q=0.5": its q (0-1000, -1 when malformed) and which
 * of bperf's two formats it accepts: OpenMetrics in a version bperf speaks (none, 1.0.0 or
 * 0.0.1: the same text for counters and gauges), or text 0.0.4 (text/plain, text/ANY, ANY/ANY).
 * Anything else (protobuf, which Prometheus lists first when native histograms are on) is
 * nothing bperf sends.
 */
static int media_range_q(const char *p, const char *end, enum media *media)
{
	const char *semi = memchr(p, ';', end - p), *type_end;
	bool om, version_ok = true;
	int q = 1000;

	p = skip_ws(p, semi ? semi : end);
	type_end = trim_end(p, semi ? semi : end);
	if (p == type_end || !memchr(p, '/', type_end - p))
		return -1;
	om = token_is(p, type_end, "application/openmetrics-text") ||
	     token_is(p, type_end, "application/*");
	*media = om ? MEDIA_OPENMETRICS :
		 token_is(p, type_end, "text/plain") || token_is(p, type_end, "text/*") ||
		 token_is(p, type_end, "*/*") ? MEDIA_TEXT : MEDIA_OTHER;
	while (semi) {
		const char *param = skip_ws(semi + 1, end), *eq, *val;

		semi = param < end ? memchr(param, ';', end - param) : NULL;
		const char *param_end = trim_end(param, semi ? semi : end);

		eq = memchr(param, '=', param_end - param);
		if (!eq)
			return -1;
		val = skip_ws(eq + 1, param_end);
		if (param_end - val >= 2 && *val == '"' && param_end[-1] == '"') {
			val++;
			param_end--;
		}
		const char *name_end = trim_end(param, eq);

		if (token_is(param, name_end, "q")) {
			q = accept_parse_q(val, param_end);
			if (q < 0)
				return -1;
		} else if (token_is(param, name_end, "version")) {
			version_ok = om ? token_is(val, param_end, "1.0.0") ||
					  token_is(val, param_end, "0.0.1") :
					  token_is(val, param_end, "0.0.4");
		}
	}
	if (!version_ok)
		*media = MEDIA_OTHER;
	return q;
}

bool accept_wants_openmetrics(const char *accept)
{
	int best[3] = {};

	if (!accept)
		return false;
	for (const char *p = accept; *p;) {
		const char *comma = strchr(p, ',');
		const char *end = comma ? comma : p + strlen(p);
		enum media media = MEDIA_OTHER;
		int q = media_range_q(p, end, &media);

		/* a malformed range is skipped, as servers ignore what they cannot parse */
		if (q > best[media])
			best[media] = q;
		p = comma ? comma + 1 : end;
	}
	/* a tie goes to OpenMetrics: a client that names it wants it at least as much */
	return best[MEDIA_OPENMETRICS] > 0 && best[MEDIA_OPENMETRICS] >= best[MEDIA_TEXT];
}

/* ---- Names ----------------------------------------------------------------------------- */

int exposition_family(const char *event, bool seconds, char *buf, size_t size)
{
	size_t n = 0;
	bool sep = true;	/* the "bperf_" prefix ends in one */
	const char *suffix = seconds ? "_seconds" : "";

	if (size < sizeof("bperf_"))
		return -ENAMETOOLONG;
	strcpy(buf, "bperf_");
	n = strlen(buf);
	for (const char *p = event; *p; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = c - 'A' + 'a';
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (n + 1 >= size)
				return -ENAMETOOLONG;
			buf[n++] = c;
			sep = false;
		} else if (!sep) {
			/* a run of anything else is one '_'; a trailing one is dropped below */
			if (n + 1 >= size)
				return -ENAMETOOLONG;
			buf[n++] = '_';
			sep = true;
		}
	}
	if (sep)
		n--;
	if (n + strlen(suffix) + 1 > size)
		return -ENAMETOOLONG;
	strcpy(buf + n, suffix);
	return (int)(n + strlen(suffix));
}

/* ---- Text building ---------------------------------------------------------------------- */

static void put_str(struct byte_buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

static void put_u64(struct byte_buf *b, unsigned long long v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	buf_put(b, tmp + i, sizeof(tmp) - i);
}

/* Nanoseconds as exact decimal seconds: "%llu.%09llu" (a double would keep 17 digits at best). */
static void put_seconds(struct byte_buf *b, unsigned long long ns)
{
	char frac[10];
	unsigned long long f = ns % 1000000000ULL;

	put_u64(b, ns / 1000000000ULL);
	frac[0] = '.';
	for (int i = 9; i >= 1; i--, f /= 10)
		frac[i] = '0' + f % 10;
	buf_put(b, frac, sizeof(frac));
}

/* A Unix time with milliseconds, "1795680000.123" (_created). */
static void put_unix_ms(struct byte_buf *b, double t)
{
	unsigned long long ms = t > 0 ? (unsigned long long)llround(t * 1000.0) : 0;
	char frac[4] = { '.', '0' + ms / 100 % 10, '0' + ms / 10 % 10, '0' + ms % 10 };

	put_u64(b, ms / 1000);
	buf_put(b, frac, sizeof(frac));
}

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, surrogates, > U+10FFFF). */
static int utf8_seq_len(const unsigned char *p)
{
	unsigned char c = p[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return n;
}

/*
 * A label value (or HELP text) escaped: backslash, LF and (quote) '"' as the formats require, and
 * each byte outside valid UTF-8 as the text "\xNN" (its backslash escaped in turn), because one
 * invalid byte makes Prometheus reject the whole scrape (design A2).
 */
static void put_escaped(struct byte_buf *b, const char *s, bool quote)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;
	const unsigned char *run = p;

	while (*p) {
		char esc[6];
		int n = 0, len = utf8_seq_len(p);

		if (len == 1 && *p != '\\' && *p != '\n' && !(quote && *p == '"')) {
			p++;
			continue;
		}
		if (len > 1) {
			p += len;
			continue;
		}
		buf_put(b, run, p - run);
		esc[n++] = '\\';
		if (len == 0) {
			esc[n++] = '\\';
			esc[n++] = 'x';
			esc[n++] = hex[*p >> 4];
			esc[n++] = hex[*p & 15];
		} else {
			esc[n++] = *p == '\n' ? 'n' : (char)*p;
		}
		buf_put(b, esc, n);
		run = ++p;
	}
	buf_put(b, run, p - run);
}

/* ---- The exposition -------------------------------------------------------------------- */

enum series_kind { SERIES_COUNT, SERIES_ENABLED, SERIES_RUNNING };

struct writer {
	struct byte_buf *out;
	const struct snapshot *s;
	bool om;
	char **cg_text;		/* per cgroup: `cgroup="ESCAPED"` or NULL: a duplicate */
	size_t *cg_len;
	char (*cpu_text)[16];	/* per CPU index: `cpu="N"` */
	size_t *cpu_len;
};

static void put_metadata(struct writer *w, const char *family, const char *type,
			 const char *unit, const char *help_fmt, const char *event)
{
	struct byte_buf *b = w->out;
	const char *sample_suffix = strcmp(type, "counter") ? "" : "_total";
	const char *mark = strstr(help_fmt, "%s");

	/* 0.0.4 names the sample (bperf_x_total) and puts HELP first; OpenMetrics the family */
	if (w->om) {
		put_str(b, "# TYPE ");
		put_str(b, family);
		put_str(b, " ");
		put_str(b, type);
		if (unit) {
			put_str(b, "\n# UNIT ");
			put_str(b, family);
			put_str(b, " ");
			put_str(b, unit);
		}
		put_str(b, "\n");
	}
	put_str(b, "# HELP ");
	put_str(b, family);
	if (!w->om)
		put_str(b, sample_suffix);
	put_str(b, " ");
	/* event names come from the command line or config: escape them like any text */
	buf_put(b, help_fmt, mark - help_fmt);
	put_escaped(b, event, w->om);
	put_str(b, mark + 2);
	put_str(b, "\n");
	if (!w->om) {
		put_str(b, "# TYPE ");
		put_str(b, family);
		put_str(b, sample_suffix);
		put_str(b, " ");
		put_str(b, type);
		put_str(b, "\n");
	}
}

/* One sample line (and OpenMetrics' _created): NAME_total{LABELS} VALUE. cg, cpu: -1 for none */
static void put_sample(struct writer *w, const char *family, size_t family_len, int cg, int cpu,
		       __u64 x, bool seconds, double created)
{
	for (int created_line = 0; created_line <= w->om; created_line++) {
		buf_put(w->out, family, family_len);
		if (created_line)
			buf_put(w->out, "_created{", 9);
		else
			buf_put(w->out, "_total{", 7);
		if (cg >= 0)
			buf_put(w->out, w->cg_text[cg], w->cg_len[cg]);
		if (cg >= 0 && cpu >= 0)
			buf_put(w->out, ",", 1);
		if (cpu >= 0)
			buf_put(w->out, w->cpu_text[cpu], w->cpu_len[cpu]);
		buf_put(w->out, "} ", 2);
		if (created_line)
			put_unix_ms(w->out, created);
		else if (seconds)
			put_seconds(w->out, x);
		else
			put_u64(w->out, x);
		buf_put(w->out, "\n", 1);
	}
}

static __u64 value_of(const struct snap_value *v, enum series_kind kind)
{
	return kind == SERIES_COUNT ? v->count : kind == SERIES_ENABLED ? v->enabled : v->running;
}

int exposition_shape_family(const char *event, bool seconds, enum exposition_shape shape,
			    bool times_running, bool times, char *buf, size_t size)
{
	static const char *const prefix[] = {
		[SHAPE_MACHINE] = "bperf_",
		[SHAPE_CGROUP] = "bperf_cgroup_",
		[SHAPE_CGROUP_CPU] = "bperf_cgroup_cpu_",
	};
	char base[256];
	int len = exposition_family(event, false, base, sizeof(base));

	if (len < 0)
		return len;
	len = snprintf(buf, size, "%s%s%s%s", prefix[shape], base + strlen("bperf_"),
		       !times ? "" : times_running ? "_running" : "_enabled",
		       times || seconds ? "_seconds" : "");
	return len < 0 || (size_t)len >= size ? -ENAMETOOLONG : len;
}

static void put_family(struct writer *w, int ev, enum exposition_shape shape,
		       enum series_kind kind)
{
	static const char *const help[][3] = {
		[SHAPE_MACHINE] = {
			"Count of perf event %s on each CPU.",
			"Time perf event %s was enabled on each CPU, in seconds.",
			"Time perf event %s was running on a counter on each CPU, in seconds.",
		},
		[SHAPE_CGROUP] = {
			"Count of perf event %s in each cgroup's own tasks, over all CPUs.",
			"Time perf event %s was enabled in each cgroup's own tasks, in seconds.",
			"Time perf event %s was running in each cgroup's own tasks, in seconds.",
		},
		[SHAPE_CGROUP_CPU] = {
			"Count of perf event %s in each cgroup's own tasks on each CPU.",
			"Time perf event %s was enabled in each cgroup's own tasks per CPU, "
			"in seconds.",
			"Time perf event %s was running in each cgroup's own tasks per CPU, "
			"in seconds.",
		},
	};
	const struct snapshot *s = w->s;
	const struct snap_event *e = &s->events[ev];
	bool seconds = kind != SERIES_COUNT || e->seconds;
	char family[320];
	int len, cg, cpu, i;

	len = exposition_shape_family(e->name, e->seconds, shape, kind == SERIES_RUNNING,
				      kind != SERIES_COUNT, family, sizeof(family));
	if (len < 0)
		return;
	put_metadata(w, family, "counter", seconds ? "seconds" : NULL, help[shape][kind],
		     e->name);
	if (shape == SHAPE_MACHINE)
		for (cpu = 0; cpu < s->nr_cpus; cpu++)
			put_sample(w, family, len, -1, cpu,
				   value_of(snap_machine(s, ev, cpu), kind), seconds, s->start);
	for (cg = 0; shape == SHAPE_CGROUP && cg < s->nr_cgroups; cg++)
		if (w->cg_text[cg])
			put_sample(w, family, len, cg, -1, value_of(snap_own(s, ev, cg), kind),
				   seconds, s->cgroups[cg].created);
	for (i = 0; shape == SHAPE_CGROUP_CPU && i < s->nr_cpu_cgroups; i++) {
		cg = s->cpu_cgroups[i];
		for (cpu = 0; w->cg_text[cg] && cpu < s->nr_cpus; cpu++)
			put_sample(w, family, len, cg, cpu,
				   value_of(snap_own_cpu(s, ev, i, cpu), kind), seconds,
				   s->cgroups[cg].created);
	}
}

/* Cgroup indices by label text, then by index (so the first of equal ones stays). */
static int cmp_label(const void *a, const void *b, void *arg)
{
	char **labels = arg;
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(labels[x], labels[y]);

	return c ? c : x - y;
}

/* Two paths can escape to one text: the later cgroup is left out (see build_labels). */
static void drop_duplicates(struct writer *w)
{
	const struct snapshot *s = w->s;
	int *order = xzalloc(sizeof(*order) * (s->nr_cgroups + 1));
	bool *dup = xzalloc(sizeof(*dup) * (s->nr_cgroups + 1));

	for (int cg = 0; cg < s->nr_cgroups; cg++)
		order[cg] = cg;
	qsort_r(order, s->nr_cgroups, sizeof(*order), cmp_label, w->cg_text);
	for (int i = 1; i < s->nr_cgroups; i++)
		if (!strcmp(w->cg_text[order[i - 1]], w->cg_text[order[i]]))
			dup[order[i]] = true;
	for (int cg = 0; cg < s->nr_cgroups; cg++) {
		if (dup[cg]) {
			free(w->cg_text[cg]);
			w->cg_text[cg] = NULL;
		}
	}
	free(order);
	free(dup);
}

/*
 * The label of every cgroup and CPU, escaped once for all their series. Two paths can escape to
 * one text (a real "\xff" in a name next to a byte 0xff): Prometheus keeps only one of two equal
 * series and says nothing (design A2), so the later cgroup is left out instead.
 */
static void build_labels(struct writer *w)
{
	const struct snapshot *s = w->s;
	struct byte_buf b = {};

	for (int cg = 0; cg < s->nr_cgroups; cg++) {
		b.len = 0;
		put_str(&b, "cgroup=\"");
		put_escaped(&b, s->cgroups[cg].path, true);
		buf_put(&b, "\"", 2);
		w->cg_text[cg] = xstrdup(b.data);
		w->cg_len[cg] = b.len - 1;
	}
	buf_free(&b);
	drop_duplicates(w);
	for (int cpu = 0; cpu < s->nr_cpus; cpu++) {
		struct byte_buf c = { .data = w->cpu_text[cpu], .cap = sizeof(w->cpu_text[cpu]) };

		buf_put(&c, "cpu=\"", 5);
		put_u64(&c, (unsigned int)s->cpus[cpu]);
		buf_put(&c, "\"", 1);
		w->cpu_len[cpu] = c.len;
	}
}

/* Whether an earlier event of the snapshot has event ev's family (the daemon refuses that). */
static bool family_taken(const struct snapshot *s, int ev)
{
	char a[256], b[256];

	if (exposition_family(s->events[ev].name, s->events[ev].seconds, a, sizeof(a)) < 0)
		return true;
	for (int i = 0; i < ev; i++)
		if (exposition_family(s->events[i].name, s->events[i].seconds, b, sizeof(b)) >= 0 &&
		    !strcmp(a, b))
			return true;
	return false;
}

static void put_gauge(struct writer *w, const char *name, const char *help, int value)
{
	put_metadata(w, name, "gauge", NULL, "%s", help);
	put_str(w->out, name);
	put_str(w->out, " ");
	put_u64(w->out, value);
	put_str(w->out, "\n");
}

/* A counter of the daemon's own, with no labels */
static void put_daemon_counter(struct writer *w, const char *family, const char *help,
			       unsigned long long value)
{
	put_metadata(w, family, "counter", NULL, "%s", help);
	put_str(w->out, family);
	put_str(w->out, "_total ");
	put_u64(w->out, value);
	put_str(w->out, "\n");
	if (!w->om)
		return;
	put_str(w->out, family);
	put_str(w->out, "_created ");
	put_unix_ms(w->out, w->s->start);
	put_str(w->out, "\n");
}

static void writer_free(struct writer *w)
{
	for (int cg = 0; cg < w->s->nr_cgroups; cg++)
		free(w->cg_text[cg]);
	free(w->cg_text);
	free(w->cg_len);
	free(w->cpu_text);
	free(w->cpu_len);
}

int exposition_write(struct byte_buf *out, const struct snapshot *s, bool openmetrics)
{
	struct writer w = { .out = out, .s = s, .om = openmetrics };
	int nr_counted = 0;

	w.cg_text = xzalloc(sizeof(*w.cg_text) * (s->nr_cgroups + 1));
	w.cg_len = xzalloc(sizeof(*w.cg_len) * (s->nr_cgroups + 1));
	w.cpu_text = xzalloc(sizeof(*w.cpu_text) * (s->nr_cpus + 1));
	w.cpu_len = xzalloc(sizeof(*w.cpu_len) * (s->nr_cpus + 1));
	build_labels(&w);

	for (int cg = 0; cg < s->nr_cgroups; cg++)
		nr_counted += strcmp(s->cgroups[cg].path, "/") != 0;
	put_gauge(&w, "bperf_daemon_cgroups", "Cgroups counted.", nr_counted);
	put_gauge(&w, "bperf_daemon_cgroups_dropped",
		  "Cgroups not counted: the leaders' cgroups were all taken.", s->nr_dropped);
	put_daemon_counter(&w, "bperf_daemon_clients_not_reading",
			   "Socket clients disconnected because they left their replies unread.",
			   s->nr_not_reading);
	for (int shape = SHAPE_MACHINE; shape <= SHAPE_CGROUP_CPU; shape++) {
		if (shape == SHAPE_CGROUP_CPU && !s->nr_cpu_cgroups)
			continue;
		for (int ev = 0; ev < s->nr_events; ev++) {
			if (family_taken(s, ev))
				continue;
			put_family(&w, ev, shape, SERIES_COUNT);
			if (s->events[ev].scaled) {
				put_family(&w, ev, shape, SERIES_ENABLED);
				put_family(&w, ev, shape, SERIES_RUNNING);
			}
		}
	}
	if (w.om)
		put_str(out, "# EOF\n");
	writer_free(&w);
	return 0;
}
