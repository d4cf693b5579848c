// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's client socket (src/daemon/socket.c) on its own, without bperf daemon's counters:
 * a server on a private socket and attr map, and a client that speaks the protocol: HELLO first,
 * malformed messages answered and the connection closed, an attr that samples refused, its own
 * process counted (page faults through the daemon's slot: as many as it touched) and the slot
 * gone after CLOSE; fds sent with messages it rejects (of no bytes, short, more than it takes) all
 * closed. The client runs as nobody. Needs root (exit 77 otherwise).
 *
 *	test_daemon_socket serve SOCKET [GROUP [MAX]]	only the server, until SIGTERM (for trying
 *							clients by hand)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attr_map_remove.h"
#include "check.h"
#include "daemon/loop.h"
#include "counters/daemon_proto.h"
#include "daemon/proto_v1.h"
#include "daemon/socket.h"

#define NAME "test_daemon_socket"

static void on_signal(void *arg, int fd, unsigned int revents)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) == sizeof(si))
		loop_stop(arg, 0);
}

static int serve(const char *path, const char *group, int max, const char *map)
{
	struct daemon_config cfg = {
		.socket_path = (char *)path, .allow_group = (char *)group,
		.max_sessions_per_user = max, .attr_map = map, .verbose = 1,
	};
	struct loop *l = loop_new();
	struct client_server *s;
	sigset_t set;
	int sfd, err;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (!l || sfd < 0 || loop_add(l, sfd, EPOLLIN, on_signal, l))
		return 1;
	err = client_server_start(l, &cfg, &s);
	if (err)
		return 1;
	fprintf(stderr, "serving %s\n", path);
	loop_run(l);
	client_server_stop(s);
	loop_free(l);
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(addr.sun_path, sizeof(addr.sun_path), "%s", path);
	for (int i = 0; i < 200; i++) {
		if (!connect(fd, (struct sockaddr *)&addr, sizeof(addr)))
			return fd;
		usleep(10000);
	}
	printf("connect %s: %s\n", path, strerror(errno));
	close(fd);
	return -1;
}

static char reply_buf[65536];
#define REPLY ((struct bperf_reply *)reply_buf)

/* One message (len bytes, a pidfd if >= 0); the reply's err, or 1000 when the daemon hung up. */
static int exchange(int sock, const void *buf, size_t len, int fd)
{
	if (proto_send(sock, buf, len, &fd, fd >= 0) < 0)
		return 1000;
	if (recv(sock, reply_buf, sizeof(reply_buf), 0) < (ssize_t)sizeof(struct bperf_reply))
		return 1000;
	return REPLY->err;
}

static int request(int sock, __u32 type, __u32 session)
{
	struct bperf_req req;

	proto_req_init(&req, type);
	req.session = session;
	return exchange(sock, &req, sizeof(req), -1);
}

/* req as a version 1 client sent it, with an attr of attr_size bytes */
static int exchange_v1(int sock, const struct bperf_req *req, size_t attr_size, int fd)
{
	struct bperf_req_v1_head head = { 1, req->type, req->session, req->target };
	struct bperf_req_v1_tail tail = { .inherit = req->inherit, .nr_ids = req->nr_ids };
	unsigned char msg[BPERF_PROTO_V1_LEN(BPERF_PROTO_ATTR_BYTES)];

	memcpy(msg, &head, sizeof(head));
	memcpy(msg + sizeof(head), req->attr_bytes, attr_size);
	memcpy(msg + sizeof(head) + attr_size, &tail, sizeof(tail));
	return exchange(sock, msg, BPERF_PROTO_V1_LEN(attr_size), fd);
}

/* OPEN of this process's page faults; sample: with a sample period */
static void self_open_req(struct bperf_req *req, bool sample)
{
	proto_req_init(req, MSG_OPEN);
	req->target = TGT_PID;
	req->nr_ids = 1;
	req->attr.type = PERF_TYPE_SOFTWARE;
	req->attr.size = sizeof(req->attr);
	req->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	req->attr.exclude_kernel = 1;
	req->attr.exclude_hv = 1;
	if (sample)
		req->attr.sample_period = 1;
}

