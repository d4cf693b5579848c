// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf's config files: the git-style INI dialect perf 6.1 reads (util/config.c), the files it
 * reads and in which order, its booleans, and the layout `perf config` writes back.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/common.h"

/* perf's limits: a full variable name and a value, terminating NUL included */
#define CONFIG_NAME_MAX 256
#define CONFIG_VALUE_MAX 1024

/* One file being read, a character at a time, as perf's reader does. */
struct config_reader {
	FILE *f;
	int line;
	bool eof;
};

/* The next character; "\r\n" reads as '\n' and the end of the file as a final '\n'. */
static int next_char(struct config_reader *r)
{
	int c = fgetc(r->f);

	if (c == '\r') {
		c = fgetc(r->f);
		if (c != '\n') {
			ungetc(c, r->f);
			c = '\r';
		}
	}
	if (c == '\n')
		r->line++;
	if (c == EOF) {
		r->eof = true;
		c = '\n';
	}
	return c;
}

static bool is_key_char(int c)
{
	return isalnum(c) || c == '-' || c == '_';
}

/*
 * The value after '=', up to the end of the line: unquoted blanks are squeezed to one space
 * and dropped at both ends, '#' and ';' start a comment outside quotes, quotes only group, and
 * \t \b \n \\ \" are the only escapes (a backslash before the newline continues the line).
 * Returns false on an unknown escape, an open quote at the end of the line, or a long value.
 */
static bool read_value(struct config_reader *r, char *value)
{
	bool quoted = false, comment = false, blank = false;
	size_t len = 0;

	for (;;) {
		int c = next_char(r);

		if (len >= CONFIG_VALUE_MAX - 1)
			return false;
		if (c == '\n') {
			value[len] = '\0';
			return !quoted;
		}
		if (comment)
			continue;
		if (isspace(c) && !quoted) {
			blank = true;
			continue;
		}
		if (!quoted && (c == '#' || c == ';')) {
			comment = true;
			continue;
		}
		if (blank) {
			if (len)
				value[len++] = ' ';
			blank = false;
		}
		if (c == '\\') {
			c = next_char(r);
			switch (c) {
			case '\n':
				continue;
			case 't':
				c = '\t';
				break;
			case 'b':
				c = '\b';
				break;
			case 'n':
				c = '\n';
				break;
			case '\\':
			case '"':
				break;
			default:
				return false;
			}
			value[len++] = c;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		value[len++] = c;
	}
}

/*
 * The rest of a variable whose first letter is already in var[len - 1]: key characters kept
 * as written, then blanks, then `= value` or the end of the line. A variable without a value
 * or outside any section is an error, as perf's set does not take it.
 */
static int read_variable(struct perf_config *cfg, struct config_reader *r, char *var, size_t len,
			 bool from_system)
{
	char value[CONFIG_VALUE_MAX];
	int c;

	for (;;) {
		c = next_char(r);
		if (r->eof || !is_key_char(c))
			break;
		var[len++] = c;
		if (len >= CONFIG_NAME_MAX)
			return -EINVAL;
	}
	var[len] = '\0';
	while (c == ' ' || c == '\t')
		c = next_char(r);
	if (c != '=' || !read_value(r, value))
		return -EINVAL;
	return perf_config_set(cfg, var, value, from_system);
}

/* `[base "subsection"]` after the blank that ended base: the subsection keeps its case. */
static int read_subsection(struct config_reader *r, char *var, int len, int c)
{
	do {
		if (c == '\n')
			return -EINVAL;
		c = next_char(r);
	} while (isspace(c));
	if (c != '"')
		return -EINVAL;
	var[len++] = '.';
	for (;;) {
		c = next_char(r);
		if (c == '\n')
			return -EINVAL;
		if (c == '"')
			break;
		if (c == '\\') {
			c = next_char(r);
			if (c == '\n')
				return -EINVAL;
		}
		var[len++] = c;
		if (len > CONFIG_NAME_MAX / 2)
			return -EINVAL;
	}
	return next_char(r) == ']' ? len : -EINVAL;
}

/* A section header after its '[': the name, lowercased, into var; its length or -EINVAL. */
static int read_section(struct config_reader *r, char *var)
{
	int len = 0;

	for (;;) {
		int c = next_char(r);

		if (r->eof)
			return -EINVAL;
		if (c == ']')
			return len;
		if (isspace(c))
			return read_subsection(r, var, len, c);
		if (!is_key_char(c) && c != '.')
			return -EINVAL;
		if (len > CONFIG_NAME_MAX / 2)
			return -EINVAL;
		var[len++] = tolower(c);
	}
}

int perf_config_parse(struct perf_config *cfg, FILE *f, const char *name, bool from_system)
{
	static const unsigned char bom[] = "\xef\xbb\xbf";
	struct config_reader r = { .f = f, .line = 1 };
	char var[CONFIG_NAME_MAX];
	size_t bom_seen = 0;
	bool at_start = true, comment = false;
	int section_len = 0;

	for (;;) {
		int line, c = next_char(&r);

		/* a UTF-8 byte order mark may open the file, but not half of one */
		if (at_start) {
			if (bom_seen < 3 && (unsigned char)c == bom[bom_seen]) {
				bom_seen++;
				continue;
			}
			if (bom_seen && bom_seen < 3)
				break;
			at_start = false;
		}
		if (c == '\n') {
			if (r.eof)
				return 0;
			comment = false;
			continue;
		}
		if (comment || isspace(c))
			continue;
		if (c == '#' || c == ';') {
			comment = true;
			continue;
		}
		if (c == '[') {
			section_len = read_section(&r, var);
			if (section_len <= 0)
				break;
			var[section_len++] = '.';
			var[section_len] = '\0';
			continue;
		}
		if (!isalpha(c))
			break;
		var[section_len] = tolower(c);
		/* the error names the variable's line even when its value went on further */
		line = r.line;
		if (read_variable(cfg, &r, var, section_len + 1, from_system) < 0) {
			r.line = line;
			break;
		}
	}
	pr_err("bad config file line %d in %s", r.line, name);
	return -EINVAL;
}

static int parse_file(struct perf_config *cfg, const char *path, bool from_system)
{
	FILE *f = fopen(path, "r");
	int err;

	if (!f)
		return -errno;
	err = perf_config_parse(cfg, f, path, from_system);
	fclose(f);
	return err;
}

/* perf reads the user file only when it is not empty and owned by the caller or root. */
static bool user_file_usable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	if (st.st_uid && st.st_uid != geteuid()) {
		pr_err("File %s not owned by current user or root, ignoring it.", path);
		return false;
	}
	return st.st_size > 0;
}

