// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/http_server's hand-written server alone: bperf daemon's HTTP server (src/daemon/http*.c)
 * and loop answering GET /metrics with the bytes of FILE, copied per request: what http_mhd
 * does, so that the two servers are compared without the daemon's counting.
 *
 *	http_ours PORT FILE
 */
#include <stdio.h>
#include <stdlib.h>

#include "daemon/http.h"
#include "daemon/loop.h"

static struct byte_buf body;

static int answer(void *arg, struct byte_buf *out, bool openmetrics)
{
	buf_put(out, body.data, body.len);
	return 0;
}

int main(int argc, char **argv)
{
	struct http_server *s;
	struct loop *l = loop_new();
	char addr[32], buf[65536];
	size_t n;
	FILE *f;

	if (argc != 3 || !l || !(f = fopen(argv[2], "r")))
		return 2;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		buf_put(&body, buf, n);
	fclose(f);
	snprintf(addr, sizeof(addr), "127.0.0.1:%s", argv[1]);
	if (http_server_start(l, addr, answer, NULL, &s))
		return 1;
	printf("listening\n");
	fflush(stdout);
	return loop_run(l);
}
