/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * bperf's own lock over the shared leaders of one attr map: their test runs (which must never
 * nest on a CPU, leader_sync()) and bperf's changes to the attr map. flock() on any BPF fd takes
 * the lock of the one anon inode that every BPF map and program fd shares with every eventfd,
 * epoll and timerfd fd, so any local user holds it with flock(eventfd(0, 0), LOCK_EX) for as
 * long as they like: a root daemon must never wait on it. This lock is a directory beside the
 * attr map, PATH_lock (on the same bpffs, so every process that can share its leaders,
 * containers too, finds the same one), the map owner's with mode 0700, which no other user can
 * open or flock.
 */
#ifndef BPERF_SYNC_LOCK_H
#define BPERF_SYNC_LOCK_H

/* The lock's own fd (a new open file: flock() owners are open files), or -errno (printed). */
int sync_lock_open(const char *attr_map_path);
/* Another open file of the lock that fd is open on (its own flock() owner), or -errno. */
int sync_lock_reopen(int fd);
/* Waits for the lock: only the map owner's bperf processes can hold it. 0 or -errno. */
int sync_lock_take(int fd);
void sync_lock_drop(int fd);

#endif
