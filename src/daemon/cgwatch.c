// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's cgroups (cgwatch.h): one walk at the start, then inotify events applied to a
 * sorted list, registered in batches; a cheap count check, or periodic walks where inotify
 * cannot watch every directory.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "../util/common.h"
#include "../events/cgroup.h"
#include "cgwatch.h"

/*
 * The check's period. With every directory watched it reads one number (cgroup2's
 * nr_descendants) and walks only when that disagrees twice; without (the watch limit), it is
 * the period of full walks, which cost 20 to 50 ms per 1,000 cgroups here.
 */
#define CGWATCH_CHECK_MS 10000
/*
 * Changes are registered together, this long after the first of them, and at most once per
 * CGWATCH_PUBLISH_GAP_MS: each registration merges the whole list (0.6 to 3 ms for 10,000
 * cgroups here), so that under churn (100 cgroups made and removed a second) registering every
 * 100 ms cost 1.25% of a CPU and every 250 ms 0.68%.
 */
#define CGWATCH_PUBLISH_MS 100
#define CGWATCH_PUBLISH_GAP_MS 250
#define CGWATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

/* A cgroup found: what is registered of it, and the watch on its directory. */
struct tracked {
	char *path;	/* below the mount, as cgroup_entry's */
	__u64 id;
	int wd;		/* -1: not watched */
};

/* A watched directory: inotify names it by wd in its events. */
struct watched {
	int wd;
	unsigned int gen;	/* the walk that last watched it */
	char *rel;		/* below the mount, as root or a cgroup_entry's path */
};

struct cgwatch {
	struct loop *loop;
	struct registry *reg;
	char mount[PATH_MAX];	/* perf's cgroup mount */
	char *root;		/* below the mount: "" for all of it, else "/a/b" */
	char *top;		/* mount and root */
	int verbose;
	int inotify_fd, check_fd, publish_fd;
	struct tracked *list;	/* the cgroups, sorted by path (but within a walk) */
	int nr, cap;
	struct cgroup_entry *pub;	/* list as registry_set_cgroups() takes it */
	int pub_cap;
	bool bulk;		/* a full walk appends; it sorts at the end */
	bool dirty;		/* list differs from what is registered */
	bool publish_armed;
	unsigned long long published_ns;	/* when the last registration was */
	struct watched *watched;	/* sorted by wd */
	int nr_watched, watched_cap;
	int root_wd;		/* -1: the root is not watched (gone) */
	unsigned int gen;	/* full walks so far */
	bool watch_full;	/* inotify_add_watch met the watch limit in this walk */
	bool fallback;		/* some directory is not watched: full walks every check */
	bool fallback_said;
	int mismatches;		/* checks in a row where the kernel's count differed */
	long long kept_kernel;	/* a difference a walk did not resolve: not walked for again */
	int kept_ours;
};

