/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A new leader for a client's OPEN, made on a thread of its own: a load takes 100 ms or more
 * (the BPF programs verified, an event opened on every CPU), which the daemon's loop must not
 * spend while scrapes and other clients wait. The loop learns that the load has ended when
 * served_load_fd() polls readable. The thread and the loop each hold a reference: whichever lets
 * go last frees the load, and puts its leader if no one took it.
 */
#ifndef BPERF_DAEMON_SERVED_LOAD_H
#define BPERF_DAEMON_SERVED_LOAD_H

#include <linux/perf_event.h>
#include <stdbool.h>

#include "../counters/leader.h"

struct served_load;

/* Starts the load of a leader for attr: 0 with *out, or -errno (nothing started). */
int served_load_start(const struct perf_event_attr *attr, bool unpriv, struct served_load **out);
/* Readable once the load has ended. */
int served_load_fd(const struct served_load *ld);
/*
 * The loop's end of the load: waits for it (at once when its fd polls readable), moves its
 * leader to fresh and lets go. Returns leader_create()'s 0 or -errno; attr and unpriv are the
 * start's.
 */
int served_load_end(struct served_load *ld, struct perf_event_attr *attr, bool *unpriv,
		    struct leader_handle *fresh);
/* The client is gone: lets go without waiting; the thread puts the leader when it ends. */
void served_load_abandon(struct served_load *ld);

#endif