int perf_config_load(struct perf_config *cfg, const struct config_files *files)
{
	memset(cfg, 0, sizeof(*cfg));
	if (files->exclusive) {
		/* a missing $PERF_CONFIG is no error, as in perf */
		return parse_file(cfg, files->exclusive, false) == -EINVAL ? -EINVAL : 0;
	}
	if (files->system && !access(files->system, R_OK) &&
	    parse_file(cfg, files->system, true) < 0)
		return -EINVAL;
	if (files->user && user_file_usable(files->user) &&
	    parse_file(cfg, files->user, false) == -EINVAL)
		return -EINVAL;
	return 0;
}

static bool env_bool(const char *name)
{
	const char *value = getenv(name);

	return value ? config_parse_bool(name, value) : false;
}

void config_files_from_env(struct config_files *files)
{
	const char *home = getenv("HOME");

	memset(files, 0, sizeof(*files));
	files->exclusive = getenv("PERF_CONFIG");
	if (!env_bool("PERF_CONFIG_NOSYSTEM"))
		files->system = PERF_SYSTEM_CONFIG;
	if (home && *home && !env_bool("PERF_CONFIG_NOGLOBAL"))
		files->user = xasprintf("%s/.perfconfig", home);
}

void config_files_free(struct config_files *files)
{
	free(files->user);
	files->user = NULL;
}

