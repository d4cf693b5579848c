// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for `bperf stat report`: each input is a perf.data file, read through the
 * whole report path (reader, feature parsers, replay, aggregation, printers) into /dev/null.
 * The last byte picks the output format and aggregation so that every printer is reached, and
 * whether the file is read by path or as stdin (forward only).
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stat/stat_report.h"

static const enum aggr_mode modes[] = {
	AGGR_GLOBAL, AGGR_NONE, AGGR_CORE, AGGR_DIE, AGGR_SOCKET, AGGR_NODE,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	unsigned char pick = size ? data[size - 1] : 0;
	struct report_options ro = { 0 };
	char path[64];
	int fd;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	fd = memfd_create("fuzz_report", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro.input = path;
	/* the stdin path too (pipe format only), read forward through the same descriptor */
	if (pick & 2 && lseek(fd, 0, SEEK_SET) == 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO)
		ro.input = "-";
	ro.aggr_mode_given = pick & 8;
	ro.aggr_mode = modes[(pick >> 4) % (sizeof(modes) / sizeof(modes[0]))];
	ro.out.out = devnull;
	ro.out.format = pick % 3 == 0 ? OUTPUT_STD : pick % 3 == 1 ? OUTPUT_CSV : OUTPUT_JSON;
	ro.out.csv_sep = ",";
	ro.out.big_num = pick & 4;
	stat_report_file(&ro);
	close(fd);
	return 0;
}