static int watched_lower_bound(const struct cgwatch *w, int wd)
{
	int lo = 0, hi = w->nr_watched;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (w->watched[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct watched *find_watched(struct cgwatch *w, int wd)
{
	int i = watched_lower_bound(w, wd);

	return i < w->nr_watched && w->watched[i].wd == wd ? &w->watched[i] : NULL;
}

/*
 * Watches rel (a directory gone meanwhile is not); notes when the watch limit is met. Returns
 * the wd, or -1.
 */
static int watch_dir(struct cgwatch *w, const char *rel)
{
	char *full = xasprintf("%s%s", w->mount, rel);
	int wd = inotify_add_watch(w->inotify_fd, full, CGWATCH_MASK);
	struct watched *e;
	int i;

	if (wd < 0 && (errno == ENOSPC || errno == ENOMEM))
		w->watch_full = true;
	else if (wd < 0 && errno != ENOENT)
		pr_debug(w->verbose, 1, "bperf daemon: cannot watch %s: %s", full,
			 strerror(errno));
	free(full);
	if (wd < 0)
		return -1;
	if (!strcmp(rel, w->root))
		w->root_wd = wd;
	/* the kernel keeps one watch per directory: adding it again renews it, same wd */
	i = watched_lower_bound(w, wd);
	if (i < w->nr_watched && w->watched[i].wd == wd) {
		free(w->watched[i].rel);
	} else {
		if (w->nr_watched == w->watched_cap) {
			w->watched_cap = w->watched_cap ? 2 * w->watched_cap : 64;
			w->watched = xrealloc(w->watched, w->watched_cap * sizeof(*w->watched));
		}
		/* new wds come increasing (an append), but after a wrap */
		memmove(&w->watched[i + 1], &w->watched[i],
			(w->nr_watched - i) * sizeof(*w->watched));
		w->nr_watched++;
	}
	e = &w->watched[i];
	e->wd = wd;
	e->gen = w->gen;
	e->rel = xstrdup(rel);
	return wd;
}

static void watched_drop(struct cgwatch *w, struct watched *e)
{
	free(e->rel);
	memmove(e, e + 1, (w->watched + w->nr_watched - (e + 1)) * sizeof(*e));
	w->nr_watched--;
}

/*
 * Ends the watch of a directory removed. cgroupfs never says IN_IGNORED for one (kernfs keeps
 * the inode's link count, so the watch outlives the directory): without this, every cgroup
 * removed would keep a watch, of fs.inotify.max_user_watches, until the daemon exits.
 */
static void unwatch(struct cgwatch *w, int wd)
{
	struct watched *e = find_watched(w, wd);

	inotify_rm_watch(w->inotify_fd, wd);
	if (e)
		watched_drop(w, e);
}

/* After a full walk: the watches it did not renew are of directories gone unreported. */
static void prune_watched(struct cgwatch *w)
{
	int i, n = 0;

	for (i = 0; i < w->nr_watched; i++) {
		if (w->watched[i].gen == w->gen) {
			w->watched[n++] = w->watched[i];
			continue;
		}
		inotify_rm_watch(w->inotify_fd, w->watched[i].wd);
		free(w->watched[i].rel);
	}
	w->nr_watched = n;
}

static int list_lower_bound(const struct cgwatch *w, const char *path)
{
	int lo = 0, hi = w->nr;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (strcmp(w->list[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Adds path (taken) with id where it sorts; a path listed already takes the newer id. Returns
 * its index.
 */
static int list_put(struct cgwatch *w, char *path, __u64 id)
{
	int i = w->bulk ? w->nr : list_lower_bound(w, path);

	w->dirty = true;
	if (i < w->nr && !strcmp(w->list[i].path, path)) {
		free(path);
		w->list[i].id = id;
		return i;
	}
	if (w->nr == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->list = xrealloc(w->list, w->cap * sizeof(*w->list));
	}
	memmove(&w->list[i + 1], &w->list[i], (w->nr - i) * sizeof(*w->list));
	w->list[i].path = path;
	w->list[i].id = id;
	w->list[i].wd = -1;
	w->nr++;
	return i;
}

/* list[i]'s directory is watched as wd now; a watch of the path's former directory ends. */
static void set_wd(struct cgwatch *w, int i, int wd)
{
	if (w->list[i].wd >= 0 && w->list[i].wd != wd)
		unwatch(w, w->list[i].wd);
	w->list[i].wd = wd;
}

/* Removes list[from..to) and their watches. */
static void list_cut(struct cgwatch *w, int from, int to)
{
	for (int i = from; i < to; i++) {
		if (w->list[i].wd >= 0)
			unwatch(w, w->list[i].wd);
		free(w->list[i].path);
	}
	memmove(&w->list[from], &w->list[to], (w->nr - to) * sizeof(*w->list));
	w->nr -= to - from;
	w->dirty |= to > from;
}

/* Removes rel and every path below it: those sort together, from rel + "/" on. */
static void list_remove_tree(struct cgwatch *w, const char *rel)
{
	char *prefix = xasprintf("%s/", rel);
	size_t len = strlen(prefix);
	int i = list_lower_bound(w, prefix), j = i;

	while (j < w->nr && !strncmp(w->list[j].path, prefix, len))
		j++;
	list_cut(w, i, j);
	i = list_lower_bound(w, rel);
	if (i < w->nr && !strcmp(w->list[i].path, rel))
		list_cut(w, i, i + 1);
	free(prefix);
}

/*
 * Every directory below fd (rel below the mount, list[idx] unless idx is -1), each watched
 * BEFORE it is read: one made after the read raises an event on that watch, one made before is
 * read; none falls between.
 */
static void walk(struct cgwatch *w, int fd, const char *rel, int idx)
{
	int wd = watch_dir(w, rel);
	struct dirent *de;
	DIR *d;

	if (idx >= 0)
		set_wd(w, idx, wd);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		char *path;
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
		path = xasprintf("%s/%s", rel, de->d_name);
		walk(w, sub, path, list_put(w, xstrdup(path), st.st_ino));
		free(path);
	}
	closedir(d);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct tracked *)a)->path, ((const struct tracked *)b)->path);
}

static bool same_lists(const struct tracked *a, int na, const struct tracked *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (a[i].id != b[i].id || strcmp(a[i].path, b[i].path))
			return false;
	return true;
}

static void publish(struct cgwatch *w)
{
	unsigned long long t0 = now_ns();

	if (w->pub_cap < w->nr) {
		w->pub_cap = w->cap;
		w->pub = xrealloc(w->pub, w->pub_cap * sizeof(*w->pub));
	}
	for (int i = 0; i < w->nr; i++) {
		w->pub[i].path = w->list[i].path;
		w->pub[i].id = w->list[i].id;
	}
	registry_set_cgroups(w->reg, w->pub, w->nr);
	w->dirty = false;
	w->published_ns = now_ns();
	pr_debug(w->verbose, 2, "bperf daemon: %d cgroups below the root registered in %.3f ms",
		 w->nr, (now_ns() - t0) / 1e6);
}

/*
 * Registers the changes CGWATCH_PUBLISH_MS after the first (one merge for a burst of events), or
 * CGWATCH_PUBLISH_GAP_MS after the last registration if that is later.
 */
static void publish_soon(struct cgwatch *w)
{
	unsigned long long now = now_ns(), at = now + CGWATCH_PUBLISH_MS * 1000000ULL;
	unsigned long long gap = w->published_ns + CGWATCH_PUBLISH_GAP_MS * 1000000ULL;
	struct itimerspec its = { 0 };

	if (!w->dirty || w->publish_armed)
		return;
	if (gap > at)
		at = gap;
	its.it_value.tv_sec = (at - now) / 1000000000;
	its.it_value.tv_nsec = (at - now) % 1000000000;
	if (timerfd_settime(w->publish_fd, 0, &its, NULL)) {
		publish(w);	/* never in practice: registered at once */
		return;
	}
	w->publish_armed = true;
}

static void on_publish(void *arg, int fd, unsigned int revents)
{
	struct cgwatch *w = arg;

	(void)revents;
	w->publish_armed = false;
	if (w->dirty)
		publish(w);
}

/* Says once that inotify cannot watch every directory, and when it can again (-v). */
static void note_fallback(struct cgwatch *w)
{
	bool fallback = w->watch_full;

	if (fallback && !w->fallback_said)
		fprintf(stderr, "bperf daemon: inotify cannot watch every cgroup (the limit "
			"fs.inotify.max_user_watches): walking them every %d s instead\n",
			CGWATCH_CHECK_MS / 1000);
	else if (fallback != w->fallback)
		pr_debug(w->verbose, 1, "bperf daemon: inotify %s every cgroup", fallback ?
			 "cannot watch" : "watches");
	w->fallback_said |= fallback;
	w->fallback = fallback;
}

/* The whole tree again; registered (soon) only if it differs from the list before. */
static void rescan(struct cgwatch *w)
{
	int fd = open(w->top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct tracked *old = w->list;
	int i, n = 0, idx = -1, nr_old = w->nr;
	unsigned long long t0 = now_ns();
	bool dirty = w->dirty;
	struct stat st;

	w->list = NULL;
	w->nr = w->cap = 0;
	w->gen++;
	w->watch_full = false;
	w->root_wd = -1;
	w->bulk = true;
	/* a root below the mount's is counted too; the mount's own is cgroup "/", the CPU */
	if (fd >= 0 && *w->root && !fstat(fd, &st))
		idx = list_put(w, xstrdup(w->root), st.st_ino);
	if (fd >= 0)
		walk(w, fd, w->root, idx);
	w->bulk = false;
	/* sorted, each path once */
	qsort(w->list, w->nr, sizeof(*w->list), by_path);
	for (i = 0; i < w->nr; i++) {
		if (n && !strcmp(w->list[n - 1].path, w->list[i].path)) {
			n--;
			free(w->list[n].path);
			w->list[i].wd = w->list[i].wd >= 0 ? w->list[i].wd : w->list[n].wd;
		}
		w->list[n++] = w->list[i];
	}
	w->nr = n;
	prune_watched(w);
	note_fallback(w);
	w->dirty = dirty || !same_lists(old, nr_old, w->list, w->nr);
	for (i = 0; i < nr_old; i++)
		free(old[i].path);
	free(old);
	pr_debug(w->verbose, 2, "bperf daemon: %d cgroups walked in %.3f ms%s", w->nr,
		 (now_ns() - t0) / 1e6, w->dirty ? "" : ", no change");
}

/* A directory made (or renamed) below a watched one: it and whatever was made in it already. */
static void dir_made(struct cgwatch *w, char *rel)
{
	char *full = xasprintf("%s%s", w->mount, rel);
	int fd = open(full, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;

	free(full);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return;	/* gone again already: its removal's event follows */
	}
	walk(w, fd, rel, list_put(w, xstrdup(rel), st.st_ino));
	/* the watches this walk could not add: full walks from now on */
	if (w->watch_full && !w->fallback)
		note_fallback(w);
}

/*
 * One event. Each change is checked against the tree as it is now (a directory made is opened,
 * one removed goes with what is below it), so a stale event is undone by the ones after it.
 * Returns whether the whole tree must be walked again.
 */
static bool on_event(struct cgwatch *w, const struct inotify_event *ev)
{
	struct watched *dir;
	char *rel;

	if (ev->mask & IN_Q_OVERFLOW)
		return true;
	if (ev->mask & IN_IGNORED) {
		/* a watch ended: unwatch()'s, or the root's where the filesystem says so */
		if (ev->wd == w->root_wd) {
			w->root_wd = -1;
			list_remove_tree(w, w->root);
		}
		dir = find_watched(w, ev->wd);
		if (dir)
			watched_drop(w, dir);
		return false;
	}
	if (!(ev->mask & IN_ISDIR) || !ev->len)
		return false;
	dir = find_watched(w, ev->wd);
	if (!dir)
		return true;	/* a watch the table lost: never in practice */
	rel = xasprintf("%s/%s", dir->rel, ev->name);
	/* cgroups are renamed within their parent only: a removal and a creation */
	if (ev->mask & (IN_DELETE | IN_MOVED_FROM))
		list_remove_tree(w, rel);
	else if (ev->mask & (IN_CREATE | IN_MOVED_TO))
		dir_made(w, rel);
	free(rel);
	return false;
}

/* Applies the queued events; one full walk if the queue overflowed or a watch is unknown. */
static void read_events(struct cgwatch *w)
{
	char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool full = false;
	ssize_t len;

	while ((len = read(w->inotify_fd, buf, sizeof(buf))) > 0) {
		const struct inotify_event *ev;
		char *p;

		for (p = buf; p < buf + len; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			/* after an overflow only watches' ends matter: the walk does the rest */
			if (!full || (ev->mask & IN_IGNORED))
				full |= on_event(w, ev);
		}
	}
	if (full) {
		pr_debug(w->verbose, 1, "bperf daemon: inotify lost events: walking the cgroups");
		rescan(w);
	}
}

static void on_inotify(void *arg, int fd, unsigned int revents)
{
	struct cgwatch *w = arg;

	(void)fd;
	(void)revents;
	read_events(w);
	publish_soon(w);
}

/* cgroup2's count of the live cgroups below the root (cgroup.stat), or -errno (v1: none). */
static long long kernel_count(const struct cgwatch *w)
{
	char *path = xasprintf("%s/cgroup.stat", w->top);
	FILE *f = fopen(path, "re");
	long long n = -ENOENT;
	char line[128];

	free(path);
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nr_descendants %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/*
 * The check: inotify reports every mkdir, rmdir and rename below a watched directory and says
 * when it lost events, so this should never find a difference; it costs one small read, and
 * bounds what an unforeseen miss (a kernel's, or this file's) can cost to two periods. A
 * difference seen twice in a row (an event in flight is gone by the next) walks the tree.
 */
static void check(struct cgwatch *w)
{
	long long kernel;
	int ours;

	read_events(w);
	kernel = kernel_count(w);
	if (kernel < 0) {
		struct stat st;
		bool there = !stat(w->top, &st) && S_ISDIR(st.st_mode);

		/* the root gone unseen, or back: walked; else cgroup v1, which has no count */
		if (there == (w->root_wd < 0))
			rescan(w);
		return;
	}
	if (w->root_wd < 0) {
		rescan(w);	/* the root is back */
		return;
	}
	ours = w->nr - (*w->root ? 1 : 0);
	if (kernel == ours) {
		w->mismatches = 0;
		return;
	}
	if (++w->mismatches < 2 || (kernel == w->kept_kernel && ours == w->kept_ours))
		return;
	pr_debug(w->verbose, 1, "bperf daemon: %lld cgroups below the root, %d known: walking them",
		 kernel, ours);
	rescan(w);
	w->mismatches = 0;
	/* a difference the walk does not resolve (a directory it cannot open) is not walked for */
	w->kept_kernel = kernel_count(w);
	w->kept_ours = w->nr - (*w->root ? 1 : 0);
}

static void on_check(void *arg, int fd, unsigned int revents)
{
	struct cgwatch *w = arg;

	(void)fd;
	(void)revents;
	if (w->fallback) {
		read_events(w);
		rescan(w);
	} else {
		check(w);
	}
	publish_soon(w);
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

/* The root's path, checked; 0 or -errno after printing one line. */
static int find_root(struct cgwatch *w, const char *root)
{
	struct stat st;
	int err;

	if (cgroup_mountpoint(w->mount, sizeof(w->mount))) {
		pr_err("bperf daemon: no cgroup hierarchy for perf events is mounted "
		       "(cgroup2, or v1 with perf_event)");
		return -ENOENT;
	}
	w->root = normalize_root(root);
	w->top = xasprintf("%s%s", w->mount, w->root);
	err = stat(w->top, &st) ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (err)
		pr_err("bperf daemon: no cgroup %s in %s: %s", *w->root ? w->root : "/", w->mount,
		       strerror(-err));
	return err;
}

/* fd (or -errno) in the loop, calling fn; its number into *slot, -1 if it is not there. */
static int add_fd(struct cgwatch *w, int fd, loop_fn fn, int *slot)
{
	int err = fd < 0 ? -errno : loop_add(w->loop, fd, EPOLLIN, fn, w);

	if (err && fd >= 0)
		close(fd);
	*slot = err ? -1 : fd;
	return err;
}

/* The inotify fd and the two timers in the loop; 0 or -errno. */
static int add_fds(struct cgwatch *w)
{
	int err;

	err = add_fd(w, inotify_init1(IN_NONBLOCK | IN_CLOEXEC), on_inotify, &w->inotify_fd);
	if (err)
		return err;
	/* disarmed until a change waits to be published */
	w->publish_fd = loop_add_timer(w->loop, 0, on_publish, w);
	if (w->publish_fd < 0)
		return w->publish_fd;
	w->check_fd = loop_add_timer(w->loop, CGWATCH_CHECK_MS, on_check, w);
	return w->check_fd < 0 ? w->check_fd : 0;
}

int cgwatch_start(struct loop *l, const char *root, int verbose, struct registry *r,
		  struct cgwatch **out)
{
	struct cgwatch *w = xzalloc(sizeof(*w));
	int err;

	w->loop = l;
	w->reg = r;
	w->verbose = verbose;
	w->inotify_fd = w->check_fd = w->publish_fd = w->root_wd = -1;
	w->kept_kernel = -1;
	err = find_root(w, root);
	if (!err) {
		err = add_fds(w);
		if (err)
			pr_err("bperf daemon: cannot watch cgroups: %s", strerror(-err));
	}
	if (err) {
		cgwatch_stop(w);
		return err;
	}
	rescan(w);
	publish(w);
	pr_debug(verbose, 1, "bperf daemon: %d cgroups below %s", w->nr, w->top);
	*out = w;
	return 0;
}

static void close_fd(struct cgwatch *w, int fd)
{
	if (fd < 0)
		return;
	loop_del(w->loop, fd);
	close(fd);
}

void cgwatch_stop(struct cgwatch *w)
{
	if (!w)
		return;
	close_fd(w, w->inotify_fd);
	close_fd(w, w->publish_fd);
	close_fd(w, w->check_fd);
	for (int i = 0; i < w->nr; i++)
		free(w->list[i].path);
	free(w->list);
	free(w->pub);
	for (int i = 0; i < w->nr_watched; i++)
		free(w->watched[i].rel);
	free(w->watched);
	free(w->root);
	free(w->top);
	free(w);
}
