// SPDX-License-Identifier: GPL-2.0-only
/*
 * The counter ops contract as the session keeps it: an enable, disable or read that fails is
 * returned (the first error) and said once, naming the event; the other counters are switched
 * and read all the same; a counter whose read failed is read_failed (<not counted>) with zero
 * counts, whichever backend it has. And a group's members are found through its leader's
 * members[], not by their place in the evlist: here a group whose member stands after another
 * event, counted directly and through shared counters (a private attr map on bpffs, removed
 * at the end). Needs root (exit 77 otherwise).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "attr_map_remove.h"
#include "check.h"
#include "touch_pages.h"
#include "events/stat_config.h"
#include "stat/session.h"

#define NAME "test_session_ops"

static int failing_switch(struct counter *c)
{
	return -EBADF;
}

static int failing_read(struct counter *c)
{
	/* a backend that read something before failing: the session must zero it */
	c->counts[0].val = 42;
	return -EIO;
}

/* Opened and closed by the direct backend; every other op fails. */
static struct counter_ops failing_ops;

/* stderr into a file for the time of a call; what was written, as a string (freed by caller) */
struct stderr_capture {
	FILE *file;
	int saved_fd;
};

static void capture_start(struct stderr_capture *cap)
{
	fflush(stderr);
	cap->file = tmpfile();
	cap->saved_fd = dup(2);
	dup2(fileno(cap->file), 2);
}

static char *capture_end(struct stderr_capture *cap)
{
	char *text = calloc(1, 4096);

	fflush(stderr);
	dup2(cap->saved_fd, 2);
	close(cap->saved_fd);
	rewind(cap->file);
	if (fread(text, 1, 4095, cap->file) == 0)
		text[0] = '\0';
	fclose(cap->file);
	return text;
}

#define GROUP_AND_LONE_EVENT "{page-faults,minor-faults,major-faults},cs"

/*
 * GROUP_AND_LONE_EVENT, then its evlist reordered: page-faults, cs,
 * minor-faults, major-faults, so the group's members stand apart from their leader.
 */
static void move_lone_event_after_leader(struct evlist *ev)
{
	struct evsel lone = ev->entries[ev->nr - 1];
	int i;

	for (i = ev->nr - 1; i > 1; i--) {
		ev->entries[i] = ev->entries[i - 1];
		ev->entries[i].idx = i;
	}
	ev->entries[1] = lone;
	ev->entries[1].idx = ev->entries[1].leader_idx = 1;
}

/*
 * The same reordered group through shared counters: the leader is made for the whole group
 * (its attrs taken through members[]), so its members count the pages touched.
 */
static void shared_group_apart(const char *self)
{
	struct parse_events_error perr = { .idx = -1 };
	struct stat_options o = { 0 };
	struct stat_session s;
	const struct counter *pf, *minor, *major;
	int err;

	o.scale = true;
	o.run_count = 1;
	o.tid = self;
	o.bpf_counters = true;
	o.bpf_attr_map = "/sys/fs/bpf/bperf_test_session_ops";
	attr_map_remove(o.bpf_attr_map);
	if (!CHECK_OK("shared: parse", parse_events(&o.evlist, GROUP_AND_LONE_EVENT,
						    &o.events_ctx, &perr)))
		return;
	move_lone_event_after_leader(&o.evlist);
	/* as cmd_stat does before the first run */
	evlist_config_for_stat(&o.evlist, &(struct stat_attr_opts){ 0 });
	err = session_init(&s, &o, &o.evlist, 0, NULL);
	if (!err)
		err = session_open(&s);
	if (CHECK_OK("shared: session open", err)) {
		pf = &s.counters[0];
		minor = &s.counters[2];
		major = &s.counters[3];
		CHECK_STR("shared: page-faults' backend", "shared", pf->ops->name);
		session_enable(&s);
		touch_pages(1000);
		session_disable(&s);
		session_read(&s, 1000000, 0, 0);
		CHECK_MSG("shared: page-faults", pf->counts[0].val >= 1000,
			  "at least the 1000 pages touched, got %llu",
			  (unsigned long long)pf->counts[0].val);
		CHECK_EQ("shared: page-faults = minor-faults + major-faults", pf->counts[0].val,
			 minor->counts[0].val + major->counts[0].val);
	}
	session_free(&s);
	stat_options_free(&o);
	attr_map_remove(o.bpf_attr_map);
}

int main(void)
{
	struct parse_events_error perr = { .idx = -1 };
	struct stat_options o = { 0 };
	struct stderr_capture cap;
	struct stat_session s;
	struct counter *pf, *cs, *minor, *major;
	char self[32], *said;
	int err;

	if (geteuid() != 0) {
		printf("needs root\n");
		return EXIT_SKIP;
	}
	o.scale = true;
	o.run_count = 1;
	/* this thread, which touches pages between the enable and the disable */
	snprintf(self, sizeof(self), "%d", getpid());
	o.tid = self;
	if (!CHECK_OK("parse", parse_events(&o.evlist, GROUP_AND_LONE_EVENT,
					    &o.events_ctx, &perr)))
		return check_exit(NAME);
	move_lone_event_after_leader(&o.evlist);
	/* as cmd_stat does before the first run */
	evlist_config_for_stat(&o.evlist, &(struct stat_attr_opts){ 0 });
	err = session_init(&s, &o, &o.evlist, 0, NULL);
	if (!err)
		err = session_open(&s);
	if (!CHECK_OK("session open", err))
		goto out;
	pf = &s.counters[0];
	cs = &s.counters[1];
	minor = &s.counters[2];
	major = &s.counters[3];
	CHECK("the leader's members[]", pf->members && pf->members[0] == pf &&
	      pf->members[1] == minor && pf->members[2] == major);
	CHECK_EQ("minor-faults' place in its group", 1, minor->member_idx);
	CHECK_EQ("cs' place (alone)", 0, cs->member_idx);
	CHECK("cs has no members[]", !cs->members);

	failing_ops = direct_counter_ops;
	failing_ops.name = "failing";
	failing_ops.enable = failing_ops.disable = failing_switch;
	failing_ops.read = failing_read;
	cs->ops = &failing_ops;

	capture_start(&cap);
	err = session_enable(&s);
	said = capture_end(&cap);
	CHECK_EQ("session_enable's error", -EBADF, err);
	CHECK_STR("what enable says", "Failed to enable event cs: Bad file descriptor\n", said);
	free(said);
	touch_pages(100);
	capture_start(&cap);
	err = session_disable(&s);
	said = capture_end(&cap);
	CHECK_EQ("session_disable's error", -EBADF, err);
	CHECK_STR("what disable says", "Failed to disable event cs: Bad file descriptor\n", said);
	free(said);

	err = session_read(&s, 1000000, 0, 0);
	CHECK_EQ("session_read's error", -EIO, err);
	CHECK("cs: read_failed", cs->read_failed);
	CHECK_EQ("cs: counts zeroed", 0, cs->counts[0].val);
	CHECK("page-faults read", !pf->read_failed);
	CHECK_MSG("page-faults counted", pf->counts[0].val >= 100,
		  "at least the 100 pages touched, got %llu",
		  (unsigned long long)pf->counts[0].val);
	CHECK("minor-faults read", !minor->read_failed);
	CHECK("major-faults read", !major->read_failed);
	/* a major fault (the test's own pages read from disk) counts in page-faults too */
	CHECK_EQ("page-faults = minor-faults + major-faults (the group's read)",
		 pf->counts[0].val, minor->counts[0].val + major->counts[0].val);
out:
	session_free(&s);
	stat_options_free(&o);
	shared_group_apart(self);
	return check_exit(NAME);
}