/* The OPEN, in version 2 with the attr's size attr_size, or (v1) as version 1 sent it */
static int open_req(int sock, const struct bperf_req *req, bool v1)
{
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0), err;

	if (v1)
		err = exchange_v1(sock, req, 128, pidfd);
	else
		err = exchange(sock, req, sizeof(*req), pidfd);
	close(pidfd);
	return err;
}

static int open_self(int sock, bool sample)
{
	struct bperf_req req;

	self_open_req(&req, sample);
	return open_req(sock, &req, false);
}

/* A session of this process's page faults: 100 touched pages read as 100 */
static void count_pages(int s, __u32 session, __u32 version)
{
	long page = sysconf(_SC_PAGESIZE);
	struct bperf_req req;
	__u64 before;
	char *mem;
	int i;

	proto_req_init(&req, MSG_READ);
	req.session = session;
	CHECK_EQ("ENABLE", 0, request(s, MSG_ENABLE, session));
	CHECK_EQ("READ", 0, version == 1 ? exchange_v1(s, &req, 128, -1) : request(s, MSG_READ,
											   session));
	CHECK_EQ("the reply's version", version, REPLY->version);
	before = REPLY->values[0].counter;
	mem = mmap(NULL, 100 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (i = 0; i < 100; i++)
		mem[i * page] = 1;
	CHECK_EQ("READ after 100 pages", 0, request(s, MSG_READ, session));
	CHECK_EQ("one value for a process", 1, REPLY->nr_values);
	CHECK_EQ("its page faults", 100, REPLY->values[0].counter - before);
	munmap(mem, 100 * page);
}

/*
 * Version 1's requests (a 128-byte attr: Debian 12's headers) served in version 1; a version
 * the daemon does not speak told both of its versions; attrs taken as the kernel takes them.
 */
static void version_checks(const char *path)
{
	struct bperf_req req;
	int s;

	proto_req_init(&req, MSG_HELLO);
	req.version = 3;
	s = connect_to(path);
	CHECK_EQ("version 3", -EPROTONOSUPPORT, exchange(s, &req, sizeof(req), -1));
	CHECK_EQ("the daemon's newest version", BPERF_PROTO_VERSION, REPLY->version);
	CHECK_EQ("... and its oldest", BPERF_PROTO_OLDEST_VERSION, REPLY->session);
	close(s);

	s = connect_to(path);
	proto_req_init(&req, MSG_HELLO);
	CHECK_EQ("version 1: HELLO", 0, exchange_v1(s, &req, 128, -1));
	CHECK_EQ("version 1: its reply's version", 1, REPLY->version);
	self_open_req(&req, false);
	if (CHECK_EQ("version 1: OPEN of itself", 0, open_req(s, &req, true))) {
		count_pages(s, REPLY->session, 1);
		CHECK_EQ("version 2 on the same connection: CLOSE", 0,
			 request(s, MSG_CLOSE, REPLY->session));
	}
	self_open_req(&req, false);
	CHECK_EQ("version 1 with a 136-byte attr (6.3+ headers)", 0,
		 exchange_v1(s, &req, 136, (int)syscall(SYS_pidfd_open, getpid(), 0)));
	CHECK_EQ("version 1: a message of no attr size", -EPROTO,
		 exchange_v1(s, &req, 100, -1));
	close(s);

	s = connect_to(path);
	CHECK_EQ("HELLO", 0, request(s, MSG_HELLO, 0));
	self_open_req(&req, false);
	req.attr_size = PERF_ATTR_SIZE_VER0;
	CHECK_EQ("an attr of the first size (64 bytes)", 0, open_req(s, &req, false));
	req.attr_size = 32;
	CHECK_EQ("an attr shorter than the first", -EINVAL, open_req(s, &req, false));
	req.attr_size = sizeof(req.attr) + 8;
	CHECK_EQ("a longer attr, its tail zero", 0, open_req(s, &req, false));
	req.attr_bytes[sizeof(req.attr) + 3] = 1;
	CHECK_EQ("a longer attr with a field this daemon does not know", -E2BIG,
		 open_req(s, &req, false));
	req.attr_size = BPERF_PROTO_ATTR_BYTES + 8;
	CHECK_EQ("an attr longer than a request holds", -E2BIG, open_req(s, &req, false));
	CHECK_EQ("the connection goes on", 0, request(s, MSG_HELLO, 0));
	close(s);
}

/* A client that sends READs and never reads a reply is hung up on, not left with gaps. */
static void not_reading_checks(const char *path)
{
	struct bperf_req req;
	int s = connect_to(path), i;
	__u32 session;

	CHECK_EQ("HELLO", 0, request(s, MSG_HELLO, 0));
	if (!CHECK_EQ("OPEN of itself", 0, open_self(s, false)))
		goto out;
	session = REPLY->session;
	proto_req_init(&req, MSG_READ);
	req.session = session;
	for (i = 0; i < 100000; i++)
		if (proto_send(s, &req, sizeof(req), NULL, 0) < 0)
			break;
	CHECK_MSG("hung up on before 100,000 unread replies", i < 100000, "%d sent", i);
	/* every reply queued before the end is whole, then the end */
	for (i = 0; recv(s, reply_buf, sizeof(reply_buf), MSG_DONTWAIT) > 0; i++)
		;
	CHECK_MSG("the replies queued, then the end", i > 0 && recv(s, reply_buf, 1, 0) <= 0,
		  "%d replies", i);
out:
	close(s);
}

static void client_checks(const char *path)
{
	struct bperf_req req;
	__u32 session;
	int s;

	proto_req_init(&req, MSG_HELLO);
	s = connect_to(path);
	if (!CHECK("connect", s >= 0))
		return;
	CHECK_EQ("READ before HELLO", -EPROTO, request(s, MSG_READ, 1));
	CHECK_EQ("the connection ends after it", 1000, request(s, MSG_HELLO, 0));
	close(s);
	s = connect_to(path);
	CHECK_EQ("a short message", -EPROTO, exchange(s, &req, sizeof(req) - 1, -1));
	close(s);
	s = connect_to(path);
	req.version = 3;
	CHECK_EQ("another version", -EPROTONOSUPPORT, exchange(s, &req, sizeof(req), -1));
	close(s);
	s = connect_to(path);
	CHECK_EQ("HELLO", 0, request(s, MSG_HELLO, 0));
	CHECK_EQ("a sampling attr", -EOPNOTSUPP, open_self(s, true));
	CHECK_EQ("READ of no session", -ENOENT, request(s, MSG_READ, 7));
	if (!CHECK_EQ("OPEN of itself", 0, open_self(s, false)))
		goto out;
	session = REPLY->session;
	count_pages(s, session, BPERF_PROTO_VERSION);
	CHECK_EQ("CLOSE", 0, request(s, MSG_CLOSE, session));
	CHECK_EQ("READ after CLOSE", -ENOENT, request(s, MSG_READ, session));
out:
	close(s);
}

/* Messages that carry fds the daemon must close: no bytes (read as the end of the connection), a
 * short one, and one with more fds than the protocol takes (the kernel drops the rest). */
static int send_fds(int sock, size_t len, int nr_fds)
{
	struct bperf_req req;
	int fds[BPERF_PROTO_MAX_IDS + 1], i, err;

	proto_req_init(&req, MSG_HELLO);
	for (i = 0; i < nr_fds; i++)
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	err = proto_send(sock, &req, len, fds, nr_fds) < 0 ? -errno : 0;
	for (i = 0; i < nr_fds; i++)
		close(fds[i]);
	return err;
}

static void fd_passing_client(const char *path)
{
	int s;

	s = connect_to(path);
	CHECK_EQ("a message of no bytes with 8 fds", 0, send_fds(s, 0, 8));
	close(s);
	s = connect_to(path);
	CHECK_EQ("a short message with 8 fds", 0, send_fds(s, 3, 8));
	close(s);
	s = connect_to(path);
	CHECK_EQ("HELLO with 65 fds", 0, send_fds(s, sizeof(struct bperf_req), 65));
	close(s);
}

/* The server's open fds, once they stop changing (it closes a connection when it reads it). */
static int open_fds(pid_t pid)
{
	char dir[64];
	int prev = -1, nr = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	for (int tries = 0; tries < 50; tries++) {
		DIR *d = opendir(dir);
		struct dirent *e;

		if (!d)
			return -1;
		for (nr = 0; (e = readdir(d));)
			nr += e->d_name[0] != '.';
		closedir(d);
		if (nr == prev)
			break;
		prev = nr;
		usleep(100000);
	}
	return nr;
}

static bool run_as_nobody(void (*fn)(const char *), const char *path)
{
	pid_t client = fork();
	int status;

	if (client == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		/* a credential change leaves a process undumpable: then nobody may count it */
		prctl(PR_SET_DUMPABLE, 1);
		fn(path);
		_exit(check_failures ? 1 : 0);
	}
	return client > 0 && waitpid(client, &status, 0) == client && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

/* Whether nobody can reach dir (not where a directory above it is 0700). */
static bool nobody_reaches(const char *dir)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		_exit(access(dir, X_OK) ? 1 : 0);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status);
}

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* kernel.perf_event_paranoid, or -1000 if unreadable */
static int read_paranoid(void)
{
	FILE *f = fopen(PARANOID_PATH, "r");
	int v = -1000;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1000;
		fclose(f);
	}
	return v;
}