static struct config_item *find_item(const struct perf_config *cfg, const char *section,
				     const char *name)
{
	int i;

	for (i = 0; i < cfg->nr; i++) {
		if (!strcmp(cfg->items[i].section, section) && !strcmp(cfg->items[i].name, name))
			return &cfg->items[i];
	}
	return NULL;
}

int perf_config_set(struct perf_config *cfg, const char *key, const char *value,
		    bool from_system)
{
	const char *dot = strchr(key, '.');
	struct config_item *item;
	char *section;
	int at, i;

	if (!dot || !value)
		return -EINVAL;
	section = xasprintf("%.*s", (int)(dot - key), key);
	item = find_item(cfg, section, dot + 1);
	if (item) {
		free(section);
		free(item->value);
		item->value = xstrdup(value);
		item->from_system = from_system;
		return 0;
	}
	/* a new variable goes after the last one of its section, so sections stay together */
	at = cfg->nr;
	for (i = 0; i < cfg->nr; i++) {
		if (!strcmp(cfg->items[i].section, section))
			at = i + 1;
	}
	cfg->items = xrealloc(cfg->items, (cfg->nr + 1) * sizeof(*cfg->items));
	memmove(&cfg->items[at + 1], &cfg->items[at], (cfg->nr - at) * sizeof(*cfg->items));
	cfg->nr++;
	item = &cfg->items[at];
	item->section = section;
	item->name = xstrdup(dot + 1);
	item->value = xstrdup(value);
	item->from_system = from_system;
	return 0;
}

const char *perf_config_get(const struct perf_config *cfg, const char *key)
{
	const char *dot = strchr(key, '.');
	int i;

	if (!dot)
		return NULL;
	for (i = 0; i < cfg->nr; i++) {
		const struct config_item *item = &cfg->items[i];

		if (strlen(item->section) == (size_t)(dot - key) &&
		    !strncmp(item->section, key, dot - key) && !strcmp(item->name, dot + 1))
			return item->value;
	}
	return NULL;
}

/* perf_parse_long(): strtol in any base with an optional k, m or g factor. */
static bool parse_scaled_long(const char *value, long *out)
{
	long factor = 1;
	char *end;
	long val;

	if (!*value)
		return false;
	val = strtol(value, &end, 0);
	if (!strcasecmp(end, "k"))
		factor = 1024;
	else if (!strcasecmp(end, "m"))
		factor = 1024 * 1024;
	else if (!strcasecmp(end, "g"))
		factor = 1024 * 1024 * 1024;
	else if (*end)
		return false;
	*out = val * factor;
	return true;
}

bool config_parse_bool(const char *name, const char *value)
{
	long val;

	if (!value)
		return true;
	if (!*value)
		return false;
	if (!strcasecmp(value, "true") || !strcasecmp(value, "yes") || !strcasecmp(value, "on"))
		return true;
	if (!strcasecmp(value, "false") || !strcasecmp(value, "no") || !strcasecmp(value, "off"))
		return false;
	if (!parse_scaled_long(value, &val)) {
		pr_err("bad config value for '%s', ignoring...", name);
		return true;
	}
	/* perf keeps the number in an int: 4g is false there too */
	return (int)val != 0;
}

bool perf_config_get_bool(const struct perf_config *cfg, const char *key, bool def)
{
	const char *value = perf_config_get(cfg, key);

	return value ? config_parse_bool(key, value) : def;
}

/* Does the value read back as written? Else it is quoted, with perf's reader's escapes. */
static bool value_needs_quotes(const char *value)
{
	size_t len = strlen(value);
	const char *p;

	if (len && (isspace((unsigned char)value[0]) || isspace((unsigned char)value[len - 1])))
		return true;
	for (p = value; *p; p++) {
		if (strchr("#;\"\\\t\n\b", *p) || (p[0] == ' ' && p[1] == ' '))
			return true;
	}
	return false;
}

