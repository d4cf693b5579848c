/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding, validating and creating shared-counter leaders (bpf/leader.bpf.c), and the session
 * slots in their tables. Everything here runs with the attr map locked.
 */
#ifndef BPERF_COUNTERS_LEADER_H
#define BPERF_COUNTERS_LEADER_H

#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../../bpf/leader.h"
#include "attr_map.h"

#define LEADER_NR_LINKS 5
/* on_exit_task's link, the last: absent (-1) where the kernel has no kprobes */
#define LEADER_EXIT_LINK 4

/* The fds a session holds: while any session holds them, the leader lives. */
struct leader_handle {
	/* on_switch, on_exec, on_newtask, on_cgroup_move, on_exit_task */
	int link_fds[LEADER_NR_LINKS];
	int prog_fd;			/* on_switch, run on each CPU before a read */
	int sessions_fd;
	int accum_fd;			/* maps in maps: the slots' sums and filters */
	int filter_fd;
	int state_fd;
	int prev_fd;			/* prev_readings: the raw per-CPU readings */
	int gen_fd;			/* filter_gen: bumped after each change to the filters */
	int cg_index_fd;		/* the per-cgroup sums (leader_cgroups.c) */
	int cg_accum_fd;
	int cg_users_fd;
	int task_slots_fd;		/* the per-CPU cache of thread slots, from 2 on */
	int inner_ids_fd;		/* the inner maps' ids (leader_maps.c) */
	int sums_fd;			/* accum's inner map of sums_slot, the slot claimed here */
	__u32 sums_slot;
	int lock_fd;			/* bperf's lock (sync_lock.h), for leader_sync() */
	__u32 link_id;			/* on_switch's link: the attr map entry names it */
	__u32 nr_members;
	/*
	 * The member this session counts, when it shares a group's leader for one event (found
	 * under the event's member key): its slot reads that member only. 0 otherwise.
	 */
	__u32 member;
	__u32 nr_cpus;			/* possible CPUs: the per-CPU maps' width */
	bool created;			/* this session made it (for -v) */
};

/* What a session counts: its filter, and the threads, CPUs or cgroup it filters by. */
struct leader_session_spec {
	enum leader_filter_type filter;
	const int *cpus;	/* FILTER_CPU, FILTER_CGROUP */
	int nr_cpus;
	const pid_t *ids;	/* FILTER_TID */
	int nr_ids;
	bool inherit;
	pid_t exec_tgid;	/* non-zero: counting starts at this process's exec */
	__u64 cgroup_id;	/* FILTER_CGROUP (on cpus): the cgroup's kernfs id */
	bool enabled;
};

/*
 * The leader counting attrs[0..nr) (one event, or a group led by attrs[0]) keyed by key in the
 * attr map: the live bperf leader found there, or a new one that replaces a dead or bogus
 * entry. An entry naming a live leader bperf cannot share (upstream perf's) is left alone: then
 * bperf's sessions share a leader filed under a key of bperf's own. One event (nr 1) without a
 * leader of its own shares a group's leader filed under its member key (the daemon's), with
 * h->member the event's member there. Returns 0 or -errno after printing why.
 */
int leader_get(const struct attr_map *map, const struct perf_event_attr *key,
	       const struct perf_event_attr *attrs, int nr, int verbose,
	       struct leader_handle *h);
/*
 * leader_get() in two steps, so that the attr map need not stay locked while a leader loads (100
 * ms or more): leader_find() takes a leader to share, or returns -ENOENT where a new one is
 * needed; leader_create() makes one, without the map (0, -ECANCELED after printing why, or the
 * kernel's refusal of the event, unsaid); leader_file(), with the map locked again, files it and
 * moves it to h, unless a leader to share was filed meanwhile (then fresh is put and h takes
 * that one).
 */
int leader_find(const struct attr_map *map, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, int verbose, struct leader_handle *h);
int leader_create(struct leader_handle *fresh, const struct perf_event_attr *key,
		  const struct perf_event_attr *attrs, int nr, int verbose);
