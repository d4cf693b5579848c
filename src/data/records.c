// SPDX-License-Identifier: GPL-2.0-only
#include "records.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

/* perf_event_attr's first published size (PERF_ATTR_SIZE_VER0) */
#define ATTR_SIZE_VER0 64

static const unsigned char *body(const struct data_record *rec)
{
	return (const unsigned char *)rec->data + sizeof(struct rec_header);
}

static size_t body_len(const struct data_record *rec)
{
	return rec->header.size - sizeof(struct rec_header);
}

static int too_short(struct perf_data_reader *r, const struct data_record *rec,
		     const char *what, size_t need)
{
	return data_error(r, rec->offset, "%s record of %u bytes, at least %zu needed", what,
			  rec->header.size, need + sizeof(struct rec_header));
}

int data_decode_header_attr(struct perf_data_reader *r, const struct data_record *rec,
			    struct perf_event_attr *attr, const __u64 **ids, __u32 *nr_ids)
{
	const unsigned char *p = body(rec);
	size_t len = body_len(rec);
	__u32 size;

	if (len < ATTR_SIZE_VER0)
		return too_short(r, rec, "attr", ATTR_SIZE_VER0);
	memcpy(&size, p + 4, 4);
	if (!size)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > len || (len - size) % 8)
		return data_error(r, rec->offset, "attr size %u in a %zu-byte record", size, len);
	memset(attr, 0, sizeof(*attr));
	memcpy(attr, p, size < sizeof(*attr) ? size : sizeof(*attr));
	attr->size = sizeof(*attr);
	*ids = (const __u64 *)(p + size);
	*nr_ids = (len - size) / 8;
	return 0;
}

int data_decode_event_update(struct perf_data_reader *r, const struct data_record *rec,
			     struct data_event_update *u)
{
	const unsigned char *p = body(rec);
	size_t len = body_len(rec);

	memset(u, 0, sizeof(*u));
	if (len < EVENT_UPDATE_FIXED)
		return too_short(r, rec, "event update", EVENT_UPDATE_FIXED);
	memcpy(&u->type, p, 8);
	memcpy(&u->id, p + 8, 8);
	switch (u->type) {
	case EVENT_UPDATE_UNIT:
	case EVENT_UPDATE_NAME:
		u->text = (const char *)p + 16;
		if (!memchr(u->text, '\0', len - 16))
			return data_error(r, rec->offset, "event update text not NUL-terminated");
		break;
	case EVENT_UPDATE_SCALE:
		memcpy(&u->scale, p + 16, sizeof(u->scale));
		break;
	default:
		break;	/* CPUS, or newer: the caller skips them */
	}
	return 0;
}

int data_decode_thread_map(struct perf_data_reader *r, const struct data_record *rec,
			   struct data_thread_map *map)
{
	const unsigned char *p = body(rec);
	size_t len = body_len(rec);
	__u64 nr, i;

	memset(map, 0, sizeof(*map));
	if (len < 8)
		return too_short(r, rec, "thread map", 8);
	memcpy(&nr, p, 8);
	if (!nr || nr > (len - 8) / sizeof(struct rec_thread_map_entry))
		return data_error(r, rec->offset, "thread map of %llu threads in %zu bytes",
				  (unsigned long long)nr, len);
	map->nr = nr;
	map->pids = xzalloc(nr * sizeof(*map->pids));
	map->comms = xzalloc(nr * sizeof(*map->comms));
	for (i = 0; i < nr; i++) {
		struct rec_thread_map_entry e;

		memcpy(&e, p + 8 + i * sizeof(e), sizeof(e));
		map->pids[i] = (pid_t)e.pid;
		memcpy(map->comms[i], e.comm, sizeof(e.comm));
	}
	return 0;
}

void data_thread_map_free(struct data_thread_map *map)
{
	free(map->pids);
	free(map->comms);
	memset(map, 0, sizeof(*map));
}

struct cpu_list {
	int *cpus;
	int nr;
};

static int cpu_list_add(struct perf_data_reader *r, const struct data_record *rec,
			struct cpu_list *l, int cpu)
{
	/* a mask could name CPUs a u16 elsewhere cannot */
	if (cpu >= DATA_CPU_ANY)
		return data_error(r, rec->offset, "cpu %d in the cpu map", cpu);
	/* grown in powers of two: a mask may list 65535 CPUs */
	if (!(l->nr & (l->nr - 1)))
		l->cpus = xrealloc(l->cpus, (l->nr ? 2 * l->nr : 1) * sizeof(*l->cpus));
	l->cpus[l->nr++] = cpu;
	return 0;
}

