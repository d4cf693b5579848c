// SPDX-License-Identifier: GPL-2.0-only
/* bperf's lock directory beside an attr map (sync_lock.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common.h"
#include "sync_lock.h"

#define SYNC_LOCK_NAME "bperf_lock"

/* "DIR/bperf_lock" for the attr map DIR/NAME (bpffs refuses names with dots) */
static char *lock_path(const char *attr_map_path)
{
	const char *slash = strrchr(attr_map_path, '/');
	int dir_len = slash ? (int)(slash - attr_map_path) : 1;

	return xasprintf("%.*s/%s", dir_len, slash ? attr_map_path : ".", SYNC_LOCK_NAME);
}

/*
 * A hand-mounted bpffs is world-writable (mode 1777): another user could have made the
 * directory first, and would then hold its lock. Refused, never used.
 */
static int check_owner(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid == 0 && !(st.st_mode & 077))
		return 0;
	pr_err("bperf's lock %s is not root's own with mode 0700 (owner %u, mode %04o): remove it",
	       path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	return -EPERM;
}

int sync_lock_open(const char *attr_map_path)
{
	char *path = lock_path(attr_map_path);
	int fd, err;

	if (mkdir(path, 0700) && errno != EEXIST) {
		err = -errno;
		pr_err("Failed to make bperf's lock %s: %s", path, strerror(-err));
		goto out;
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_err("Failed to open bperf's lock %s: %s", path, strerror(-err));
		goto out;
	}
	err = check_owner(fd, path);
	if (err)
		close(fd);
	else
		err = fd;
out:
	free(path);
	return err;
}

int sync_lock_take(int fd)
{
	while (flock(fd, LOCK_EX))
		if (errno != EINTR)
			return -errno;
	return 0;
}

void sync_lock_drop(int fd)
{
	flock(fd, LOCK_UN);
}
