/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a test removes the attr map it pinned: the pin and bperf's lock directory beside it,
 * PATH_lock (sync_lock.h), so that no test leaves either behind in /sys/fs/bpf.
 */
#ifndef BPERF_TESTS_UNIT_ATTR_MAP_REMOVE_H
#define BPERF_TESTS_UNIT_ATTR_MAP_REMOVE_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

static inline void attr_map_remove(const char *path)
{
	char lock[PATH_MAX];

	unlink(path);
	if (snprintf(lock, sizeof(lock), "%s_lock", path) < (int)sizeof(lock))
		rmdir(lock);
}

#endif
