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

#include "../util/common.h"
#include "sync_lock.h"

/* "PATH_lock" for the attr map PATH (bpffs refuses names with dots) */
static char *lock_path(const char *attr_map_path)
{
	return xasprintf("%s_lock", attr_map_path);
}

/*
 * The lock must be the attr map's owner's, mode 0700: a hand-mounted bpffs is world-writable
 * (mode 1777), and another user could have made the directory first, then held its lock.
 * Refused, never used.
 */
static int check_owner(int fd, const char *path, uid_t owner)
{
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid == owner && !(st.st_mode & 077))
		return 0;
	pr_err("bperf's lock %s is not the attr map owner's with mode 0700 (owner %u, mode %04o): "
	       "remove it", path, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777));
	return -EPERM;
}

int sync_lock_open(const char *attr_map_path)
{
	char *path = lock_path(attr_map_path);
	struct stat map_st;
	int fd, err;

	if (stat(attr_map_path, &map_st)) {
		err = -errno;
		pr_err("Failed to use the BPF attr map %s: %s", attr_map_path, strerror(-err));
		goto out;
	}
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
	err = check_owner(fd, path, map_st.st_uid);
	if (err)
		close(fd);
	else
		err = fd;
out:
	free(path);
	return err;
}

int sync_lock_reopen(int fd)
{
	int again = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	return again < 0 ? -errno : again;
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
