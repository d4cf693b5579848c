// SPDX-License-Identifier: GPL-2.0-only
/* perf.data writer: layout as perf_session__write_header() lays it out. */
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "swap.h"

#define MAX_RECORD_SIZE 0xffff

static void check_write(struct perf_data_writer *w, const void *p, size_t n)
{
	if (fwrite(p, 1, n, w->file) != n && !w->error)
		w->error = -errno ? -errno : -EIO;
}

int data_writer_open(struct perf_data_writer *w, const char *path, bool swap)
{
	struct stat st;
	int fd;

	memset(w, 0, sizeof(*w));
	w->swap = swap;
	if (!strcmp(path, "-")) {
		fd = dup(STDOUT_FILENO);
		w->file = fd < 0 ? NULL : fdopen(fd, "w");
		if (!w->file) {
			int err = -errno;

			pr_err("failed to use stdout: %s", strerror(-err));
			return err;
		}
		w->pipe = true;
		w->path = xstrdup("stdout");
		return 0;
	}
	if (!stat(path, &st) && st.st_size > 0) {
		char *old = xasprintf("%s.old", path);

		if (rename(path, old))
			pr_err("failed to rename %s to %s: %s", path, old, strerror(errno));
		free(old);
	}
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		int err = -errno;

		pr_err("failed to open %s: %s", path, strerror(errno));
		return err;
	}
	w->file = fdopen(fd, "w+");
	if (!w->file) {
		close(fd);
		return -ENOMEM;
	}
	w->path = xstrdup(path);
	return 0;
}

static void put_section(struct byte_buf *b, __u64 offset, __u64 size)
{
	buf_put_u64(b, offset);
	buf_put_u64(b, size);
}

static void record_from_buf(struct perf_data_writer *w, struct byte_buf *b, __u32 type,
			    __u16 misc);
static void start_record(struct byte_buf *b);

/* Pipe format: a 16-byte header, then each attr and its ids as a HEADER_ATTR record. */
static int begin_pipe(struct perf_data_writer *w, const struct data_event *events, int nr)
{
	struct byte_buf b = { .swap = w->swap };
	int i, k;

	buf_put_u64(&b, PERF_MAGIC2);
	buf_put_u64(&b, 16);
	check_write(w, b.data, b.len);
	buf_free(&b);
	for (i = 0; i < nr; i++) {
		struct perf_event_attr attr = events[i].attr;

		attr.size = PERF_FILE_ATTR_SIZE;
		start_record(&b);
		buf_put(&b, &attr, PERF_FILE_ATTR_SIZE);
		for (k = 0; k < events[i].nr_ids; k++)
			buf_put_u64(&b, events[i].ids[k]);
		record_from_buf(w, &b, REC_HEADER_ATTR, 0);
		buf_free(&b);
	}
	return w->error;
}

int data_writer_begin(struct perf_data_writer *w, const struct data_event *events, int nr)
{
	struct perf_file_header *h = &w->header;
	struct byte_buf b = { .swap = w->swap };
	__u64 ids_offset = sizeof(*h), offset;
	int i, k;

	if (w->pipe)
		return begin_pipe(w, events, nr);
	buf_put_zeros(&b, sizeof(*h));
	for (i = 0; i < nr; i++)
		for (k = 0; k < events[i].nr_ids; k++)
			buf_put_u64(&b, events[i].ids[k]);
	h->attrs.offset = b.len;
	h->attr_size = PERF_FILE_ATTR_SIZE + w->attr_extra + sizeof(struct perf_file_section);
	offset = ids_offset;
	for (i = 0; i < nr; i++) {
		struct perf_event_attr attr = events[i].attr;
		__u64 ids_size = (__u64)events[i].nr_ids * 8;

		attr.size = PERF_FILE_ATTR_SIZE + w->attr_extra;
		if (w->swap)
			swap_attr(&attr, PERF_FILE_ATTR_SIZE);
		buf_put(&b, &attr, PERF_FILE_ATTR_SIZE);
		buf_put_zeros(&b, w->attr_extra);
		put_section(&b, offset, ids_size);
		offset += ids_size;
	}
	h->attrs.size = b.len - h->attrs.offset;
	h->data.offset = b.len;
	check_write(w, b.data, b.len);
	buf_free(&b);
	return w->error;
}

void data_writer_record(struct perf_data_writer *w, void *rec)
{
	struct rec_header *h = rec;
	size_t size = h->size;

	if (w->swap) {
		swap_rec_body(h->type, rec, size, false);
		swap_rec_header(h);
	}
	check_write(w, rec, size);
	w->header.data.size += size;
}

