// SPDX-License-Identifier: GPL-2.0-only
/* -G and --for-each-cgroup: which cgroup each evsel counts in. */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"

/* True when word is one of the comma-separated items of list. */
static bool list_has_item(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = list; (p = strstr(p, word)); p += len)
		if ((p == list || p[-1] == ',') && (p[len] == ',' || !p[len]))
			return true;
	return false;
}

int cgroup_mountpoint(char *buf, size_t size)
{
	char dev[256], dir[PATH_MAX], type[64], opts[1024];
	bool found = false;
	FILE *f = fopen("/proc/mounts", "r");

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %1023s %*d %*d", dev, dir, type, opts) == 4) {
		if (!strcmp(type, "cgroup2")) {
			/* perf keeps the last v2 mount, unless a v1 perf_event one comes up */
			snprintf(buf, size, "%s", dir);
			found = true;
		} else if (!strcmp(type, "cgroup") && list_has_item(opts, "perf_event")) {
			snprintf(buf, size, "%s", dir);
			found = true;
			break;
		}
	}
	fclose(f);
	return found ? 0 : -ENOENT;
}

/* Opens mnt/name; perf's message when it cannot. */
static struct evsel_cgroup *cgroup_new(struct evlist *evlist, const char *mnt, const char *name)
{
	struct evsel_cgroup *cg;
	char *path = xasprintf("%s/%s", mnt, name);
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		pr_err("no access to cgroup %s", path);
		free(path);
		return NULL;
	}
	free(path);
	cg = xzalloc(sizeof(*cg));
	cg->name = xstrdup(name);
	cg->fd = fd;
	/* a cgroup's kernfs id is its directory's inode number (64-bit kernels) */
	if (!fstat(fd, &st))
		cg->id = st.st_ino;
	evlist->cgroups = xrealloc(evlist->cgroups,
				   (evlist->nr_cgroups + 1) * sizeof(*evlist->cgroups));
	evlist->cgroups[evlist->nr_cgroups++] = cg;
	cg->idx = evlist->nr_cgroups;
	return cg;
}

static int find_mountpoint(char *mnt, size_t size)
{
	if (!cgroup_mountpoint(mnt, size))
		return 0;
	pr_err("no cgroup hierarchy for perf events is mounted (cgroup2, or v1 with perf_event)");
	return -ENOENT;
}

/* -G reuses a cgroup already named, as perf does. */
static struct evsel_cgroup *cgroup_findnew(struct evlist *evlist, const char *mnt,
					   const char *name)
{
	int i;

	for (i = 0; i < evlist->nr_cgroups; i++)
		if (!strcmp(evlist->cgroups[i]->name, name))
			return evlist->cgroups[i];
	return cgroup_new(evlist, mnt, name);
}

int evlist_add_cgroups(struct evlist *evlist, const char *list)
{
	char mnt[PATH_MAX];
	const char *p = list;
	int i;

	if (!evlist->nr) {
		pr_err("must define events before cgroups");
		return -EINVAL;
	}
	for (;;) {
		size_t len = strcspn(p, ",");

		/* an empty entry leaves its event alone, but still takes its place */
		if (len) {
			char *name = strndup(p, len);
			struct evsel_cgroup *cg = NULL;

			if (!find_mountpoint(mnt, sizeof(mnt)))
				cg = cgroup_findnew(evlist, mnt, name);
			free(name);
			if (!cg)
				return -EINVAL;
			/* perf says nothing but the usage when there are more cgroups than events */
			if (evlist->nr_cgroup_args >= evlist->nr)
				return -EINVAL;
			evlist->entries[evlist->nr_cgroup_args].cgroup = cg;
		}
		evlist->nr_cgroup_args++;
		if (!p[len])
			break;
		p += len + 1;
	}
	/* one cgroup for the whole event list */
	if (evlist->nr_cgroup_args == 1)
		for (i = 1; i < evlist->nr; i++)
			evlist->entries[i].cgroup = evlist->entries[0].cgroup;
	return 0;
}

struct cgroup_paths {
	char **paths;	/* relative to the mount, "" for the root */
	bool *used;
	int nr;
};

static void paths_add(struct cgroup_paths *cp, const char *path)
{
	cp->paths = xrealloc(cp->paths, (cp->nr + 1) * sizeof(*cp->paths));
	cp->used = xrealloc(cp->used, (cp->nr + 1) * sizeof(*cp->used));
	cp->paths[cp->nr] = xstrdup(path);
	cp->used[cp->nr++] = false;
}