static void write_paranoid(int v)
{
	FILE *f = fopen(PARANOID_PATH, "w");

	if (f) {
		fprintf(f, "%d\n", v);
		fclose(f);
	}
}

/* the value the test found, put back at exit however the test ends short of a signal */
static int saved_paranoid = -1000;

static void restore_paranoid(void)
{
	if (saved_paranoid > 2)
		write_paranoid(saved_paranoid);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/test_daemon_socket.XXXXXX", path[128], map[128];
	int status, fds_before;
	pid_t server;

	if (argc > 2 && !strcmp(argv[1], "serve"))
		return serve(argv[2], argc > 3 ? argv[3] : NULL, argc > 4 ? atoi(argv[4]) : 0,
			     getenv("BPERF_ATTR_MAP"));
	if (geteuid()) {
		printf("needs root\n");
		return EXIT_SKIP;
	}
	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0755);
	if (!nobody_reaches(dir)) {
		printf("nobody cannot reach %s here\n", dir);
		rmdir(dir);
		return EXIT_SKIP;
	}
	snprintf(path, sizeof(path), "%s/sock", dir);
	snprintf(map, sizeof(map), "/sys/fs/bpf/test_daemon_socket_%d", getpid());
	/* Debian's kernels default to 3, where no user opens any perf event: 2 lets nobody count */
	saved_paranoid = read_paranoid();
	if (saved_paranoid > 2) {
		atexit(restore_paranoid);
		write_paranoid(2);
	}
	server = fork();
	if (server == 0)
		_exit(serve(path, NULL, 0, map));
	/* as nobody: a capless root could not count the test's own (capable) process either */
	CHECK("the client's checks (as nobody)", run_as_nobody(client_checks, path));
	fds_before = open_fds(server);
	CHECK("fd passing (as nobody)", run_as_nobody(fd_passing_client, path));
	CHECK("protocol versions (as nobody)", run_as_nobody(version_checks, path));
	CHECK("a client that does not read (as nobody)", run_as_nobody(not_reading_checks, path));
	CHECK_EQ("the server's fds after fds it did not ask for", fds_before, open_fds(server));
	kill(server, SIGTERM);
	waitpid(server, &status, 0);
	CHECK("the server stopped cleanly", WIFEXITED(status) && !WEXITSTATUS(status));
	CHECK("the socket file is gone", access(path, F_OK) && errno == ENOENT);
	attr_map_remove(map);
	rmdir(dir);
	return check_exit(NAME);
}