static void record_from_buf(struct perf_data_writer *w, struct byte_buf *b, __u32 type,
			    __u16 misc)
{
	struct rec_header h = { .type = type, .misc = misc };

	buf_put_zeros(b, (8 - b->len % 8) % 8);
	if (b->len > MAX_RECORD_SIZE) {
		if (!w->error)
			pr_err("%s: a record of type %u would take %zu bytes, more than a record "
			       "can hold", w->path, type, b->len);
		w->error = -E2BIG;
		return;
	}
	h.size = (__u16)b->len;
	memcpy(b->data, &h, sizeof(h));
	data_writer_record(w, b->data);
}

/* A record is built in host order, then swapped as a whole by data_writer_record(). */
static void start_record(struct byte_buf *b)
{
	memset(b, 0, sizeof(*b));
	buf_put_zeros(b, sizeof(struct rec_header));
}

static void event_update(struct perf_data_writer *w, __u64 type, __u64 id, const void *payload,
			 size_t len)
{
	struct byte_buf b;

	start_record(&b);
	buf_put_u64(&b, type);
	buf_put_u64(&b, id);
	buf_put(&b, payload, len);
	/* perf sizes it as its struct (a 16-byte union) plus the payload */
	if (b.len < EVENT_UPDATE_MIN_SIZE + len)
		buf_put_zeros(&b, EVENT_UPDATE_MIN_SIZE + len - b.len);
	record_from_buf(w, &b, REC_EVENT_UPDATE, 0);
	buf_free(&b);
}

void data_write_event_update_unit(struct perf_data_writer *w, __u64 id, const char *unit)
{
	event_update(w, EVENT_UPDATE_UNIT, id, unit, strlen(unit) + 1);
}

void data_write_event_update_scale(struct perf_data_writer *w, __u64 id, double scale)
{
	event_update(w, EVENT_UPDATE_SCALE, id, &scale, sizeof(scale));
}

void data_write_event_update_name(struct perf_data_writer *w, __u64 id, const char *name)
{
	event_update(w, EVENT_UPDATE_NAME, id, name, strlen(name) + 1);
}

void data_write_thread_map(struct perf_data_writer *w, const int *pids, char (*comms)[64],
			   int nr)
{
	struct byte_buf b;
	int i;

	start_record(&b);
	buf_put_u64(&b, nr);
	for (i = 0; i < nr; i++) {
		char comm[16] = "";

		if (comms)
			strncpy(comm, comms[i], sizeof(comm) - 1);
		buf_put_u64(&b, (__u64)(__s64)pids[i]);
		buf_put(&b, comm, sizeof(comm));
	}
	record_from_buf(w, &b, REC_THREAD_MAP, 0);
	buf_free(&b);
}

/* perf's choice: a range when the CPUs are contiguous, else a list or a mask, the smaller. */
void data_write_cpu_map(struct perf_data_writer *w, const int *cpus, int nr)
{
	bool contiguous = nr > 0 && cpus[0] >= 0;
	struct byte_buf b;
	int i, max = 0;

	for (i = 1; i < nr && contiguous; i++)
		contiguous = cpus[i] == cpus[i - 1] + 1;
	for (i = 0; i < nr; i++)
		max = cpus[i] > max ? cpus[i] : max;
	start_record(&b);
	if (contiguous && nr > 1) {
		buf_put_u16(&b, CPU_MAP_RANGE);
		buf_put_u16(&b, 0);	/* any_cpu, pad */
		buf_put_u16(&b, cpus[0]);
		buf_put_u16(&b, cpus[nr - 1]);
	} else if (nr * 2 <= (max / 64 + 1) * 8 + 6) {
		buf_put_u16(&b, CPU_MAP_CPUS);
		buf_put_u16(&b, nr);
		for (i = 0; i < nr; i++)
			buf_put_u16(&b, (__u16)cpus[i]);
	} else {
		int words = max / 64 + 1;
		__u64 *mask = xzalloc(words * sizeof(*mask));

		for (i = 0; i < nr; i++)
			mask[cpus[i] / 64] |= 1ull << (cpus[i] % 64);
		buf_put_u16(&b, CPU_MAP_MASK);
		buf_put_u16(&b, words);
		buf_put_u16(&b, 8);
		buf_put_u16(&b, 0);
		for (i = 0; i < words; i++)
			buf_put_u64(&b, mask[i]);
		free(mask);
	}
	record_from_buf(w, &b, REC_CPU_MAP, 0);
	buf_free(&b);
}

