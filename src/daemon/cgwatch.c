// SPDX-License-Identifier: GPL-2.0-only
/* The daemon's cgroups: a walk below its root, redone on inotify events and every few seconds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common.h"
#include "../events/cgroup.h"
#include "cgwatch.h"

/*
 * The repair walk's period. inotify misses nothing but on a queue overflow, which makes a walk
 * at once; a walk of 1,000 cgroups takes 40-50 ms here (2 vCPUs), so it is not done often.
 */
#define CGWATCH_RESCAN_MS 10000
#define CGWATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

struct cgwatch {
	struct loop *loop;
	struct registry *reg;
	char mount[PATH_MAX];	/* perf's cgroup mount */
	char *root;		/* below the mount: "" for all of it, else "/a/b" */
	int verbose;
	int inotify_fd;
	int timer_fd;
	struct cgroup_entry *list;	/* the cgroups, sorted by path between events */
	int nr, cap;
	struct watched *watched;	/* sorted by wd: the kernel hands them out increasing */
	int nr_watched, watched_cap;
};

/* A watched directory: inotify names it by wd in its events. */
struct watched {
	int wd;
	char *rel;	/* below the mount, as root or a cgroup_entry's path */
};

static struct watched *find_watched(struct cgwatch *w, int wd)
{
	int lo = 0, hi = w->nr_watched;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (w->watched[mid].wd == wd)
			return &w->watched[mid];
		if (w->watched[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void watch_dir(struct cgwatch *w, const char *rel)
{
	char *full = xasprintf("%s%s", w->mount, rel);
	int wd = inotify_add_watch(w->inotify_fd, full, CGWATCH_MASK);
	struct watched *old;

	if (wd < 0 && errno != ENOENT)
		pr_debug(w->verbose, 1, "bperf daemon: cannot watch %s: %s", full,
			 strerror(errno));
	free(full);
	if (wd < 0)
		return;
	/* the kernel keeps one watch per directory: adding it again renews it, same wd */
	old = find_watched(w, wd);
	if (old) {
		free(old->rel);
		old->rel = xstrdup(rel);
		return;
	}
	if (w->nr_watched && wd < w->watched[w->nr_watched - 1].wd) {
		/* wds wrapped (never in practice): a fresh table from the next walk */
		pr_debug(w->verbose, 1, "bperf daemon: inotify wd %d out of order", wd);
		return;
	}
	if (w->nr_watched == w->watched_cap) {
		w->watched_cap = w->watched_cap ? 2 * w->watched_cap : 64;
		w->watched = xrealloc(w->watched, w->watched_cap * sizeof(*w->watched));
	}
	w->watched[w->nr_watched].wd = wd;
	w->watched[w->nr_watched++].rel = xstrdup(rel);
}

static void unwatched(struct cgwatch *w, int wd)
{
	struct watched *e = find_watched(w, wd);

	if (!e)
		return;
	free(e->rel);
	memmove(e, e + 1, (w->watched + w->nr_watched - (e + 1)) * sizeof(*e));
	w->nr_watched--;
}

static void list_add(struct cgwatch *w, char *path, __u64 id)
{
	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->list = xrealloc(w->list, w->cap * sizeof(*w->list));
	}
	w->list[w->nr].path = path;
	w->list[w->nr++].id = id;
}

static void list_clear(struct cgwatch *w)
{
	for (int i = 0; i < w->nr; i++)
		free(w->list[i].path);
	w->nr = 0;
}

/*
 * Every directory below fd (rel below the mount), each watched BEFORE it is read: a
 * directory made after the read raises an event and another walk, none falls in between.
 */
static void walk(struct cgwatch *w, int fd, const char *rel)
{
	struct dirent *de;
	DIR *d;

	watch_dir(w, rel);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int sub;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		sub = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (sub < 0)
			continue;	/* removed meanwhile */
		if (fstat(sub, &st)) {
			close(sub);
			continue;
		}
		/* a cgroup's kernfs id is its directory's inode number, as -G takes it */
		list_add(w, xasprintf("%s/%s", rel, de->d_name), st.st_ino);
		walk(w, sub, w->list[w->nr - 1].path);
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cgroup_entry *)a)->path,
		      ((const struct cgroup_entry *)b)->path);
}

/* Sorted, each path once (a new directory can be both walked and reported), registered. */
static void publish(struct cgwatch *w)
{
	int i, n = 0;

	qsort(w->list, w->nr, sizeof(*w->list), by_path);
	for (i = 0; i < w->nr; i++) {
		if (n && !strcmp(w->list[n - 1].path, w->list[i].path)) {
			free(w->list[n - 1].path);
			n--;
		}
		w->list[n++] = w->list[i];
	}
	w->nr = n;
	registry_set_cgroups(w->reg, w->list, w->nr);
	pr_debug(w->verbose, 2, "bperf daemon: %d cgroups below the root", w->nr);
}

static int rescan(struct cgwatch *w)
{
	char *top = xasprintf("%s%s", w->mount, w->root);
	int fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int err = fd < 0 ? -errno : 0;
	unsigned long long t0 = now_ns();
	struct stat st;

	free(top);
	list_clear(w);
	/* a root below the mount's is counted too; the mount's own is cgroup "/", the CPU */
	if (fd >= 0 && *w->root && !fstat(fd, &st))
		list_add(w, xstrdup(w->root), st.st_ino);
	if (fd >= 0)
		walk(w, fd, w->root);
	/* a root that went away: no cgroups until it comes back (the repair walk looks) */
	publish(w);
	pr_debug(w->verbose, 2, "bperf daemon: %d cgroups walked and registered in %.3f ms", w->nr,
		 (now_ns() - t0) / 1e6);
	return err;
}

