// SPDX-License-Identifier: GPL-2.0-only
/* bperf check's report: its lines, and the table and JSON they print as. */
#include <stdarg.h>
#include <stdlib.h>

#include "check.h"
#include "util/common.h"

static const char *const verdict_names[] = {
	[CHECK_INFO] = "info", [CHECK_OK] = "ok", [CHECK_SKIP] = "skip",
	[CHECK_WARN] = "warn", [CHECK_FAIL] = "fail",
};

void check_add(struct check_report *r, const char *name, enum check_verdict v, const char *fmt,
	       ...)
{
	struct check_line *line;
	va_list ap;

	r->lines = xgrow(r->lines, r->nr, sizeof(*r->lines));
	line = &r->lines[r->nr++];
	line->name = xstrdup(name);
	line->verdict = v;
	va_start(ap, fmt);
	if (vasprintf(&line->detail, fmt, ap) < 0)
		line->detail = xstrdup("?");
	va_end(ap);
}

bool check_failed(const struct check_report *r)
{
	for (int i = 0; i < r->nr; i++)
		if (r->lines[i].verdict == CHECK_FAIL)
			return true;
	return false;
}

void check_report_free(struct check_report *r)
{
	for (int i = 0; i < r->nr; i++) {
		free(r->lines[i].name);
		free(r->lines[i].detail);
	}
	free(r->lines);
	r->lines = NULL;
	r->nr = 0;
}

void check_print_table(FILE *out, const struct check_report *r)
{
	int counts[CHECK_FAIL + 1] = { 0 };

	fprintf(out, "%-24s %-5s %s\n", "CHECK", "", "RESULT");
	for (int i = 0; i < r->nr; i++) {
		const struct check_line *l = &r->lines[i];

		counts[l->verdict]++;
		fprintf(out, "%-24s %-5s %s\n", l->name, verdict_names[l->verdict], l->detail);
	}
	fprintf(out, "\n%d ok, %d warn, %d fail, %d skipped\n", counts[CHECK_OK],
		counts[CHECK_WARN], counts[CHECK_FAIL], counts[CHECK_SKIP]);
}

static void print_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/* {"result": "ok|fail", "checks": [{"check": ..., "verdict": ..., "detail": ...}, ...]} */
void check_print_json(FILE *out, const struct check_report *r)
{
	fprintf(out, "{\"result\": \"%s\", \"checks\": [", check_failed(r) ? "fail" : "ok");
	for (int i = 0; i < r->nr; i++) {
		const struct check_line *l = &r->lines[i];

		fprintf(out, "%s\n  {\"check\": ", i ? "," : "");
		print_json_string(out, l->name);
		fprintf(out, ", \"verdict\": \"%s\", \"detail\": ", verdict_names[l->verdict]);
		print_json_string(out, l->detail);
		fputc('}', out);
	}
	fprintf(out, "\n]}\n");
}
