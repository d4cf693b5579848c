/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf's config files (/etc/perfconfig, ~/.perfconfig, $PERF_CONFIG): git-style INI files read
 * with perf 6.1's rules into one set of `section.name = value` variables, and written back.
 */
#ifndef BPERF_CONFIG_H
#define BPERF_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

/* perf's ETC_PERFCONFIG, as /usr/bin/perf of Debian's linux-perf has it */
#define PERF_SYSTEM_CONFIG "/etc/perfconfig"

/*
 * One variable. As perf does, section is what precedes the first '.' of the full name and
 * name the rest: `[report "Sub"] key` is section "report", name "Sub.key".
 */
struct config_item {
	char *section;
	char *name;
	char *value;
	bool from_system;	/* read from the system file: `config` writes it there only */
};

/* Every variable read, in the order perf lists them: by section, then first appearance. */
struct perf_config {
	struct config_item *items;
	int nr;
};

/* Which files to read; NULL leaves a file out. */
struct config_files {
	const char *exclusive;	/* $PERF_CONFIG: when set, the only file read */
	const char *system;	/* PERF_SYSTEM_CONFIG unless $PERF_CONFIG_NOSYSTEM */
	char *user;		/* $HOME/.perfconfig unless $PERF_CONFIG_NOGLOBAL or no $HOME */
};

/* The files perf reads, from the environment. */
void config_files_from_env(struct config_files *files);
void config_files_free(struct config_files *files);

/*
 * Reads files into cfg in perf's order: the exclusive file alone, else the system file then
 * the user file (later values win). A user file owned by someone else than the caller or root
 * is ignored with a warning, and so is an empty one; a missing file is no error. A malformed
 * line prints perf's `bad config file line N in FILE` and ends the reading: what came before
 * it stays, and after a bad system file the user file is not read. Returns 0 or -EINVAL.
 */
int perf_config_load(struct perf_config *cfg, const struct config_files *files);

/* Parses one open file (name is for messages). 0, or -EINVAL after the message. */
int perf_config_parse(struct perf_config *cfg, FILE *f, const char *name, bool from_system);

/*
 * Sets `section.name` (key) to value, replacing an existing value; -EINVAL when key has no
 * '.' (perf keeps such variables out of its set).
 */
int perf_config_set(struct perf_config *cfg, const char *key, const char *value,
		    bool from_system);

/* The value of `section.name`, or NULL. */
const char *perf_config_get(const struct perf_config *cfg, const char *key);

/*
 * perf_config_bool(): true/yes/on, false/no/off (any case), "" is false, else an integer
 * (k/m/g suffixes allowed) that is true when non-zero. A bad value prints perf's
 * `bad config value for 'name', ignoring...` and counts as true, as in perf 6.1.
 */
bool config_parse_bool(const char *name, const char *value);

/* The boolean value of key, def when it is not set. */
bool perf_config_get_bool(const struct perf_config *cfg, const char *key, bool def);

/*
 * Writes cfg to path the way `perf config` does: a `# this file is auto-generated.` line, then
 * each section with `\tname = value` lines; variables from the system file are left out unless
 * with_system. Returns 0 or -errno.
 */
int perf_config_write(const struct perf_config *cfg, const char *path, bool with_system);

void perf_config_free(struct perf_config *cfg);

/*
 * stat.bpf-counter-events: is name one of the comma-separated tokens of list (blanks around a
 * token ignored)? Every token is checked, unlike perf 6.1 which looks at the first occurrence
 * of name only ("ref-cycles,cycles" never matches "cycles" there).
 */
bool config_list_has_token(const char *list, const char *name);

/* The stat.* variables perf 6.1 takes from its config files. */
struct stat_config_vars {
	int big_num;			/* stat.big-num: 0 or 1, -1 when not set */
	bool no_csv_summary;		/* stat.no-csv-summary */
	char *bpf_counter_events;	/* stat.bpf-counter-events, NULL when not set */
	char *daemon_socket;		/* daemon.socket (bperf daemon's socket), or NULL */
};

/*
 * Reads the config files perf would read (config_files_from_env()) for `stat`; bad lines and
 * bad values are reported as perf does and never fatal.
 */
void stat_config_vars_read(struct stat_config_vars *vars);
void stat_config_vars_free(struct stat_config_vars *vars);

/* `bperf config ...`: returns the exit code. */
struct top_opts;
/* `bperf config` (it prints no debug lines: top is for the command table) */
int cmd_config(int argc, const char **argv, const struct top_opts *top);

#endif