/* A directory made below a watched one: it and whatever was made in it already. */
static void dir_made(struct cgwatch *w, const char *parent, const char *name)
{
	char *rel = xasprintf("%s/%s", parent, name);
	char *full = xasprintf("%s%s", w->mount, rel);
	int fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	free(full);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		free(rel);	/* gone again already */
		return;
	}
	list_add(w, rel, st.st_ino);
	walk(w, fd, rel);
}

/*
 * A directory removed: it and everything below it (rmdir takes empty cgroups only, but the
 * events of its children may still be queued behind this one).
 */
static void dir_gone(struct cgwatch *w, const char *parent, const char *name)
{
	char *rel = xasprintf("%s/%s", parent, name);
	size_t len = strlen(rel);
	int i, n = 0;

	for (i = 0; i < w->nr; i++) {
		const char *p = w->list[i].path;

		if (!strncmp(p, rel, len) && (!p[len] || p[len] == '/'))
			free(w->list[i].path);
		else
			w->list[n++] = w->list[i];
	}
	w->nr = n;
	free(rel);
}

/*
 * Only what the events name is looked at: a full walk of 1,000 cgroups costs tens of ms. A
 * queue overflow or a rename (paths below it change) makes a full walk.
 */
static void on_inotify(void *arg, int fd, unsigned int revents)
{
	struct cgwatch *w = arg;
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false, full = false;
	ssize_t len;

	(void)revents;
	while ((len = read(fd, buf, sizeof(buf))) > 0) {
		const struct inotify_event *ev;
		char *p;

		for (p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			const struct watched *dir;

			ev = (const struct inotify_event *)p;
			if (ev->mask & (IN_Q_OVERFLOW | IN_MOVED_FROM | IN_MOVED_TO))
				full = true;
			if (ev->mask & IN_IGNORED)
				unwatched(w, ev->wd);
			if (full || !(ev->mask & IN_ISDIR) || !ev->len)
				continue;
			dir = find_watched(w, ev->wd);
			if (!dir) {
				full = true;
				continue;
			}
			if (ev->mask & IN_CREATE)
				dir_made(w, dir->rel, ev->name);
			else if (ev->mask & IN_DELETE)
				dir_gone(w, dir->rel, ev->name);
			changed = true;
		}
	}
	if (full)
		rescan(w);
	else if (changed)
		publish(w);
}

static void on_timer(void *arg, int fd, unsigned int revents)
{
	(void)fd;
	(void)revents;
	rescan(arg);
}

/* "", "/", "a/", "/a//b" -> "", "", "/a", "/a/b" */
static char *normalize_root(const char *root)
{
	char *out = xzalloc(strlen(root) + 2), *o = out;
	const char *p = root;

	while (*p) {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (!len)
			break;
		*o++ = '/';
		memcpy(o, p, len);
		o += len;
		p += len;
	}
	return out;
}

int cgwatch_start(struct loop *l, const char *root, int verbose, struct registry *r,
		  struct cgwatch **out)
{
	struct cgwatch *w = xzalloc(sizeof(*w));
	struct stat st;
	char *top;
	int err;

	w->loop = l;
	w->reg = r;
	w->verbose = verbose;
	w->timer_fd = -1;
	if (cgroup_mountpoint(w->mount, sizeof(w->mount))) {
		pr_err("bperf daemon: no cgroup hierarchy for perf events is mounted "
		       "(cgroup2, or v1 with perf_event)");
		free(w);
		return -ENOENT;
	}
	w->root = normalize_root(root);
	top = xasprintf("%s%s", w->mount, w->root);
	err = stat(top, &st) ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (err)
		pr_err("bperf daemon: no cgroup %s in %s: %s", *w->root ? w->root : "/", w->mount,
		       strerror(-err));
	free(top);
	if (err) {
		free(w->root);
		free(w);
		return err;
	}
	w->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (w->inotify_fd < 0) {
		err = -errno;
		pr_err("bperf daemon: inotify: %s", strerror(-err));
		free(w->root);
		free(w);
		return err;
	}
	err = loop_add(l, w->inotify_fd, EPOLLIN, on_inotify, w);
	if (!err) {
		w->timer_fd = loop_add_timer(l, CGWATCH_RESCAN_MS, on_timer, w);
		err = w->timer_fd < 0 ? w->timer_fd : 0;
	}
	if (err) {
		pr_err("bperf daemon: cannot watch cgroups: %s", strerror(-err));
		cgwatch_stop(w);
		return err;
	}
	rescan(w);
	pr_debug(verbose, 1, "bperf daemon: %d cgroups below %s%s", w->nr, w->mount, w->root);
	*out = w;
	return 0;
}

void cgwatch_stop(struct cgwatch *w)
{
	if (!w)
		return;
	loop_del(w->loop, w->inotify_fd);
	close(w->inotify_fd);
	if (w->timer_fd >= 0) {
		loop_del(w->loop, w->timer_fd);
		close(w->timer_fd);
	}
	list_clear(w);
	free(w->list);
	for (int i = 0; i < w->nr_watched; i++)
		free(w->watched[i].rel);
	free(w->watched);
	free(w->root);
	free(w);
}
