// SPDX-License-Identifier: GPL-2.0-only
#include "attr_map.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../util/common.h"
#include "privileges.h"
#include "sync_lock.h"

#define MAX_KEY_SIZE 512
/* upstream perf's lock: at most 5 tries 200 us apart */
#define PERF_LOCK_TRIES 5
#define PERF_LOCK_WAIT_US 200

/* bpffs must hold the pin: mount it at the default place, or say how. */
static int ensure_bpffs(const char *path)
{
	char *dir = xstrdup(strchr(path, '/') ? path : "."), *slash = strrchr(dir, '/');
	bool is_default = false;
	struct statfs st;
	int err = 0;

	if (slash && slash != dir)
		*slash = '\0';
	else if (slash)
		strcpy(dir, "/");
	if (statfs(dir, &st)) {
		err = -errno;
		pr_err("Failed to use the BPF attr map %s: %s: %s", path, dir, strerror(-err));
		goto out;
	}
	if (st.f_type == BPF_FS_MAGIC)
		goto out;
	is_default = !strcmp(dir, "/sys/fs/bpf");
	/* as systemd mounts it: root's alone (bpffs's own default, 1777, lets anyone mkdir there) */
	if (is_default && !mount("bpf", dir, "bpf", 0, "mode=0700"))
		goto out;
	/* Only the default place is worth mounting bpffs on: never suggest covering /tmp. */
	pr_err("Failed to use the BPF attr map %s: %s is not on a bpf filesystem (%s)", path, dir,
	       is_default ? "mount it with: mount -t bpf bpf /sys/fs/bpf" :
	       "pick a path under a bpffs mount such as /sys/fs/bpf");
	err = -ENOENT;
out:
	free(dir);
	return err;
}

/* What kind of BPF object an fd is, from /proc/self/fdinfo: a pin may be a prog or link. */
static bool fd_is_bpf_map(int fd)
{
	char path[64], line[256];
	bool is_map = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "map_type:", 9))
			is_map = true;
	fclose(f);
	return is_map;
}

static int check_map(struct attr_map *map)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (!fd_is_bpf_map(map->fd)) {
		pr_err("Failed to use the BPF attr map %s: the pinned object is not a BPF map",
		       map->path);
		return -EINVAL;
	}
	if (bpf_obj_get_info_by_fd(map->fd, &info, &len)) {
		int err = -errno;

		pr_err("Failed to use the BPF attr map %s: %s", map->path, strerror(-err));
		return err;
	}
	if (info.type != BPF_MAP_TYPE_HASH || info.value_size != sizeof(struct attr_map_entry) ||
	    info.key_size < sizeof(struct perf_event_attr) || info.key_size > MAX_KEY_SIZE) {
		pr_err("Failed to use the BPF attr map %s: not a perf attr map (type %u, key size "
		       "%u, value size %u; expected a hash map with %zu-byte keys and %zu-byte "
		       "values)", map->path, info.type, info.key_size, info.value_size,
		       sizeof(struct perf_event_attr), sizeof(struct attr_map_entry));
		return -EINVAL;
	}
	map->key_size = info.key_size;
	return 0;
}

/*
 * EACCES with bpf() allowed: a file's mode refused us (root without CAP_DAC_OVERRIDE, in a
 * directory another user made). The deepest part of the path we can stat is the one that
 * refused: name it and its owner.
 */
static void print_mode_refusal(const char *path)
{
	char *part = xstrdup(path), *slash;
	struct passwd *pw;
	struct stat st;

	while (lstat(part, &st)) {
		slash = strrchr(part, '/');
		if (!slash || !strcmp(part, "/")) {
			pr_err("Failed to open the BPF attr map %s: %s", path, strerror(EACCES));
			free(part);
			return;
		}
		if (slash == part)
			part[1] = '\0';	/* the root directory */
		else
			*slash = '\0';
	}
	pw = getpwuid(st.st_uid);
	pr_err("Failed to open the BPF attr map %s: %s (%s belongs to %s%s%u, mode %04o)", path,
	       strerror(EACCES), part, pw ? pw->pw_name : "", pw ? ", uid " : "uid ", st.st_uid,
	       st.st_mode & 07777);
	free(part);
}

/* Creates and pins a new map; if someone pinned one meanwhile, theirs is used. */
static int create_or_get(struct attr_map *map)
{
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(struct perf_event_attr),
			    sizeof(struct attr_map_entry), ATTR_MAP_ENTRIES, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_obj_pin(fd, map->path) == 0) {
		chmod(map->path, 0600);
		map->fd = fd;
		return 0;
	}
	close(fd);
	if (errno != EEXIST)
		return -errno;
	fd = bpf_obj_get(map->path);
	if (fd < 0)
		return -errno;
	map->fd = fd;
	return 0;
}

