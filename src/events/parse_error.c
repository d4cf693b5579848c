// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parse errors, kept and printed as perf 6.1 does: the first error is kept
 * as the "initial error", later ones replace the current message (but from
 * the third on, not its position), and the event string is cut with ".." to
 * fit an 80-column terminal.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/common.h"
#include "events/parse_internal.h"

void parse_error_add(struct parse_events_error *err, int idx, char *str, char *help)
{
	if (!err) {
		free(str);
		free(help);
		return;
	}
	switch (err->num_errors) {
	case 0:
		err->idx = idx;
		err->str = str;
		err->help = help;
		break;
	case 1:
		err->first_idx = err->idx;
		err->first_str = err->str;
		err->first_help = err->help;
		err->idx = idx;
		err->str = str;
		err->help = help;
		break;
	default:
		free(err->str);
		free(err->help);
		err->str = str;
		err->help = help;
		break;
	}
	err->num_errors++;
}

/* perf's get_term_dimensions: $LINES and $COLUMNS, then the tty size of stdout, else 80 */
static int term_width(void)
{
	const char *lines = getenv("LINES");
	const char *cols = getenv("COLUMNS");
	struct winsize ws;

	if (lines && cols && atoi(lines) > 0 && atoi(cols) > 0)
		return atoi(cols);
	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		return ws.ws_col;
	return 80;
}

static void print_one(FILE *out, int err_idx, const char *err_str, const char *err_help,
		      const char *event)
{
	const char *prefix = "event syntax error: ";
	int len_str = (int)strlen(prefix);
	int max_len = term_width() - 2 - len_str;
	int len_event = (int)strlen(event);
	const int max_err_idx = 13;
	int cut = 0, idx;
	char buf[1000];

	if (!err_str) {
		fprintf(out, "invalid or unsupported event: '%s'\n", event);
		return;
	}
	if (max_len < 2)
		max_len = 2;
	if (max_len > (int)sizeof(buf) - 1)
		max_len = sizeof(buf) - 1;
	if (err_idx > max_err_idx)
		cut = err_idx - max_err_idx;
	memset(buf, 0, sizeof(buf));
	if (cut < len_event)
		strncpy(buf, event + cut, max_len);
	if (cut)
		buf[0] = buf[1] = '.';
	if (len_event - cut > max_len) {
		buf[max_len - 1] = buf[max_len - 2] = '.';
		buf[max_len] = '\0';
	}
	idx = len_str + err_idx - cut;
	fprintf(out, "%s'%s'\n", prefix, buf);
	if (idx) {
		fprintf(out, "%*s\\___ %s\n", idx + 1, "", err_str);
		if (err_help)
			fprintf(out, "\n%s\n", err_help);
	}
}

void parse_events_error_print_errors(FILE *out, const char *str,
				    const struct parse_events_error *err)
{
	if (err->num_errors) {
		print_one(out, err->idx, err->str, err->help, str);
		if (err->num_errors > 1) {
			fputs("\nInitial error:\n", out);
			print_one(out, err->first_idx, err->first_str, err->first_help, str);
		}
	}
}

void parse_events_error_print(FILE *out, const char *str, const struct parse_events_error *err)
{
	parse_events_error_print_errors(out, str, err);
	fprintf(out, "Run 'bperf list' for a list of valid events\n");
}

void parse_events_error_free(struct parse_events_error *err)
{
	free(err->str);
	free(err->help);
	free(err->first_str);
	free(err->first_help);
	memset(err, 0, sizeof(*err));
	err->idx = -1;
}
