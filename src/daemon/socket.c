// SPDX-License-Identifier: GPL-2.0-only
/* Placeholder until the unprivileged clients' server lands (issue 18, piece 5). */
#include <errno.h>

#include "../common.h"
#include "socket.h"

int client_server_start(struct loop *l, const struct daemon_config *cfg,
			struct client_server **out)
{
	(void)l;
	(void)cfg;
	*out = NULL;
	pr_err("bperf daemon: the client socket is not built yet; use --socket none");
	return -ENOSYS;
}

void client_server_stop(struct client_server *s)
{
	(void)s;
}