static int decode_cpu_mask(struct perf_data_reader *r, const struct data_record *rec,
			   const unsigned char *p, size_t len, struct cpu_list *l)
{
	__u16 nr, long_size;
	int i, bit;

	if (len < 6)
		return too_short(r, rec, "cpu mask", 6);
	memcpy(&nr, p + 2, 2);
	memcpy(&long_size, p + 4, 2);
	if ((long_size != 4 && long_size != 8) ||
	    (long_size == 8 ? 8 : 6) + (size_t)nr * long_size > len)
		return data_error(r, rec->offset, "cpu mask of %u words of %u bytes in %zu bytes",
				  nr, long_size, len);
	for (i = 0; i < nr; i++) {
		__u64 w = 0;
		__u32 w32;

		if (long_size == 8) {
			memcpy(&w, p + 8 + 8 * i, 8);
		} else {
			memcpy(&w32, p + 6 + 4 * i, 4);
			w = w32;
		}
		for (bit = 0; bit < long_size * 8; bit++)
			if (w >> bit & 1 && cpu_list_add(r, rec, l, i * long_size * 8 + bit))
				return -EINVAL;
	}
	return 0;
}

/* perf_record_cpu_map_data: a u16 encoding, then a list, a bitmask or a range. */
static int decode_cpu_map_data(struct perf_data_reader *r, const struct data_record *rec,
			       const unsigned char *p, size_t len, struct cpu_list *l)
{
	__u16 type, nr, a, b;
	int i;

	if (len < 4)
		return too_short(r, rec, "cpu map", 4);
	memcpy(&type, p, 2);
	switch (type) {
	case CPU_MAP_CPUS:
		memcpy(&nr, p + 2, 2);
		if (4 + 2 * (size_t)nr > len)
			return data_error(r, rec->offset, "cpu list of %u in %zu bytes", nr, len);
		for (i = 0; i < nr; i++) {
			memcpy(&a, p + 4 + 2 * i, 2);
			if (cpu_list_add(r, rec, l, a == DATA_CPU_ANY ? -1 : a))
				return -EINVAL;
		}
		return 0;
	case CPU_MAP_MASK:
		return decode_cpu_mask(r, rec, p, len, l);
	case CPU_MAP_RANGE:
		if (len < 8)
			return too_short(r, rec, "cpu range", 8);
		memcpy(&a, p + 4, 2);
		memcpy(&b, p + 6, 2);
		if (b < a)
			return data_error(r, rec->offset, "cpu range %u-%u", a, b);
		if (p[2] && cpu_list_add(r, rec, l, -1))
			return -EINVAL;
		for (i = a; i <= b; i++)
			if (cpu_list_add(r, rec, l, i))
				return -EINVAL;
		return 0;
	default:
		return data_error(r, rec->offset, "unknown cpu map encoding %u", type);
	}
}

int data_decode_cpu_map(struct perf_data_reader *r, const struct data_record *rec, int **cpus,
			int *nr)
{
	struct cpu_list l = { 0 };
	int err = decode_cpu_map_data(r, rec, body(rec), body_len(rec), &l);

	if (!err && !l.nr)
		err = data_error(r, rec->offset, "empty cpu map");
	if (err) {
		free(l.cpus);
		return err;
	}
	*cpus = l.cpus;
	*nr = l.nr;
	return 0;
}

int data_decode_stat_config(struct perf_data_reader *r, const struct data_record *rec,
			    struct data_stat_config *cfg)
{
	const unsigned char *p = body(rec);
	size_t len = body_len(rec);
	__u64 nr, i, tag, val;

	if (len < 8)
		return too_short(r, rec, "stat config", 8);
	memcpy(&nr, p, 8);
	if (nr > (len - 8) / 16)
		return data_error(r, rec->offset, "stat config of %llu entries in %zu bytes",
				  (unsigned long long)nr, len);
	for (i = 0; i < nr; i++) {
		memcpy(&tag, p + 8 + 16 * i, 8);
		memcpy(&val, p + 16 + 16 * i, 8);
		if (tag == STAT_CONFIG_AGGR_MODE)
			cfg->aggr_mode = val;
		else if (tag == STAT_CONFIG_INTERVAL)
			cfg->interval_ms = val;
		else if (tag == STAT_CONFIG_SCALE)
			cfg->scale = val != 0;
	}
	return 0;
}

int data_decode_stat(struct perf_data_reader *r, const struct data_record *rec,
		     struct rec_stat *st)
{
	if (rec->header.size < sizeof(*st))
		return too_short(r, rec, "stat", sizeof(*st) - sizeof(struct rec_header));
	memcpy(st, rec->data, sizeof(*st));
	return 0;
}

int data_decode_stat_round(struct perf_data_reader *r, const struct data_record *rec,
			   struct rec_stat_round *round)
{
	if (rec->header.size < sizeof(*round))
		return too_short(r, rec, "stat round", sizeof(*round) - sizeof(struct rec_header));
	memcpy(round, rec->data, sizeof(*round));
	return 0;
}
