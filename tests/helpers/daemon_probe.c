// SPDX-License-Identifier: GPL-2.0-only
/*
 * A client of bperf daemon's socket that bperf stat would never be (tests/shell/
 * daemon_unprivileged.sh): malformed messages, crafted attrs, many connections, a session that
 * is killed. Prints one line per reply ("err N", or "closed" when the daemon hung up).
 *
 *	daemon_probe SOCKET garbage	short, long, wrong-version and random messages, a request
 *					before HELLO: each on a fresh connection
 *	daemon_probe SOCKET sample	OPEN of its own process with a sampling attr
 *	daemon_probe SOCKET kernel	OPEN of its own process counting the kernel too
 *	daemon_probe SOCKET pid PID	OPEN of process PID (page-faults:u)
 *	daemon_probe SOCKET refuse PID N	N OPENs of process PID on one connection
 *	daemon_probe SOCKET tidnum TID	OPEN of thread TID named by its number (no pidfd)
 *	daemon_probe SOCKET connects N	N connections, each HELLO then close
 *	daemon_probe SOCKET hold	OPEN of its own process, then "ready" and sleep until killed
 *	daemon_probe SOCKET reads N	OPEN of its own process, then N READs of it as fast as the
 *					daemon answers: "reads K err E" (K answered, E the first
 *					error; SIGTERM ends them early)
 *	daemon_probe SOCKET toggles N	the same with ENABLE and DISABLE in turn: "toggles K err E"
 *	daemon_probe SOCKET loads N	N OPENs of its own process, each CLOSEd at once, with attrs
 *					no one else counts (alignment-faults:u, emulation-faults:u
 *					in turn), so that each loads a new leader: "loads K busy B
 *					err E" (K granted, B refused -EAGAIN: over the rate; SIGTERM
 *					ends them early)
 *	daemon_probe - anonlock		flock(LOCK_EX) of an eventfd, the lock of the anon inode
 *					every BPF fd shares: "locked", and held until killed
 *	daemon_probe SOCKET many N	N connections kept open, each HELLO: the last one's reply
 *	daemon_probe SOCKET idle S	a connection silent for S seconds, then HELLO
 *	daemon_probe SOCKET fill N	N OPENs of its own process, 32 a connection: how many the
 *					daemon granted, and the first refusal ("granted K err E")
 *	daemon_probe SOCKET fillgroup N	the same, alternating page-faults and
 *					context-switches with bperf's attrs of them (size 128,
 *					exclude_guest, the kernel counted): the daemon's own
 *					group's members
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "src/counters/daemon_proto.h"

static int connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		perror(path);
		exit(2);
	}
	return fd;
}

/* Sends len bytes of buf (with one fd if fd >= 0), prints the reply's err or "closed". */
static int exchange(int sock, const void *buf, size_t len, int fd)
{
	static char reply[65536];
	struct bperf_reply *r = (struct bperf_reply *)reply;
	ssize_t n;

	/* a daemon that refused the connection at once left its reason before hanging up */
	if (proto_send(sock, buf, len, &fd, fd >= 0) < 0 && errno != EPIPE) {
		printf("closed\n");
		return -EPIPE;
	}
	n = recv(sock, reply, sizeof(reply), MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN)
		n = recv(sock, reply, sizeof(reply), 0);
	if (n < (ssize_t)sizeof(*r)) {
		printf("closed\n");
		return -EPIPE;
	}
	printf("err %d\n", r->err);
	return r->err;
}

static void req_init(struct bperf_req *req, __u32 type)
{
	proto_req_init(req, type);
}

static int hello(int sock)
{
	struct bperf_req req;

	req_init(&req, MSG_HELLO);
	return exchange(sock, &req, sizeof(req), -1);
}

/* OPEN of process pid (a pidfd) counting page-faults, with the attr changed by tweak */
static int open_pid(int sock, pid_t pid, int tweak)
{
	struct bperf_req req;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), err;

	if (pidfd < 0) {
		perror("pidfd_open");
		exit(2);
	}
	req_init(&req, MSG_OPEN);
	req.target = TGT_PID;
	req.nr_ids = 1;
	req.inherit = 1;
	req.attr.type = PERF_TYPE_SOFTWARE;
	req.attr.size = sizeof(req.attr);
	req.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	req.attr.exclude_kernel = tweak != 'k';
	req.attr.exclude_hv = 1;
	if (tweak == 'p' || tweak == 'c') {
		/* as bperf parses them: the attr map key of the daemon's own events */
		memset(&req.attr, 0, sizeof(req.attr));
		req.attr.type = PERF_TYPE_SOFTWARE;
		req.attr.size = 128;
		req.attr.config = tweak == 'p' ? PERF_COUNT_SW_PAGE_FAULTS :
			PERF_COUNT_SW_CONTEXT_SWITCHES;
		req.attr.exclude_guest = 1;
	}
	if (tweak == 's') {
		req.attr.sample_period = 1000;
		req.attr.sample_type = PERF_SAMPLE_IP;
	}
	err = exchange(sock, &req, sizeof(req), pidfd);
	close(pidfd);
	return err;
}

