/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The on-disk layout of perf.data (PERFILE2) as far as `perf stat record` uses it: the file
 * header, feature bits and the user-space record types that carry counts. All sizes are the
 * ones perf 6.1 writes; see /work/shared/notes/perf-data-stat.md for the decoded bytes.
 */
#ifndef BPERF_DATA_PERF_FILE_H
#define BPERF_DATA_PERF_FILE_H

#include <linux/perf_event.h>
#include <linux/types.h>

#define PERF_MAGIC2 0x32454c4946524550ULL	/* "PERFILE2" read as a little-endian u64 */
#define PERF_MAGIC2_SWAPPED 0x50455246494c4532ULL

struct perf_file_section {
	__u64 offset;
	__u64 size;
};

#define HEADER_FEAT_BITS 256

struct perf_file_header {
	__u64 magic;
	__u64 size;		/* sizeof(struct perf_file_header) */
	__u64 attr_size;	/* sizeof(perf_event_attr) + sizeof(struct perf_file_section) */
	struct perf_file_section attrs;
	struct perf_file_section data;
	struct perf_file_section event_types;	/* unused since perf 3.x, zero */
	__u64 features[HEADER_FEAT_BITS / 64];
};

/* The attr as perf 6.1 writes it (PERF_ATTR_SIZE_VER7) and its ids array. */
#define PERF_FILE_ATTR_SIZE 128

/* Feature bits (perf's HEADER_* numbering). */
enum perf_feature {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID,
	FEAT_HOSTNAME,
	FEAT_OSRELEASE,
	FEAT_VERSION,
	FEAT_ARCH,
	FEAT_NRCPUS,
	FEAT_CPUDESC,
	FEAT_CPUID,
	FEAT_TOTAL_MEM,
	FEAT_CMDLINE,
	FEAT_EVENT_DESC,
	FEAT_CPU_TOPOLOGY,
	FEAT_NUMA_TOPOLOGY,
	FEAT_BRANCH_STACK,
	FEAT_PMU_MAPPINGS,
	FEAT_GROUP_DESC,
	FEAT_AUXTRACE,
	FEAT_STAT,
	FEAT_CACHE,
	FEAT_SAMPLE_TIME,
	FEAT_MEM_TOPOLOGY,
	FEAT_CLOCKID,
	FEAT_DIR_FORMAT,
	FEAT_BPF_PROG_INFO,
	FEAT_BPF_BTF,
	FEAT_COMPRESSED,
	FEAT_CPU_PMU_CAPS,
	FEAT_CLOCK_DATA,
	FEAT_HYBRID_TOPOLOGY,
	FEAT_PMU_CAPS,
	FEAT_LAST,
};

/* Record types (perf_event_header.type) a stat file holds. */
enum perf_record_type {
	REC_MMAP = 1,
	REC_HEADER_ATTR = 64,
	REC_THREAD_MAP = 73,
	REC_CPU_MAP = 74,
	REC_STAT_CONFIG = 75,
	REC_STAT = 76,
	REC_STAT_ROUND = 77,
	REC_EVENT_UPDATE = 78,
};

struct rec_header {
	__u32 type;
	__u16 misc;
	__u16 size;	/* of the whole record, header included */
};

enum event_update_type {
	EVENT_UPDATE_UNIT,
	EVENT_UPDATE_SCALE,
	EVENT_UPDATE_NAME,
	EVENT_UPDATE_CPUS,
};

/* EVENT_UPDATE: header, u64 type, u64 id, then the payload; 40 bytes before padding. */
#define EVENT_UPDATE_FIXED 24
#define EVENT_UPDATE_MIN_SIZE 40

struct rec_thread_map_entry {
	__u64 pid;
	char comm[16];
};

enum cpu_map_encoding {
	CPU_MAP_CPUS,
	CPU_MAP_MASK,
	CPU_MAP_RANGE,
};

enum stat_config_tag {
	STAT_CONFIG_AGGR_MODE,
	STAT_CONFIG_INTERVAL,
	STAT_CONFIG_SCALE,
};

/* perf's enum aggr_mode as stored in STAT_CONFIG */
enum file_aggr_mode {
	FILE_AGGR_NONE,
	FILE_AGGR_GLOBAL,
	FILE_AGGR_SOCKET,
	FILE_AGGR_DIE,
	FILE_AGGR_CORE,
	FILE_AGGR_THREAD,
	FILE_AGGR_UNSET,
	FILE_AGGR_NODE,
};

struct rec_stat {
	struct rec_header header;
	__u64 id;
	__u32 cpu;	/* CPU number, (u32)-1 for per-task counting */
	__u32 thread;	/* index in the thread map */
	__u64 val;
	__u64 ena;
	__u64 run;
};

enum stat_round_type {
	STAT_ROUND_INTERVAL,
	STAT_ROUND_FINAL,
};

struct rec_stat_round {
	struct rec_header header;
	__u64 type;
	__u64 time;	/* ns: since the start (interval) or the elapsed time (final) */
};

#define PERF_RECORD_MISC_KERNEL_MMAP 1

#endif
