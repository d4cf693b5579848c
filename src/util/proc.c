// SPDX-License-Identifier: GPL-2.0-only
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

bool nmi_watchdog_enabled(void)
{
	char buf[32];

	if (read_text_file("/proc/sys/kernel/nmi_watchdog", buf, sizeof(buf)))
		return false;
	return atoi(buf) > 0;
}

int proc_for_each_thread(pid_t pid, int (*fn)(pid_t tid, void *ctx), void *ctx)
{
	char path[64];
	struct dirent *de;
	int err = -ESRCH;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -ESRCH;
	while ((de = readdir(dir))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (tid <= 0 || *end)
			continue;
		err = fn((pid_t)tid, ctx);
		if (err)
			break;
	}
	closedir(dir);
	return err;
}