/* OPEN of thread tid named by its number (as -t before Linux 6.9), counting page-faults:u */
static int open_tid_number(int sock, pid_t tid)
{
	struct bperf_req req;

	req_init(&req, MSG_OPEN);
	req.target = TGT_TID;
	req.nr_ids = 1;
	req.ids[0] = tid;
	req.attr.type = PERF_TYPE_SOFTWARE;
	req.attr.size = sizeof(req.attr);
	req.attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	req.attr.exclude_kernel = 1;
	req.attr.exclude_hv = 1;
	return exchange(sock, &req, sizeof(req), -1);
}

static volatile sig_atomic_t stop_reading;

static void on_term(int sig)
{
	stop_reading = 1;
}

/*
 * n READs (or ENABLEs and DISABLEs in turn: toggle) of the session that an OPEN of this process
 * made on sock, replies counted quietly; SIGTERM ends them early, and the count is printed still.
 */
static int read_spam(int sock, int n, bool toggle)
{
	struct sigaction sa = { .sa_handler = on_term };
	static char reply[65536];
	struct bperf_reply *r = (struct bperf_reply *)reply;
	struct bperf_req req;
	int i, done = 0, err = 0;

	req_init(&req, MSG_READ);
	/* the OPEN's reply names the session */
	if (open_pid(sock, getpid(), 0))
		return 1;
	req.session = 1;
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n && !err && !stop_reading; i++) {
		if (toggle)
			req.type = i % 2 ? MSG_DISABLE : MSG_ENABLE;
		if (proto_send(sock, &req, sizeof(req), NULL, 0) < 0 ||
		    recv(sock, reply, sizeof(reply), 0) < (ssize_t)sizeof(*r)) {
			err = stop_reading ? 0 : -EPIPE;
			break;
		}
		err = r->err;
		done += !err;
	}
	printf("%s %d err %d\n", toggle ? "toggles" : "reads", done, err);
	return err ? 1 : 0;
}

/* One request and its reply, quietly: the reply's err, or -EPIPE. */
static int request(int sock, const struct bperf_req *req, int fd, __u32 *session)
{
	static char reply[65536];
	struct bperf_reply *r = (struct bperf_reply *)reply;

	if (proto_send(sock, req, sizeof(*req), &fd, fd >= 0) < 0 ||
	    recv(sock, reply, sizeof(reply), 0) < (ssize_t)sizeof(*r))
		return -EPIPE;
	*session = r->session;
	return r->err;
}

/* n OPENs that each load a leader (see the usage above) */
static int load_spam(int sock, int n)
{
	struct sigaction sa = { .sa_handler = on_term };
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), i, done = 0, busy = 0, err = 0;
	struct bperf_req open, close_req;
	__u32 session;

	if (pidfd < 0) {
		perror("pidfd_open");
		return 2;
	}
	req_init(&open, MSG_OPEN);
	open.target = TGT_PID;
	open.nr_ids = 1;
	open.attr.type = PERF_TYPE_SOFTWARE;
	open.attr.size = sizeof(open.attr);
	open.attr.exclude_kernel = 1;
	open.attr.exclude_hv = 1;
	req_init(&close_req, MSG_CLOSE);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n && !stop_reading; i++) {
		open.attr.config = i % 2 ? PERF_COUNT_SW_ALIGNMENT_FAULTS :
			PERF_COUNT_SW_EMULATION_FAULTS;
		err = request(sock, &open, pidfd, &session);
		if (err == -EAGAIN) {
			busy++;
			err = 0;
			continue;
		}
		if (!err) {
			close_req.session = session;
			err = request(sock, &close_req, -1, &session);
		}
		if (err)
			break;
		done++;
	}
	if (stop_reading && err == -EPIPE)
		err = 0;
	printf("loads %d busy %d err %d\n", done, busy, err);
	return err ? 1 : 0;
}

static int hold_anon_lock(void)
{
	int fd = eventfd(0, 0);

	if (fd < 0 || flock(fd, LOCK_EX)) {
		perror("eventfd flock");
		return 2;
	}
	printf("locked\n");
	pause();
	return 0;
}

