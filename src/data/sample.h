/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records `perf record` writes (samples, mmaps, comm, fork, exit, ...), decoded by the
 * sample_type of the event each belongs to: its id (PERF_SAMPLE_IDENTIFIER, the id position
 * every attr shares, or the only attr) picks the attr. Non-sample records carry the
 * sample_id_all trailer. Pointers point into the record and are valid as long as it is.
 */
#ifndef BPERF_DATA_SAMPLE_H
#define BPERF_DATA_SAMPLE_H

#include <stdbool.h>
#include <string.h>

#include "reader.h"

/* Kernel and perf user-space record types (perf_event.h and perf's event.h). */
enum perf_sample_record_type {
	REC_LOST = 2,
	REC_COMM = 3,
	REC_EXIT = 4,
	REC_THROTTLE = 5,
	REC_UNTHROTTLE = 6,
	REC_FORK = 7,
	REC_READ = 8,
	REC_SAMPLE = 9,
	REC_MMAP2 = 10,
	REC_LOST_SAMPLES = 13,
	REC_KSYMBOL = 17,
	REC_FINISHED_ROUND = 68,
	REC_COMPRESSED = 81,	/* perf record -z: zstd frames of records */
	REC_TYPE_MAX = 128,
};

#define REC_MISC_CPUMODE_MASK 7
#define REC_MISC_KERNEL 1
#define REC_MISC_USER 2
#define REC_MISC_HYPERVISOR 3
#define REC_MISC_GUEST_KERNEL 4
#define REC_MISC_GUEST_USER 5
#define REC_MISC_COMM_EXEC (1 << 13)
#define REC_MISC_MMAP_DATA (1 << 13)
#define REC_MISC_MMAP_BUILD_ID (1 << 14)

/* perf's name of a record type ("SAMPLE", "MMAP2", ...), NULL if unknown. */
const char *data_record_name(__u32 type);

/* The sample_id_all trailer, or a sample's fields of the same names. */
struct data_sample_id {
	int attr_idx;		/* in r->attrs, -1 when no attr could be told */
	bool has_tid, has_time, has_cpu;
	__u32 pid, tid, cpu;
	__u64 time, id, stream_id;
};

struct data_sample {
	struct data_sample_id sid;
	__u64 ip, addr, period;
	bool has_ip, has_addr, has_period;
	const __u64 *read;	/* PERF_SAMPLE_READ: the read_format words as recorded (data_word) */
	__u32 nr_read;
	const __u64 *callchain;	/* as recorded: read with data_word() */
	__u64 nr_callchain;
	const unsigned char *raw;
	__u32 raw_size;
};

/*
 * Word i of an array inside a record: records sit at any offset of a damaged file, so the
 * words are copied out rather than loaded through a misaligned pointer.
 */
static inline __u64 data_word(const __u64 *words, __u64 i)
{
	__u64 v;

	memcpy(&v, (const char *)words + i * sizeof(v), sizeof(v));
	return v;
}

/* An id -> attr table over the reader's attrs, and the id layout the attrs share. */
struct data_id_index {
	__u64 *ids;		/* sorted */
	int *attr_idx;
	__u32 nr;
	bool identifier;	/* every attr has PERF_SAMPLE_IDENTIFIER */
	int sample_id_pos;	/* u64 index of the id in a sample, -1 if none */
	int trailer_id_pos;	/* the id's u64 counted back from a trailer's end, -1: none */
};

int data_id_index_build(struct perf_data_reader *r, struct data_id_index *idx);
void data_id_index_free(struct data_id_index *idx);
/* The attr index of id, -1 if no attr has it (a single attr takes every id). */
int data_id_index_find(const struct perf_data_reader *r, const struct data_id_index *idx,
		       __u64 id);

int data_decode_sample(struct perf_data_reader *r, const struct data_id_index *idx,
		       const struct data_record *rec, struct data_sample *s);
/* The trailer of a kernel record whose fixed part is fixed bytes long (header included). */
int data_decode_sample_id(struct perf_data_reader *r, const struct data_id_index *idx,
			  const struct data_record *rec, size_t fixed, struct data_sample_id *sid);

struct data_mmap {
	__u32 pid, tid;
	__u64 start, len, pgoff;
	const char *filename;
	const unsigned char *build_id;	/* MMAP2 with a build id, else NULL */
	__u32 build_id_size;
	__u32 prot, flags;	/* MMAP: PROT_EXEC unless its misc marks data */
};

struct data_comm {
	__u32 pid, tid;
	const char *comm;
	bool exec;
};

struct data_fork {
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

/* MMAP and MMAP2; the trailer is decoded separately. */
int data_decode_mmap(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_mmap *m);
int data_decode_comm(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_comm *c);
/* FORK and EXIT */
int data_decode_fork(struct perf_data_reader *r, const struct data_record *rec,
		     struct data_fork *f);
/* Bytes before the trailer of a kernel record type, 0 if bperf does not know them. */
size_t data_record_fixed_size(const struct data_record *rec);

#endif
