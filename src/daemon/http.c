// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the exporter lands (issue 18, piece 4). */
#include <errno.h>

#include "../common.h"
#include "http.h"

int http_server_start(struct loop *l, const char *listen, http_metrics_fn fn, void *arg,
		      struct http_server **out)
{
	(void)l;
	(void)listen;
	(void)fn;
	(void)arg;
	*out = NULL;
	pr_err("bperf daemon: the HTTP exporter is not built yet; use --listen none");
	return -ENOSYS;
}

const char *http_server_address(const struct http_server *s)
{
	(void)s;
	return "";
}

void http_server_stop(struct http_server *s)
{
	(void)s;
}