static void garbage(const char *path)
{
	struct bperf_req req;
	char big[sizeof(req) + 64];
	unsigned int seed = 1;
	size_t i;
	int s;

	/* too short, too long, wrong version, random bytes, OPEN before HELLO */
	s = connect_to(path);
	exchange(s, "x", 1, -1);
	close(s);
	s = connect_to(path);
	memset(big, 0, sizeof(big));
	exchange(s, big, sizeof(big), -1);
	close(s);
	s = connect_to(path);
	req_init(&req, MSG_HELLO);
	req.version = 99;
	exchange(s, &req, sizeof(req), -1);
	close(s);
	s = connect_to(path);
	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)rand_r(&seed);
	exchange(s, big, sizeof(req), -1);
	close(s);
	s = connect_to(path);
	req_init(&req, MSG_READ);
	exchange(s, &req, sizeof(req), -1);
	close(s);
	/* after HELLO: an unknown type, and a READ of a session that does not exist */
	s = connect_to(path);
	hello(s);
	req_init(&req, MSG_READ);
	req.session = 12345;
	exchange(s, &req, sizeof(req), -1);
	req_init(&req, 77);
	exchange(s, &req, sizeof(req), -1);
	close(s);
}

int main(int argc, char **argv)
{
	int s = -1, i;

	if (argc < 3) {
		fprintf(stderr, "usage: daemon_probe SOCKET garbage|sample|kernel|pid PID|"
			"connects N|hold\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[2], "anonlock"))
		return hold_anon_lock();
	if (!strcmp(argv[2], "garbage")) {
		garbage(argv[1]);
		return 0;
	}
	if (!strcmp(argv[2], "connects") && argc > 3) {
		for (i = 0; i < atoi(argv[3]); i++) {
			s = connect_to(argv[1]);
			if (i == 0)
				hello(s);
			close(s);
		}
		return 0;
	}
	if (!strcmp(argv[2], "many") && argc > 3) {
		for (i = 0; i < atoi(argv[3]) - 1; i++) {
			s = connect_to(argv[1]);
			if (hello(s) < 0)
				return 1;
		}
		s = connect_to(argv[1]);
		return hello(s) ? 1 : 0;
	}
	if (!strcmp(argv[2], "idle") && argc > 3) {
		s = connect_to(argv[1]);
		sleep(atoi(argv[3]));
		return hello(s) ? 1 : 0;
	}
	if ((!strcmp(argv[2], "fill") || !strcmp(argv[2], "fillgroup")) && argc > 3) {
		bool group = !strcmp(argv[2], "fillgroup");
		int granted = 0, err = 0;

		for (i = 0; i < atoi(argv[3]) && !err; i++) {
			if (i % 32 == 0) {
				s = connect_to(argv[1]);
				hello(s);
			}
			err = open_pid(s, getpid(), group ? "pc"[i % 2] : 0);
			granted += !err;
		}
		printf("granted %d err %d\n", granted, err);
		return 0;
	}
	s = connect_to(argv[1]);
	if (hello(s))
		return 1;
	if (!strcmp(argv[2], "sample"))
		return open_pid(s, getpid(), 's') ? 1 : 0;
	if (!strcmp(argv[2], "kernel"))
		return open_pid(s, getpid(), 'k') ? 1 : 0;
	if (!strcmp(argv[2], "pid") && argc > 3)
		return open_pid(s, atoi(argv[3]), 0) ? 1 : 0;
	if (!strcmp(argv[2], "refuse") && argc > 4) {
		for (i = 0; i < atoi(argv[4]); i++)
			open_pid(s, atoi(argv[3]), 0);
		return 0;
	}
	if (!strcmp(argv[2], "reads") && argc > 3)
		return read_spam(s, atoi(argv[3]), false);
	if (!strcmp(argv[2], "toggles") && argc > 3)
		return read_spam(s, atoi(argv[3]), true);
	if (!strcmp(argv[2], "loads") && argc > 3)
		return load_spam(s, atoi(argv[3]));
	if (!strcmp(argv[2], "tidnum") && argc > 3)
		return open_tid_number(s, atoi(argv[3])) ? 1 : 0;
	if (!strcmp(argv[2], "hold")) {
		if (open_pid(s, getpid(), 0))
			return 1;
		printf("ready\n");
		pause();
		return 0;
	}
	fprintf(stderr, "daemon_probe: unknown mode %s\n", argv[2]);
	return 2;
}
