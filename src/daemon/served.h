/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The slots the daemon holds for its clients: one per OPEN, in the leader of the client's attr,
 * owned by the daemon. The daemon keeps one handle per leader however many clients count with
 * it, and never lets unprivileged clients take more than half of a leader's slots.
 */
#ifndef BPERF_DAEMON_SERVED_H
#define BPERF_DAEMON_SERVED_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "../counters/shared.h"
#include "policy.h"

struct served_leader;
struct served_load;
struct served_ops;

struct served {
	const struct served_ops *ops;
	const char *map_path;
	int verbose;
	struct served_leader *leaders;
};

struct served_session {
	struct served_leader *leader;	/* the backend's (a fake one defines its own) */
	struct shared_slot slot;
	bool unpriv;		/* a non-root client's: counts against the half */
};

/*
 * The least time between two syncs of a leader for clients' READs, ENABLEs and DISABLEs: a sync
 * runs the leader on every CPU (about 10 us a CPU), so requests as fast as clients can send them
 * cost at most 100 syncs a second.
 */
#define SERVED_SYNC_GAP_MS 10

/* open()'s answer while a new leader loads (not an -errno, nor POLICY_PENDING) */
#define SERVED_LOADING 2

/* The most slots of one leader that non-root clients may hold. */
#define SERVED_MAX_UNPRIV_SLOTS (LEADER_MAX_SESSIONS / 2)

/*
 * What the daemon's client socket counts with: served_bpf_ops (the leaders, and the kernel's
 * word through policy_check_start), or a fake that loads nothing, so that tests/fuzz/ can drive
 * the socket unprivileged and fast.
 */
struct served_ops {
	/* policy_check_start(): whether the kernel lets p count attr on t, or POLICY_PENDING */
	int (*check_start)(const struct peer *p, const struct perf_event_attr *attr,
			   const struct policy_target *t, struct policy_job *job);
	/* policy_check_end(), policy_check_kill(): for a check that was POLICY_PENDING */
	int (*check_end)(struct policy_job *job);
	void (*check_kill)(const struct policy_job *job);
	/*
	 * Claims a slot for spec in the leader of attr (taken, or made, as bperf stat's shared
	 * backend does). 0, -EUSERS (the half is taken), -ENOSPC (the leader is full), another
	 * -errno, or SERVED_LOADING: a new leader loads beside the loop, *load (readable at
	 * load_fd()); then open_end() claims the slot as open() would have, or load_abandon() lets
	 * go of it.
	 */
	int (*open)(struct served *sv, const struct perf_event_attr *attr,
		    const struct leader_session_spec *spec, bool unpriv,
		    struct served_session *out, struct served_load **load);
	int (*load_fd)(const struct served_load *load);
	int (*open_end)(struct served *sv, struct served_load *load,
			const struct leader_session_spec *spec, struct served_session *out);
	void (*load_abandon)(struct served_load *load);
	/*
	 * When a request that needs the leader synced (READ, ENABLE, DISABLE), asked at now_ns,
	 * can be answered: now_ns, or the leader's next sync (after a sync, SERVED_SYNC_GAP_MS
	 * pass before the next).
	 */
	unsigned long long (*sync_due_ns)(const struct served_session *s,
					  unsigned long long now_ns);
	/* Starts or ends a counted period at a sync that began after asked_ns (one made now). */
	int (*set_enabled)(struct served_session *s, bool enabled, unsigned long long asked_ns);
	/*
	 * The slot's counts per possible CPU, from a sync of the leader that began after asked_ns
	 * (one made now unless one did).
	 */
	int (*read)(struct served_session *s, unsigned long long asked_ns,
		    struct bpf_perf_event_value *per_cpu);
	/* The number of possible CPUs the session's readings have (at most LEADER_MAX_CPUS). */
	unsigned int (*nr_cpus)(const struct served_session *s);
	/* Frees the slot, and the leader once the daemon holds no slot in it. */
	void (*close)(struct served *sv, struct served_session *s);
};

extern const struct served_ops served_bpf_ops;

#endif