void data_write_stat_config(struct perf_data_writer *w, __u64 aggr_mode, __u64 interval_ms,
			    bool scale)
{
	struct byte_buf b;

	start_record(&b);
	buf_put_u64(&b, 3);
	buf_put_u64(&b, STAT_CONFIG_AGGR_MODE);
	buf_put_u64(&b, aggr_mode);
	buf_put_u64(&b, STAT_CONFIG_INTERVAL);
	buf_put_u64(&b, interval_ms);
	buf_put_u64(&b, STAT_CONFIG_SCALE);
	buf_put_u64(&b, scale);
	record_from_buf(w, &b, REC_STAT_CONFIG, 0);
	buf_free(&b);
}

void data_write_stat(struct perf_data_writer *w, __u64 id, int cpu, int thread, __u64 val,
		     __u64 ena, __u64 run)
{
	struct rec_stat r = {
		.header = { .type = REC_STAT, .size = sizeof(r) },
		.id = id,
		.cpu = (__u32)cpu,
		.thread = (__u32)thread,
		.val = val,
		.ena = ena,
		.run = run,
	};

	data_writer_record(w, &r);
}

void data_write_stat_round(struct perf_data_writer *w, __u64 type, __u64 time_ns)
{
	struct rec_stat_round r = {
		.header = { .type = REC_STAT_ROUND, .size = sizeof(r) },
		.type = type,
		.time = time_ns,
	};

	data_writer_record(w, &r);
}

/* The address of _text from kallsyms when readable, as perf's kernel map; 0 otherwise. */
static __u64 kernel_text_start(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	unsigned long long addr = 0;
	char line[256], name[128], type;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) == 3 &&
		    !strcmp(name, "_text"))
			break;
		addr = 0;
	}
	fclose(f);
	return addr;
}

void data_write_kernel_mmap(struct perf_data_writer *w)
{
	static const char name[] = "[kernel.kallsyms]_text";
	__u64 start = kernel_text_start();
	struct byte_buf b;

	start_record(&b);
	buf_put_u32(&b, (__u32)-1);
	buf_put_u32(&b, 0);
	buf_put_u64(&b, start);
	buf_put_u64(&b, start ? ~0ull - start : 0);
	buf_put_u64(&b, start);
	buf_put(&b, name, sizeof(name));
	record_from_buf(w, &b, REC_MMAP, PERF_RECORD_MISC_KERNEL_MMAP);
	buf_free(&b);
}

int data_writer_finish(struct perf_data_writer *w, const struct data_features *feat)
{
	struct perf_file_header h;
	struct byte_buf table = { .swap = w->swap }, payload = { .swap = w->swap };
	__u64 feat_offset = w->header.data.offset + w->header.data.size;
	int nr = 0, i;

	if (w->pipe) {
		if (fflush(w->file) && !w->error)
			w->error = -errno;
		return w->error;
	}
	for (i = FEAT_HOSTNAME; i < FEAT_LAST; i++) {
		struct byte_buf one = { .swap = w->swap };

		if (feature_write(&one, i, feat)) {
			nr++;
			w->header.features[i / 64] |= 1ull << (i % 64);
			/* offsets are filled in below, once the table's size is known */
			put_section(&table, payload.len, one.len);
			buf_put(&payload, one.data ? one.data : "", one.len);
		}
		buf_free(&one);
	}
	/* the table's offsets so far are relative to the payloads: make them absolute */
	for (i = 0; i < nr; i++) {
		__u64 rel;

		memcpy(&rel, table.data + 16 * i, 8);
		if (w->swap)
			rel = __builtin_bswap64(rel);
		rel += feat_offset + table.len;
		if (w->swap)
			rel = __builtin_bswap64(rel);
		memcpy(table.data + 16 * i, &rel, 8);
	}
	if (fseeko(w->file, feat_offset, SEEK_SET) && !w->error)
		w->error = -errno;
	check_write(w, table.data ? table.data : "", table.len);
	check_write(w, payload.data ? payload.data : "", payload.len);
	buf_free(&table);
	buf_free(&payload);

	h = w->header;
	h.magic = PERF_MAGIC2;
	h.size = sizeof(h);
	if (w->swap)
		swap_file_header(&h);
	if (fseeko(w->file, 0, SEEK_SET) && !w->error)
		w->error = -errno;
	check_write(w, &h, sizeof(h));
	if (fflush(w->file) && !w->error)
		w->error = -errno;
	if (w->error)
		pr_err("failed to write %s: %s", w->path, strerror(-w->error));
	return w->error;
}

void data_writer_close(struct perf_data_writer *w)
{
	if (w->file)
		fclose(w->file);
	free(w->path);
	memset(w, 0, sizeof(*w));
}