static void write_quoted(FILE *f, const char *s, bool escape_controls)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (escape_controls && *s == '\n')
			fputs("\\n", f);
		else if (escape_controls && *s == '\t')
			fputs("\\t", f);
		else if (escape_controls && *s == '\b')
			fputs("\\b", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

/* Length of the subsection part of a name ("sub." of "sub.key"), 0 when it has none. */
static size_t subsection_len(const char *name)
{
	const char *last_dot = strrchr(name, '.');

	return last_dot ? (size_t)(last_dot + 1 - name) : 0;
}

static bool same_header(const struct config_item *a, const struct config_item *b)
{
	size_t sub = subsection_len(a->name);

	return !strcmp(a->section, b->section) && sub == subsection_len(b->name) &&
	       !strncmp(a->name, b->name, sub);
}

/*
 * `[section]`, or `[section "sub"]` for a name with dots: perf writes those under the plain
 * section, where they no longer parse.
 */
static void write_header(FILE *f, const struct config_item *item)
{
	size_t sub = subsection_len(item->name);

	fprintf(f, "[%s", item->section);
	if (sub) {
		char *name = xasprintf("%.*s", (int)sub - 1, item->name);

		fputc(' ', f);
		write_quoted(f, name, false);
		free(name);
	}
	fputs("]\n", f);
}

int perf_config_write(const struct perf_config *cfg, const char *path, bool with_system)
{
	const struct config_item *prev = NULL;
	FILE *f = fopen(path, "w");
	int i, err = 0;

	if (!f)
		return -errno;
	fputs("# this file is auto-generated.\n", f);
	for (i = 0; i < cfg->nr; i++) {
		const struct config_item *item = &cfg->items[i];

		if (item->from_system && !with_system)
			continue;
		if (!prev || !same_header(prev, item))
			write_header(f, item);
		fprintf(f, "\t%s = ", item->name + subsection_len(item->name));
		if (value_needs_quotes(item->value))
			write_quoted(f, item->value, true);
		else
			fputs(item->value, f);
		fputc('\n', f);
		prev = item;
	}
	if (ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

void perf_config_free(struct perf_config *cfg)
{
	int i;

	for (i = 0; i < cfg->nr; i++) {
		free(cfg->items[i].section);
		free(cfg->items[i].name);
		free(cfg->items[i].value);
	}
	free(cfg->items);
	cfg->items = NULL;
	cfg->nr = 0;
}

bool config_list_has_token(const char *list, const char *name)
{
	size_t name_len = strlen(name);
	const char *p = list;

	if (!list || !name_len)
		return false;
	while (*p) {
		const char *end = strchrnul(p, ',');
		const char *tok_end = end;

		while (p < tok_end && isspace((unsigned char)*p))
			p++;
		while (tok_end > p && isspace((unsigned char)tok_end[-1]))
			tok_end--;
		if ((size_t)(tok_end - p) == name_len && !strncmp(p, name, name_len))
			return true;
		p = *end ? end + 1 : end;
	}
	return false;
}

void stat_config_vars_read(struct stat_config_vars *vars)
{
	struct config_files files;
	struct perf_config cfg;
	const char *value;
	int i;

	config_files_from_env(&files);
	perf_config_load(&cfg, &files);
	/* in perf's order: every variable of the set in turn, so warnings come in that order */
	memset(vars, 0, sizeof(*vars));
	vars->big_num = -1;
	for (i = 0; i < cfg.nr; i++) {
		const struct config_item *item = &cfg.items[i];
		char *key = xasprintf("%s.%s", item->section, item->name);

		if (!strcmp(key, "stat.big-num"))
			vars->big_num = config_parse_bool(key, item->value);
		else if (!strcmp(key, "stat.no-csv-summary"))
			vars->no_csv_summary = config_parse_bool(key, item->value);
		free(key);
	}
	value = perf_config_get(&cfg, "stat.bpf-counter-events");
	if (value)
		vars->bpf_counter_events = xstrdup(value);
	value = perf_config_get(&cfg, "daemon.socket");
	if (value)
		vars->daemon_socket = xstrdup(value);
	perf_config_free(&cfg);
	config_files_free(&files);
}

void stat_config_vars_free(struct stat_config_vars *vars)
{
	free(vars->bpf_counter_events);
	vars->bpf_counter_events = NULL;
	free(vars->daemon_socket);
	vars->daemon_socket = NULL;
}
