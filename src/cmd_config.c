// SPDX-License-Identifier: GPL-2.0-only
/* `bperf config`: list, get and set variables of perf's config files as `perf config` does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "config.h"
#include "util/parse_options.h"

static const char *const config_usage[] = {
	"bperf config [<file-option>] [options] [section.name[=value] ...]",
	NULL,
};

struct config_cmd {
	bool list;
	bool use_system;
	bool use_user;
	struct config_files files;
	const char *target;	/* the file written, and named in messages */
	struct perf_config cfg;
	bool changed;
};

/*
 * Splits "section.name[=value]" in place as perf does: *value is NULL for a get. Returns
 * false after perf's message.
 */
static bool split_config_arg(char *arg, char **var, char **value)
{
	char *dot = strchr(arg, '.');
	char *eq;

	if (!dot || dot == arg) {
		pr_err("The config variable does not contain a section name: %s", arg);
		return false;
	}
	if (!dot[1]) {
		pr_err("The config variable does not contain a variable name: %s", arg);
		return false;
	}
	*var = arg;
	*value = NULL;
	eq = strchr(arg, '=');
	if (!eq)
		return true;
	if (!eq[1]) {
		pr_err("The config variable does not contain a value: %s", arg);
		return false;
	}
	*eq = '\0';
	*value = eq + 1;
	if (!arg[0]) {
		pr_err("invalid config variable: %s", *value);
		return false;
	}
	return true;
}

static void list_config(const struct perf_config *cfg)
{
	int i;

	for (i = 0; i < cfg->nr; i++)
		printf("%s.%s=%s\n", cfg->items[i].section, cfg->items[i].name,
		       cfg->items[i].value);
}

/* Each argument in turn: gets print at once, sets are written together at the end. */
static int run_args(struct config_cmd *c, int argc, const char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *arg = xstrdup(argv[i]);
		char *var, *value;
		const char *found;

		if (!split_config_arg(arg, &var, &value)) {
			free(arg);
			return EXIT_FATAL;
		}
		if (!value) {
			found = perf_config_get(&c->cfg, var);
			if (found)
				printf("%s=%s\n", var, found);
		} else if (perf_config_set(&c->cfg, var, value, c->use_system) < 0) {
			pr_err("Failed to add '%s=%s'", var, value);
			free(arg);
			return EXIT_FATAL;
		} else {
			c->changed = true;
		}
		free(arg);
	}
	/*
	 * Read from one file only (--system, --user, $PERF_CONFIG), the set is that file's whole
	 * content; read from both, the system file's variables stay out of the user file.
	 */
	if (c->changed &&
	    perf_config_write(&c->cfg, c->target, c->use_system || c->files.exclusive) < 0) {
		pr_err("Failed to set the configs on %s", c->target);
		return EXIT_FATAL;
	}
	return 0;
}

int cmd_config(int argc, const char **argv, const struct top_opts *top)
{
	struct config_cmd c = { 0 };
	char *user_file = xasprintf("%s/.perfconfig", getenv("HOME") ?: "(null)");
	const struct option options[] = {
		{ OPT_BOOLEAN, 'l', "list", &c.list, NULL, "print every variable that is set" },
		{ OPT_BOOLEAN, 0, "system", &c.use_system, NULL,
		  "read and write the system config file" },
		{ OPT_BOOLEAN, 0, "user", &c.use_user, NULL,
		  "read and write the user config file" },
		{ OPT_END },
	};
	int first, code = 0;

	first = parse_options(argc, argv, options, config_usage);
	if (first == PARSE_OPT_HELP)
		usage_with_options(config_usage, options);
	if (first < 0) {
		free(user_file);
		return EXIT_USAGE;
	}
	if (c.use_system && c.use_user) {
		pr_err("Error: only one config file at a time");
		usage_for_options(config_usage, options, "user", false);
		usage_for_options(NULL, options, "system", false);
		free(user_file);
		return EXIT_FATAL;
	}
	config_files_from_env(&c.files);
	if (c.use_system)
		c.files.exclusive = PERF_SYSTEM_CONFIG;
	else if (c.use_user)
		c.files.exclusive = user_file;
	c.target = c.files.exclusive ?: user_file;
	/* a bad line has been reported; perf goes on with what was read before it */
	perf_config_load(&c.cfg, &c.files);

	argc -= first;
	argv += first;
	if (c.list && argc) {
		pr_err("Error: takes no arguments");
		usage_for_options(config_usage, options, "l", true);
	} else if (c.list || !argc) {
		list_config(&c.cfg);
	} else {
		code = run_args(&c, argc, argv);
	}
	perf_config_free(&c.cfg);
	config_files_free(&c.files);
	free(user_file);
	return code;
}
