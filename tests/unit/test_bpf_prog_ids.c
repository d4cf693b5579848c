// SPDX-License-Identifier: GPL-2.0-only
/*
 * bperf stat -b's id list: decimal ids from 1 to 2^32-2, comma-separated, nothing else; 0,
 * UINT_MAX, signs, blanks, empty items and trailing garbage are refused with -EINVAL.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters/bpf_prog_targets.h"

#define NAME "test_bpf_prog_ids"

static int check_good(const char *list, const __u32 *want, int nr_want)
{
	__u32 *ids = NULL;
	int nr = 0, err, i;

	err = bpf_prog_ids_parse(list, &ids, &nr);
	if (err) {
		fprintf(stderr, "%s: '%s': expected %d ids, got error %d\n", NAME, list, nr_want, err);
		return 1;
	}
	if (nr != nr_want) {
		fprintf(stderr, "%s: '%s': expected %d ids, got %d\n", NAME, list, nr_want, nr);
		free(ids);
		return 1;
	}
	for (i = 0; i < nr; i++) {
		if (ids[i] != want[i]) {
			fprintf(stderr, "%s: '%s': id %d: expected %u, got %u\n", NAME, list, i,
				want[i], ids[i]);
			free(ids);
			return 1;
		}
	}
	free(ids);
	return 0;
}

static int check_bad(const char *list)
{
	__u32 *ids = NULL;
	int nr = 0, err;

	err = bpf_prog_ids_parse(list, &ids, &nr);
	if (err != -EINVAL) {
		fprintf(stderr, "%s: '%s': expected -EINVAL, got %d (%d ids)\n", NAME, list, err,
			nr);
		if (!err)
			free(ids);
		return 1;
	}
	return 0;
}

int main(void)
{
	static const char *const bad[] = {
		"", "0", "abc", "1,", ",1", "1,,2", "-1", "+1", " 1", "1 ", "1,x", "1.5", "0x10",
		"4294967295", "4294967296", "99999999999999999999999", "1,0",
	};
	const __u32 one[] = { 1 }, three[] = { 17247, 3, 4294967294u };
	int fails = 0;
	size_t i;

	fails += check_good("1", one, 1);
	fails += check_good("17247,3,4294967294", three, 3);
	fails += check_good("0001", one, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		fails += check_bad(bad[i]);
	return fails ? 1 : 0;
}
