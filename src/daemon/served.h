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

struct served_leader;

struct served {
	const char *map_path;
	int verbose;
	struct served_leader *leaders;
};

struct served_session {
	struct served_leader *leader;
	struct shared_slot slot;
	bool unpriv;		/* a non-root client's: counts against the half */
};

/* The most slots of one leader that non-root clients may hold. */
#define SERVED_MAX_UNPRIV_SLOTS (LEADER_MAX_SESSIONS / 2)

/*
 * Claims a slot for spec in the leader of attr (taken, or made, as bperf stat's shared backend
 * does). 0, -EUSERS (the half is taken), -ENOSPC (the leader is full), or another -errno.
 */
int served_open(struct served *sv, const struct perf_event_attr *attr,
		const struct leader_session_spec *spec, bool unpriv, struct served_session *out);
int served_set_enabled(struct served_session *s, bool enabled);
/* Brings the leader up to date and reads the slot's counts per possible CPU. */
int served_read(struct served_session *s, struct bpf_perf_event_value *per_cpu);
/* The number of possible CPUs the session's readings have. */
unsigned int served_nr_cpus(const struct served_session *s);
/* Frees the slot, and the leader once the daemon holds no slot in it. */
void served_close(struct served *sv, struct served_session *s);

#endif
