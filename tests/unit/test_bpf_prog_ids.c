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

#include "check.h"

#define NAME "test_bpf_prog_ids"

static void check_good(const char *list, const __u32 *want, int nr_want)
{
	__u32 *ids = NULL;
	int nr = 0, err, i;
	char name[96];

	snprintf(name, sizeof(name), "'%s'", list);
	err = bpf_prog_ids_parse(list, &ids, &nr);
	if (!CHECK_OK(name, err))
		return;
	if (CHECK_EQ(name, nr_want, nr)) {
		for (i = 0; i < nr; i++) {
			snprintf(name, sizeof(name), "'%s': id %d", list, i);
			if (!CHECK_EQ(name, want[i], ids[i]))
				break;
		}
	}
	free(ids);
}

static void check_bad(const char *list)
{
	__u32 *ids = NULL;
	int nr = 0, err;
	char name[96];

	snprintf(name, sizeof(name), "'%s'", list);
	err = bpf_prog_ids_parse(list, &ids, &nr);
	if (!CHECK_EQ(name, -EINVAL, err) && !err)
		free(ids);
}

int main(void)
{
	static const char *const bad[] = {
		"", "0", "abc", "1,", ",1", "1,,2", "-1", "+1", " 1", "1 ", "1,x", "1.5", "0x10",
		"4294967295", "4294967296", "99999999999999999999999", "1,0",
	};
	const __u32 one[] = { 1 }, three[] = { 17247, 3, 4294967294u };
	size_t i;

	check_good("1", one, 1);
	check_good("17247,3,4294967294", three, 3);
	check_good("0001", one, 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad(bad[i]);
	return check_exit(NAME);
}