int leader_file(const struct attr_map *map, const struct perf_event_attr *key,
		const struct perf_event_attr *attrs, int nr, int verbose,
		struct leader_handle *fresh, struct leader_handle *h);
void leader_put(struct leader_handle *h);
/*
 * Whether a group of nr events opens on the PMU as one group (on the first online CPU): 0, or
 * the first member's refusal with every member's in member_err[] (0 where it opened; the
 * members after a refused leader are not tried). A group can be too big for the PMU's counters:
 * then the kernel refuses the member that does not fit, and no leader is made for it.
 */
int leader_probe_group(const struct perf_event_attr *attrs, int nr, int *member_err);
/*
 * Whether a group of nr events can run on the PMU all at once: leader_probe_group() with the
 * leader enabled. The kernel's check at open that a group fits the counters (arm64's
 * validate_group) leaves out a disabled leader, as perf's -a groups are opened: a group one
 * counter too big then opens, and is never scheduled (perf prints it <not counted>). spare: the
 * group must fit with one more copy of its last event too, so that a counter someone else pins
 * (the NMI watchdog, a pinned event) cannot keep it from ever being scheduled.
 */
bool leader_group_fits(const struct perf_event_attr *attrs, int nr, bool spare);
/*
 * For the last bperf session of the leader: deletes the entries that name it, but for that
 * under key while another program follows the leader (an upstream perf session).
 */
void leader_drop_entries(const struct attr_map *map, const struct perf_event_attr *key,
			 const struct leader_handle *h);
/*
 * Files attrs[m]'s member key for each member of h, the leader of the group attrs[0..nr), so that
 * sessions of one of these events share it; a member key naming another live leader stays.
 */
void leader_file_members(const struct attr_map *map, const struct perf_event_attr *attrs, int nr,
			 const struct leader_handle *h);
/* attr's member key: attr marked with MEMBER_KEY_MARK. */
void leader_member_key(const struct perf_event_attr *attr, struct perf_event_attr *key);
/*
 * Whether programs are attached to the leader's on_switch (upstream perf's followers), or bperf
 * cannot tell.
 */
bool leader_has_followers(const struct leader_handle *h);

/* Takes a free slot (reclaiming those of dead sessions) and fills it in; -ENOSPC if full. */
int leader_slot_claim(struct leader_handle *h, const struct leader_session_spec *spec,
		      __u32 *slot);
/* Frees the slot; returns true when no other session uses the leader any more. */
bool leader_slot_release(struct leader_handle *h, __u32 slot);
int leader_slot_set_enabled(struct leader_handle *h, __u32 slot, bool enabled);

/*
 * After a change to what the leader's caches hold: filter or a thread slot (LEADER_GEN_USER),
 * cg_index (LEADER_GEN_CG). Writes a fresh value to filter_gen[gen], never the old one plus one:
 * a read-modify-write from two sessions at once (the attr map lock is all that orders them)
 * could bring back a value that some CPU's cache was filled at. Never 0, which marks no entry
 * valid.
 */
void leader_gen_bump(const struct leader_handle *h, __u32 gen);

/* The leader's leader_state (its one element); 0 or -errno. */
int leader_read_state(const struct leader_handle *h, struct leader_state *st);
int leader_write_state(const struct leader_handle *h, const struct leader_state *st);

/* Brings every CPU's slice up to date (BPF_PROG_TEST_RUN on each CPU). */
int leader_sync(const struct leader_handle *h);
/* The same, for callers holding the attr map lock (which leader_sync() takes itself). */
int leader_sync_locked(const struct leader_handle *h);
/* The slot's sums for one member, one value per possible CPU. */
int leader_read(const struct leader_handle *h, __u32 slot, __u32 member,
		struct bpf_perf_event_value *per_cpu);
/* The last raw reading of one member on each possible CPU (after leader_sync: current). */
int leader_read_raw(const struct leader_handle *h, __u32 member,
		    struct bpf_perf_event_value *per_cpu);

#endif