static void paths_free(struct cgroup_paths *cp)
{
	int i;

	for (i = 0; i < cp->nr; i++)
		free(cp->paths[i]);
	free(cp->paths);
	free(cp->used);
}

/* Every cgroup below mnt/rel, parents first, in directory order (as perf's ftw() walk). */
static void walk_cgroups(struct cgroup_paths *cp, const char *mnt, const char *rel)
{
	char *dir = xasprintf("%s%s%s", mnt, *rel ? "/" : "", rel);
	DIR *d = opendir(dir);
	struct dirent *de;

	free(dir);
	paths_add(cp, rel);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *sub;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = xasprintf("%s%s%s", rel, *rel ? "/" : "", de->d_name);
		walk_cgroups(cp, mnt, sub);
		free(sub);
	}
	closedir(d);
}

/* perf takes the list for patterns when it holds any of these */
static bool has_pattern(const char *list)
{
	return strpbrk(list, "{}[]()|*+?^$") != NULL;
}

/* Marks the cgroups that an entry matches (basic regular expressions, as perf). */
static int match_entry(struct cgroup_paths *cp, const char *entry)
{
	regex_t re;
	int i, err;

	if (!*entry) {
		cp->used[0] = true;	/* the root */
		return 0;
	}
	err = regcomp(&re, entry, REG_NOSUB);
	if (err) {
		char msg[128];

		regerror(err, &re, msg, sizeof(msg));
		pr_err("invalid cgroup pattern '%s': %s", entry, msg);
		return -EINVAL;
	}
	for (i = 0; i < cp->nr; i++)
		if (!regexec(&re, cp->paths[i], 0, NULL, 0))
			cp->used[i] = true;
	regfree(&re);
	return 0;
}

/* The cgroups LIST names, in order: as given, or the matches of its patterns. */
static int select_cgroups(struct cgroup_paths *cp, const char *mnt, const char *list)
{
	bool patterns = has_pattern(list);
	const char *p = list;
	int err = 0;

	if (patterns)
		walk_cgroups(cp, mnt, "");
	for (;;) {
		size_t len = strcspn(p, ",");
		char *entry = strndup(p, len);

		if (patterns) {
			err = match_entry(cp, entry);
		} else {
			/* an empty name is the root, printed "/" */
			paths_add(cp, len ? entry : "/");
			cp->used[cp->nr - 1] = true;
		}
		free(entry);
		if (err || !p[len])
			return err;
		p += len + 1;
	}
}

int evlist_expand_cgroups(struct evlist *evlist, const char *list)
{
	struct evlist orig = *evlist;
	struct cgroup_paths cp = { 0 };
	char mnt[PATH_MAX];
	int i, j, err;

	if (!evlist->nr) {
		pr_err("must define events before cgroups");
		return -EINVAL;
	}
	err = find_mountpoint(mnt, sizeof(mnt));
	if (!err)
		err = select_cgroups(&cp, mnt, list);
	/* the copies go into the emptied list; the originals are freed at the end */
	evlist->entries = NULL;
	evlist->nr = 0;
	for (i = 0; !err && i < cp.nr; i++) {
		struct evsel_cgroup *cg;

		if (!cp.used[i])
			continue;
		cg = cgroup_new(evlist, mnt, cp.paths[i]);
		if (!cg) {
			err = -EINVAL;
			break;
		}
		for (j = 0; j < orig.nr; j++) {
			evlist_append_copy(evlist, &orig.entries[j]);
			evlist->entries[evlist->nr - 1].cgroup = cg;
		}
		evlist->nr_cgroup_args++;
	}
	if (!err && !evlist->nr) {
		pr_err("no cgroup matched: %s", list);
		err = -EINVAL;
	}
	paths_free(&cp);
	orig.cgroups = NULL;
	orig.nr_cgroups = 0;
	if (err) {
		/* put the original list back */
		struct evlist copies = { .entries = evlist->entries, .nr = evlist->nr };

		evlist_free(&copies);
		evlist->entries = orig.entries;
		evlist->nr = orig.nr;
		return err;
	}
	evlist_free(&orig);
	return 0;
}

void evlist_free_cgroups(struct evlist *evlist)
{
	int i;

	for (i = 0; i < evlist->nr_cgroups; i++) {
		close(evlist->cgroups[i]->fd);
		free(evlist->cgroups[i]->name);
		free(evlist->cgroups[i]);
	}
	free(evlist->cgroups);
	evlist->cgroups = NULL;
	evlist->nr_cgroups = 0;
	evlist->nr_cgroup_args = 0;
}
