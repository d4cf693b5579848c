// SPDX-License-Identifier: GPL-2.0-only
/* A leader loaded beside the daemon's loop (served_load.h). */
#include "served_load.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../util/common.h"

struct served_load {
	struct perf_event_attr attr;
	bool unpriv;
	int done_fd;		/* an eventfd the thread writes once err and fresh are set */
	int refs;		/* the thread's and the loop's */
	bool taken;		/* the loop took fresh */
	int err;
	struct leader_handle fresh;
};

/*
 * One load at a time in the process: a leader's verification runs in the kernel for 100 ms or
 * more, and two at once took both CPUs of a 2-CPU machine from the loop (scrapes of 230 ms every
 * second while 8 users loaded leaders). Process-wide, not the daemon's struct: an abandoned load
 * may outlive every struct of the daemon.
 */
static pthread_mutex_t one_load_at_a_time = PTHREAD_MUTEX_INITIALIZER;

static void load_unref(struct served_load *ld)
{
	if (__atomic_sub_fetch(&ld->refs, 1, __ATOMIC_ACQ_REL))
		return;
	if (!ld->err && !ld->taken)
		leader_put(&ld->fresh);
	close(ld->done_fd);
	free(ld);
}

static void *load_main(void *arg)
{
	struct served_load *ld = arg;

	/* background work: the loop (scrapes, everyone's requests) gets the CPU first */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	pthread_mutex_lock(&one_load_at_a_time);
	ld->err = leader_create(&ld->fresh, &ld->attr, &ld->attr, 1, 0);
	pthread_mutex_unlock(&one_load_at_a_time);
	eventfd_write(ld->done_fd, 1);
	load_unref(ld);
	return NULL;
}

int served_load_start(const struct perf_event_attr *attr, bool unpriv, struct served_load **out)
{
	struct served_load *ld = xzalloc(sizeof(*ld));
	pthread_attr_t pattr;
	pthread_t thread;
	int err;

	ld->attr = *attr;
	ld->unpriv = unpriv;
	ld->refs = 2;
	ld->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ld->done_fd < 0) {
		err = -errno;
		free(ld);
		return err;
	}
	err = pthread_attr_init(&pattr);
	if (!err)
		err = pthread_attr_setdetachstate(&pattr, PTHREAD_CREATE_DETACHED);
	if (!err)
		err = pthread_create(&thread, &pattr, load_main, ld);
	pthread_attr_destroy(&pattr);
	if (err) {
		close(ld->done_fd);
		free(ld);
		return -err;
	}
	*out = ld;
	return 0;
}

int served_load_fd(const struct served_load *ld)
{
	return ld->done_fd;
}

int served_load_end(struct served_load *ld, struct perf_event_attr *attr, bool *unpriv,
		    struct leader_handle *fresh)
{
	struct pollfd pfd = { .fd = ld->done_fd, .events = POLLIN };
	int err;

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	*attr = ld->attr;
	*unpriv = ld->unpriv;
	err = ld->err;
	if (!err) {
		*fresh = ld->fresh;
		ld->taken = true;
	}
	load_unref(ld);
	return err;
}

void served_load_abandon(struct served_load *ld)
{
	load_unref(ld);
}