/*
 * Upstream perf changes the map with its fd flock()ed: bperf takes that lock too, so that
 * neither files a leader over the other's, but waits on it a millisecond at most, since any
 * user can hold it for ever (sync_lock.h). Without it the worst case is two leaders of one attr
 * while perf starts one: each counts exactly, they do not share.
 */
static void take_perf_lock(struct attr_map *map)
{
	int i;

	map->perf_locked = false;
	for (i = 0; i < PERF_LOCK_TRIES; i++) {
		if (!flock(map->fd, LOCK_EX | LOCK_NB)) {
			map->perf_locked = true;
			return;
		}
		if (errno != EWOULDBLOCK && errno != EINTR)
			return;
		usleep(PERF_LOCK_WAIT_US);
	}
}

int attr_map_open_locked(struct attr_map *map, const char *path)
{
	int err;

	map->fd = map->lock_fd = -1;
	map->path = path;
	err = ensure_bpffs(path);
	if (err)
		return err;
	map->fd = bpf_obj_get(path);
	if (map->fd < 0) {
		err = errno == ENOENT ? create_or_get(map) : -errno;
		if (err == -EACCES && has_effective_cap(CAP_BPF))
			print_mode_refusal(path);
		else if (err)
			pr_err("Failed to open the BPF attr map %s: %s%s", path, strerror(-err),
			       err == -EPERM || err == -EACCES ?
			       " (shared counters need root, or CAP_SYS_ADMIN)" : "");
		if (err)
			return err;
	}
	err = check_map(map);
	if (!err) {
		map->lock_fd = sync_lock_open(path);
		err = map->lock_fd < 0 ? map->lock_fd : sync_lock_take(map->lock_fd);
	}
	if (err) {
		if (map->lock_fd >= 0)
			close(map->lock_fd);
		close(map->fd);
		map->fd = map->lock_fd = -1;
		return err;
	}
	take_perf_lock(map);
	return 0;
}

void attr_map_close(struct attr_map *map)
{
	if (map->fd < 0)
		return;
	if (map->perf_locked)
		flock(map->fd, LOCK_UN);
	sync_lock_drop(map->lock_fd);
	close(map->lock_fd);
	close(map->fd);
	map->fd = map->lock_fd = -1;
}

static void make_key(const struct attr_map *map, const struct perf_event_attr *attr,
		     unsigned char *key)
{
	memset(key, 0, map->key_size);
	memcpy(key, attr, sizeof(*attr));
}

int attr_map_lookup(const struct attr_map *map, const struct perf_event_attr *attr,
		    struct attr_map_entry *entry)
{
	unsigned char key[MAX_KEY_SIZE];

	make_key(map, attr, key);
	return bpf_map_lookup_elem(map->fd, key, entry) ? -errno : 0;
}

int attr_map_update(const struct attr_map *map, const struct perf_event_attr *attr,
		    const struct attr_map_entry *entry)
{
	unsigned char key[MAX_KEY_SIZE];

	make_key(map, attr, key);
	return bpf_map_update_elem(map->fd, key, entry, BPF_ANY) ? -errno : 0;
}

int attr_map_delete(const struct attr_map *map, const struct perf_event_attr *attr)
{
	unsigned char key[MAX_KEY_SIZE];

	make_key(map, attr, key);
	return bpf_map_delete_elem(map->fd, key) ? -errno : 0;
}

bool attr_map_link_exists(__u32 id)
{
	int fd = bpf_link_get_fd_by_id(id);

	if (fd < 0)
		return errno != ENOENT;
	close(fd);
	return true;
}

static bool names_dead_link(const struct perf_event_attr *attr, const struct attr_map_entry *entry,
			    void *ctx)
{
	return !attr_map_link_exists(entry->link_id);
}

int attr_map_sweep(const struct attr_map *map)
{
	return attr_map_delete_if(map, names_dead_link, NULL);
}

int attr_map_delete_if(const struct attr_map *map,
		       bool (*fn)(const struct perf_event_attr *attr,
				  const struct attr_map_entry *entry, void *ctx),
		       void *ctx)
{
	unsigned char key[MAX_KEY_SIZE] = { 0 }, next[MAX_KEY_SIZE];
	struct attr_map_entry entry;
	struct perf_event_attr attr;
	int nr_deleted = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(map->fd, prev, next)) {
		memcpy(key, next, map->key_size);
		memcpy(&attr, key, sizeof(attr));	/* the key is at least an attr */
		if (!bpf_map_lookup_elem(map->fd, key, &entry) && fn(&attr, &entry, ctx) &&
		    !bpf_map_delete_elem(map->fd, key)) {
			nr_deleted++;
			/* deleting the current key restarts the walk from the beginning */
			prev = NULL;
			continue;
		}
		prev = key;
	}
	return nr_deleted;
}
