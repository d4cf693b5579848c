// SPDX-License-Identifier: GPL-2.0-only
/* The request head of the daemon's HTTP server (http_parse.h). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "exposition.h"
#include "http_gzip.h"
#include "http_parse.h"

size_t http_head_end(const char *buf, size_t len)
{
	size_t max = len < HTTP_MAX_HEAD ? len : HTTP_MAX_HEAD;
	const char *nl = memchr(buf, '\n', max);

	while (nl) {
		size_t at = nl - buf + 1;

		if (at < max && buf[at] == '\n')
			return at + 1;
		if (at + 1 < max && buf[at] == '\r' && buf[at + 1] == '\n')
			return at + 2;
		nl = at < max ? memchr(buf + at, '\n', max - at) : NULL;
	}
	return 0;
}

bool http_head_pending(const char *buf, size_t len, size_t *checked)
{
	size_t from = *checked > 2 ? *checked - 2 : 0;	/* an empty line may straddle them */
	const char *end = buf + len, *nl;

	if (len >= HTTP_MAX_HEAD || memchr(buf + *checked, '\0', len - *checked))
		return false;
	for (nl = memchr(buf + from, '\n', len - from); nl && nl + 1 < end;
	     nl = memchr(nl + 1, '\n', end - nl - 1)) {
		if (nl[1] == '\n' || (nl[1] == '\r' && nl + 2 < end && nl[2] == '\n'))
			return false;
	}
	*checked = len;
	return true;
}

/*
 * The value of every header named name, joined with ", " as RFC 9110 allows for lists (Accept
 * may come in several lines). lines: the header lines, NUL-terminated; NULL if none.
 */
static char *header_value(char *lines, const char *name, char *buf, size_t size)
{
	size_t name_len = strlen(name), used = 0;
	bool found = false;

	for (char *line = lines; line && *line;) {
		char *eol = strchr(line, '\n');
		char *colon;

		if (eol)
			*eol = '\0';
		colon = strchr(line, ':');
		if (colon && (size_t)(colon - line) == name_len &&
		    !strncasecmp(line, name, name_len)) {
			char *v = colon + 1, *end = v + strlen(v);

			while (*v == ' ' || *v == '\t')
				v++;
			while (end > v && (end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
				end--;
			used += snprintf(buf + used, size - used, "%s%.*s", found ? ", " : "",
					 (int)(end - v), v);
			if (used >= size)
				used = size - 1;
			found = true;
		}
		if (eol)
			*eol = '\n';
		line = eol ? eol + 1 : NULL;
	}
	return found ? buf : NULL;
}

/* Whether the comma-separated list value names token (case-insensitive), as Connection does. */
static bool list_has(const char *value, const char *token)
{
	size_t n = strlen(token);

	while (value && *value) {
		size_t len;

		value += strspn(value, " \t,");
		len = strcspn(value, " \t,");
		if (len == n && !strncasecmp(value, token, n))
			return true;
		value += len;
	}
	return false;
}

/*
 * The request line "METHOD SP TARGET SP HTTP/d.d": method and target copied out (target without
 * its query: Prometheus may add params from its config), *minor the version's. 0, or the
 * status of what is wrong (400, 505).
 */
static int parse_request_line(const char *line, char *method, size_t method_size,
			      char *target, size_t target_size, int *minor)
{
	size_t m = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"), t;
	const char *p = line + m;

	if (!m || m >= method_size || *p != ' ')
		return 400;
	t = strcspn(++p, " \r\n");
	if (!t || t >= target_size || p[t] != ' ')
		return 400;
	memcpy(method, line, m);
	method[m] = '\0';
	memcpy(target, p, t);
	target[t] = '\0';
	target[strcspn(target, "?")] = '\0';
	p += t + 1;
	if (strncmp(p, "HTTP/", 5) || p[5] < '0' || p[5] > '9' || p[6] != '.' || p[7] < '0' ||
	    p[7] > '9' || !(p[8] == '\n' || (p[8] == '\r' && p[9] == '\n')))
		return 400;
	*minor = p[7] - '0';
	return p[5] == '1' ? 0 : 505;
}

static bool fail(struct http_request *req, int status, const char *why)
{
	req->status = status;
	req->error = why;
	req->keep_alive = false;
	return true;
}

/* The headers of a whole request line's head (NUL-terminated, writable). */
static bool parse_headers(char *lines, struct http_request *req)
{
	char value[1024];
	const char *conn, *len;

	len = header_value(lines, "Content-Length", value, sizeof(value));
	if (header_value(lines, "Transfer-Encoding", value, sizeof(value)) ||
	    (len && strcmp(len, "0")))
		return fail(req, 400, "a request with a body");
	conn = header_value(lines, "Connection", value, sizeof(value));
	req->keep_alive = req->http10 ? list_has(conn, "keep-alive") : !list_has(conn, "close");
	req->openmetrics = accept_wants_openmetrics(header_value(lines, "Accept", value,
								 sizeof(value)));
	req->gzip = accept_encoding_gzip(header_value(lines, "Accept-Encoding", value,
						      sizeof(value)));
	return true;
}

bool http_parse(const char *buf, size_t len, struct http_request *req)
{
	char head[HTTP_MAX_HEAD + 1], method[16], target[HTTP_MAX_HEAD];
	size_t end = http_head_end(buf, len);
	int minor = 0, status;

	*req = (struct http_request){ .len = end, .status = 200 };
	if (memchr(buf, '\0', end ? end : len < HTTP_MAX_HEAD ? len : HTTP_MAX_HEAD))
		return fail(req, 400, "a NUL byte in the request");
	if (!end)
		return len >= HTTP_MAX_HEAD ? fail(req, 431, "a request head over 8 KiB") : false;
	memcpy(head, buf, end);
	head[end] = '\0';
	status = parse_request_line(head, method, sizeof(method), target, sizeof(target), &minor);
	if (status)
		return fail(req, status, status == 400 ? "a bad request line" : "not HTTP/1.x");
	req->http10 = minor == 0;
	req->head_only = !strcmp(method, "HEAD");
	if (!req->head_only && strcmp(method, "GET"))
		return fail(req, 405, "a method but GET or HEAD");
	if (strcmp(target, "/metrics"))
		return fail(req, 404, "a path but /metrics");
	return parse_headers(strchr(head, '\n') + 1, req);
}
