// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the exporter lands (issue 18, piece 4). */
#include <errno.h>

#include "exposition.h"

bool accept_wants_openmetrics(const char *accept)
{
	(void)accept;
	return false;
}

int exposition_family(const char *event, bool seconds, char *buf, size_t size)
{
	(void)event;
	(void)seconds;
	(void)buf;
	(void)size;
	return -ENOSYS;
}

int exposition_write(struct byte_buf *out, const struct snapshot *s, bool openmetrics)
{
	(void)out;
	(void)s;
	(void)openmetrics;
	return -ENOSYS;
}
