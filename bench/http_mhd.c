// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/http_server's libmicrohttpd server: GET /metrics answers the bytes of FILE (a body the
 * daemon served), copied per request as the daemon builds one per scrape, driven from one outer
 * epoll loop through MHD's own epoll fd (MHD_USE_EPOLL without a thread of its own: how it would
 * sit in the daemon's loop), a 5 s connection timeout, 10,000 connections, 256 per address.
 *
 *	http_mhd PORT FILE
 */
#include <microhttpd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>

static char *body;
static size_t body_len;

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char *copy;

	if (!*state) {	/* the head only: answered on the next call (else MHD closes it) */
		*state = (void *)1;
		return MHD_YES;
	}
	if (strcmp(url, "/metrics"))
		return MHD_NO;
	copy = malloc(body_len);
	memcpy(copy, body, body_len);
	r = MHD_create_response_from_buffer(body_len, copy, MHD_RESPMEM_MUST_FREE);
	MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

int main(int argc, char **argv)
{
	struct MHD_Daemon *d;
	struct epoll_event ev = { .events = EPOLLIN };
	FILE *f;
	int ep;

	if (argc != 3 || !(f = fopen(argv[2], "r")))
		return 2;
	body = malloc(64 << 20);
	body_len = fread(body, 1, 64 << 20, f);
	fclose(f);
	d = MHD_start_daemon(MHD_USE_EPOLL, atoi(argv[1]), NULL, NULL, answer, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, 5U, MHD_OPTION_CONNECTION_LIMIT, 10000U,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, 256U,
			     MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024U, MHD_OPTION_END);
	if (!d)
		return 1;
	ep = epoll_create1(0);
	epoll_ctl(ep, EPOLL_CTL_ADD, MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD)->epoll_fd,
		  &ev);
	printf("listening\n");
	fflush(stdout);
	for (;;) {
		MHD_UNSIGNED_LONG_LONG timeout;
		int ms = MHD_get_timeout(d, &timeout) == MHD_YES ? (int)timeout : 1000;

		epoll_wait(ep, &ev, 1, ms);
		MHD_run(d);
	}
}
