// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/http_server's scraper: CONNS keep-alive connections from 127.0.0.1, each a thread
 * sending GET /metrics and reading the whole response (by Content-Length), one after the other,
 * for SECONDS. Prints "requests N failed F req/s R p50 X ms p99 Y ms max Z ms".
 *
 *	http_load PORT CONNS SECONDS
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_SAMPLES 1000000

static int port, seconds;
static double lat[MAX_SAMPLES];
static int nr_lat, failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One request and its whole response on fd; false if it failed. */
static bool exchange(int fd)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
	char buf[65536];
	size_t len = 0, want = 0;
	char *end = NULL;

	if (send(fd, req, sizeof(req) - 1, MSG_NOSIGNAL) != sizeof(req) - 1)
		return false;
	for (;;) {
		size_t room = end ? sizeof(buf) : sizeof(buf) - len - 1;
		ssize_t n = recv(fd, buf + (end ? 0 : len), room, 0);

		if (n <= 0)
			return false;
		len += n;
		if (!end) {
			char *cl;

			buf[len] = '\0';
			end = strstr(buf, "\r\n\r\n");
			cl = strcasestr(buf, "\r\nContent-Length:");
			if (!end)
				continue;
			if (!cl)
				return false;
			want = (end + 4 - buf) + strtoul(cl + 17, NULL, 10);
		}
		if (len >= want)
			return len == want;
	}
}

static void *client(void *arg)
{
	double stop = now() + seconds;
	int fd = dial();

	while (now() < stop) {
		double t0 = now();
		bool ok = fd >= 0 && exchange(fd);

		pthread_mutex_lock(&lock);
		if (ok && nr_lat < MAX_SAMPLES)
			lat[nr_lat++] = (now() - t0) * 1000;
		failed += !ok;
		pthread_mutex_unlock(&lock);
		if (!ok) {
			if (fd >= 0)
				close(fd);
			fd = dial();
		}
	}
	if (fd >= 0)
		close(fd);
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int conns;

	if (argc != 4)
		return 2;
	port = atoi(argv[1]);
	conns = atoi(argv[2]);
	seconds = atoi(argv[3]);
	if (conns < 1 || conns > 64)
		return 2;
	for (int i = 0; i < conns; i++)
		pthread_create(&t[i], NULL, client, NULL);
	for (int i = 0; i < conns; i++)
		pthread_join(t[i], NULL);
	qsort(lat, nr_lat, sizeof(*lat), cmp);
	printf("requests %d failed %d req/s %.0f p50 %.2f ms p99 %.2f ms max %.2f ms\n", nr_lat,
	       failed, nr_lat / (double)seconds, nr_lat ? lat[nr_lat / 2] : 0,
	       nr_lat ? lat[nr_lat * 99 / 100] : 0, nr_lat ? lat[nr_lat - 1] : 0);
	return 0;
}
