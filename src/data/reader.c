// SPDX-License-Identifier: GPL-2.0-only
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "swap.h"

/* Twice the largest record, so that any record fits in one window. */
#define WINDOW_SIZE (256u << 10)
#define PIPE_HEADER_SIZE 16
/* perf_event_attr's first published size (PERF_ATTR_SIZE_VER0) */
#define ATTR_SIZE_VER0 64

int data_error(const struct perf_data_reader *r, __u64 offset, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (r->quiet)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("bperf: %s: offset 0x%llx: %s", r->path, (unsigned long long)offset, msg);
	return -EINVAL;
}

/*
 * stdin: moves the unread part of the window to its start and reads until size bytes from
 * offset are there or the input ends. Returns how many are there.
 */
static size_t stream_fill(struct perf_data_reader *r, __u64 offset, size_t size)
{
	size_t keep = r->buf_offset + r->buf_len - offset;

	memmove(r->buf, r->buf + (offset - r->buf_offset), keep);
	r->buf_offset = offset;
	r->buf_len = keep;
	while (r->buf_len < size) {
		ssize_t n = read(r->fd, r->buf + r->buf_len, WINDOW_SIZE - r->buf_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		r->buf_len += n;
	}
	/* what has been read is all the reader knows of the file's size */
	r->file_size = r->buf_offset + r->buf_len;
	return r->buf_len;
}

int data_reader_pread(struct perf_data_reader *r, __u64 offset, void *buf, size_t size)
{
	size_t done = 0;

	if (r->stream) {
		if (offset < r->buf_offset || stream_fill(r, offset, size) < size)
			return data_error(r, offset, "%zu bytes wanted but the input ends at "
					  "0x%llx", size, (unsigned long long)r->file_size);
		memcpy(buf, r->buf, size);
		return 0;
	}
	if (offset > r->file_size || size > r->file_size - offset)
		return data_error(r, offset, "%zu bytes wanted but the file ends at %#llx", size,
				  (unsigned long long)r->file_size);
	while (done < size) {
		ssize_t n = pread(r->fd, (char *)buf + done, size - done, offset + done);

		if (n <= 0)
			return data_error(r, offset + done, "read failed: %s",
					  n ? strerror(errno) : "unexpected end of file");
		done += n;
	}
	return 0;
}

/* Whether [offset, offset + size) lies in the file, without overflow. */
static bool in_file(const struct perf_data_reader *r, __u64 offset, __u64 size)
{
	return offset <= r->file_size && size <= r->file_size - offset;
}

int data_attr_from_file(struct perf_data_reader *r, __u64 offset, const void *raw,
			size_t attr_size, struct perf_event_attr *attr)
{
	unsigned char tmp[DATA_MAX_ATTR_SIZE];
	__u32 size;

	if (attr_size < ATTR_SIZE_VER0 || attr_size > sizeof(tmp))
		return data_error(r, offset, "perf_event_attr of %zu bytes", attr_size);
	memcpy(tmp, raw, attr_size);
	memcpy(&size, tmp + 4, 4);
	if (r->swap)
		size = __builtin_bswap32(size);
	if (!size)
		size = ATTR_SIZE_VER0;	/* perf writes 0 for the first attr layout */
	if (size < ATTR_SIZE_VER0 || size > attr_size)
		return data_error(r, offset + 4, "perf_event_attr size %u does not fit its %zu "
				  "bytes", size, attr_size);
	if (r->swap)
		swap_attr(tmp, size);
	memset(attr, 0, sizeof(*attr));
	/* a newer perf's attr is longer: its extra fields are not needed for counts */
	memcpy(attr, tmp, size < sizeof(*attr) ? size : sizeof(*attr));
	attr->size = sizeof(*attr);
	return 0;
}

static int read_ids(struct perf_data_reader *r, struct data_attr *a,
		    const struct perf_file_section *ids, __u64 where)
{
	__u32 k;
	int err;

	if (ids->size % 8 || !in_file(r, ids->offset, ids->size))
		return data_error(r, where, "event ids at %#llx, %llu bytes, outside the file",
				  (unsigned long long)ids->offset, (unsigned long long)ids->size);
	a->nr_ids = ids->size / 8;
	if (!a->nr_ids)
		return 0;
	r->nr_ids += a->nr_ids;
	if (r->nr_ids > DATA_MAX_IDS)
		return data_error(r, where, "more than %u event ids", DATA_MAX_IDS);
	a->ids = xzalloc(ids->size);
	err = data_reader_pread(r, ids->offset, a->ids, ids->size);
	for (k = 0; !err && r->swap && k < a->nr_ids; k++)
		a->ids[k] = __builtin_bswap64(a->ids[k]);
	return err;
}

static int read_attrs(struct perf_data_reader *r)
{
	const struct perf_file_header *h = &r->header;
	__u64 attr_size = h->attr_size, i;
	unsigned char *raw;
	int err = 0;

	if (attr_size < ATTR_SIZE_VER0 + sizeof(struct perf_file_section) ||
	    attr_size > DATA_MAX_ATTR_SIZE)
		return data_error(r, offsetof(struct perf_file_header, attr_size),
				  "attr size %llu is not plausible", (unsigned long long)attr_size);
	if (!in_file(r, h->attrs.offset, h->attrs.size))
		return data_error(r, offsetof(struct perf_file_header, attrs),
				  "attr section at %#llx, %llu bytes, outside the file",
				  (unsigned long long)h->attrs.offset,
				  (unsigned long long)h->attrs.size);
	if (h->attrs.size % attr_size || h->attrs.size / attr_size > DATA_MAX_ATTRS)
		return data_error(r, offsetof(struct perf_file_header, attrs),
				  "attr section of %llu bytes is not a count of %llu-byte attrs",
				  (unsigned long long)h->attrs.size, (unsigned long long)attr_size);
	r->nr_attrs = h->attrs.size / attr_size;
	r->attrs = xzalloc((r->nr_attrs + 1) * sizeof(*r->attrs));
	raw = xzalloc(attr_size);
	for (i = 0; !err && i < (__u64)r->nr_attrs; i++) {
		__u64 off = h->attrs.offset + i * attr_size;
		size_t known = attr_size - sizeof(struct perf_file_section);
		struct perf_file_section ids;

		err = data_reader_pread(r, off, raw, attr_size);
		if (!err)
			err = data_attr_from_file(r, off, raw, known, &r->attrs[i].attr);
		if (err)
			break;
		memcpy(&ids, raw + known, sizeof(ids));
		if (r->swap) {
			ids.offset = __builtin_bswap64(ids.offset);
			ids.size = __builtin_bswap64(ids.size);
		}
		err = read_ids(r, &r->attrs[i], &ids, off + known);
	}
	free(raw);
	return err;
}

/* Every feature section must be in the file, even those bperf skips: else it was cut short. */
static int check_feature_table(struct perf_data_reader *r)
{
	struct perf_file_section sec;
	int feat, ret;

	for (feat = 1; feat < HEADER_FEAT_BITS; feat++) {
		ret = data_reader_feature(r, feat, &sec);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Whether every feature section is in the file, said quietly. */
static bool feature_table_sound(struct perf_data_reader *r)
{
	bool quiet = r->quiet;
	int err;

	r->quiet = true;
	err = check_feature_table(r);
	r->quiet = quiet;
	return !err;
}

/*
 * A data section that runs past the file's end (the file was cut short), or of size 0 with
 * bytes after it (perf record was killed before it wrote its header): refused, unless the
 * reader was opened partial; then the records up to the end are read, without features.
 */
static int read_cut_data(struct perf_data_reader *r)
{
	struct perf_file_header *h = &r->header;
	__u64 where = offsetof(struct perf_file_header, data);

	if (!r->partial || h->data.offset > r->file_size)
		return data_error(r, where, "data section at %#llx, %llu bytes, outside the file",
				  (unsigned long long)h->data.offset,
				  (unsigned long long)h->data.size);
	if (h->data.size)
		data_error(r, where, "data section at %#llx, %llu bytes, runs past the end of the "
			   "file at %#llx: the file was cut short; reading the records before the cut",
			   (unsigned long long)h->data.offset, (unsigned long long)h->data.size,
			   (unsigned long long)r->file_size);
	else
		data_error(r, where, "data section at %#llx has size 0: perf record did not finish "
			   "the file; reading the records up to its end at %#llx",
			   (unsigned long long)h->data.offset, (unsigned long long)r->file_size);
	h->data.size = r->file_size - h->data.offset;
	r->cut_short = true;
	return 0;
}

static int read_header(struct perf_data_reader *r)
{
	struct perf_file_header *h = &r->header;
	bool features_sound;
	int err;

	if (r->stream && data_reader_pread(r, 0, h, PIPE_HEADER_SIZE))
		return -EINVAL;
	if (r->file_size < PIPE_HEADER_SIZE)
		return data_error(r, 0, "file of %llu bytes is too short for a perf.data header",
				  (unsigned long long)r->file_size);
	err = data_reader_pread(r, 0, h, PIPE_HEADER_SIZE);
	if (err)
		return err;
	if (h->magic == PERF_MAGIC2_SWAPPED)
		r->swap = true;
	else if (h->magic != PERF_MAGIC2)
		return data_error(r, 0, "bad magic %#llx: not a perf.data file (PERFILE2)",
				  (unsigned long long)h->magic);
	if (r->swap)
		h->size = __builtin_bswap64(h->size);
	if (h->size == PIPE_HEADER_SIZE) {
		r->pipe = true;
		r->pos = PIPE_HEADER_SIZE;
		r->end = r->stream ? ~0ull : r->file_size;
		return 0;
	}
	if (r->stream)
		return data_error(r, 8, "header size %llu: stdin must carry perf's pipe format "
				  "(stat record -o -)", (unsigned long long)h->size);
	/* perf's header, or an older perf's without the feature bits (they stay zero) */
	if (h->size != sizeof(*h) && h->size != offsetof(struct perf_file_header, features))
		return data_error(r, 8, "header size %llu: incompatible file format (perf.data "
				  "headers have %zu bytes, or %zu before feature bits)",
				  (unsigned long long)h->size, sizeof(*h),
				  offsetof(struct perf_file_header, features));
	if (h->size > r->file_size)
		return data_error(r, 8, "header of %llu bytes, but the file has only %llu",
				  (unsigned long long)h->size, (unsigned long long)r->file_size);
	err = data_reader_pread(r, 0, h, h->size < sizeof(*h) ? h->size : sizeof(*h));
	if (err)
		return err;
	if (r->swap)
		swap_file_header(h);
	/* a partial reader looks at the feature table once, quietly: a cut file loses it */
	features_sound = !r->partial || feature_table_sound(r);
	if (!in_file(r, h->data.offset, h->data.size) || (!h->data.size && !features_sound)) {
		err = read_cut_data(r);
		if (err)
			return err;
	}
	r->pos = h->data.offset;
	r->end = h->data.offset + h->data.size;
	err = read_attrs(r);
	/* a cut file's feature table went with its end */
	if (err || r->cut_short)
		return err;
	if (r->partial) {
		if (!features_sound) {
			data_error(r, r->end, "feature sections past the end of the file at %#llx: "
				   "the file was cut short; reading its records without them",
				   (unsigned long long)r->file_size);
			r->cut_short = true;
		}
		return 0;
	}
	return check_feature_table(r);
}

static int open_reader(struct perf_data_reader *r, const char *path, bool partial)
{
	struct stat st;
	int err;

	memset(r, 0, sizeof(*r));
	r->partial = partial;
	if (!strcmp(path, "-")) {
		r->path = xstrdup("stdin");
		r->stream = true;
		r->fd = dup(STDIN_FILENO);
		r->buf = xzalloc(WINDOW_SIZE);
		return r->fd < 0 ? -errno : read_header(r);
	}
	r->path = xstrdup(path);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		err = -errno;
		pr_err("failed to open %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(r->fd, &st) || !S_ISREG(st.st_mode)) {
		pr_err("bperf: %s: not a regular file", path);
		return -EINVAL;
	}
	r->file_size = st.st_size;
	r->buf = xzalloc(WINDOW_SIZE);
	return read_header(r);
}

int data_reader_open(struct perf_data_reader *r, const char *path)
{
	return open_reader(r, path, false);
}

int data_reader_open_partial(struct perf_data_reader *r, const char *path)
{
	return open_reader(r, path, true);
}

/* Makes [offset, offset + size) available in the window; size is at most a record's. */
static int window_fill(struct perf_data_reader *r, __u64 offset, size_t size)
{
	size_t want;

	if (offset >= r->buf_offset && offset + size <= r->buf_offset + r->buf_len)
		return 0;
	if (r->stream)
		return stream_fill(r, offset, size) < size ?
			data_error(r, offset, "the input ends inside a record") : 0;
	want = r->end - offset < WINDOW_SIZE ? r->end - offset : WINDOW_SIZE;
	r->buf_offset = offset;
	r->buf_len = 0;
	if (data_reader_pread(r, offset, r->buf, want))
		return -EINVAL;
	r->buf_len = want;
	return 0;
}

int data_reader_next(struct perf_data_reader *r, struct data_record *rec)
{
	struct rec_header h;
	char *p;

	if (r->pos >= r->end)
		return 0;
	/* stdin has no size: its end is where a record would start */
	if (r->stream && r->pos >= r->buf_offset + r->buf_len && !stream_fill(r, r->pos, 1))
		return 0;
	if (r->end - r->pos < sizeof(h))
		return data_error(r, r->pos, "truncated record header: %llu bytes left in the data",
				  (unsigned long long)(r->end - r->pos));
	if (window_fill(r, r->pos, sizeof(h)))
		return -EINVAL;
	p = r->buf + (r->pos - r->buf_offset);
	memcpy(&h, p, sizeof(h));
	if (r->swap)
		swap_rec_header(&h);
	if (h.size < sizeof(h))
		return data_error(r, r->pos, "record of type %u has size %u, less than its header",
				  h.type, h.size);
	if (h.size > r->end - r->pos)
		return data_error(r, r->pos, "record of type %u and %u bytes runs past the end of "
				  "the data at %#llx", h.type, h.size, (unsigned long long)r->end);
	if (window_fill(r, r->pos, h.size))
		return -EINVAL;
	p = r->buf + (r->pos - r->buf_offset);
	memcpy(p, &h, sizeof(h));
	if (r->swap)
		swap_rec_body(h.type, p, h.size, true);
	rec->offset = r->pos;
	rec->header = h;
	rec->data = p;
	r->pos += h.size;
	return 1;
}

int data_reader_feature(struct perf_data_reader *r, int feat, struct perf_file_section *sec)
{
	const __u64 *bits = r->header.features;
	__u64 table = r->header.data.offset + r->header.data.size;
	int i, idx = 0;

	if (r->pipe || r->cut_short || feat <= 0 || feat >= HEADER_FEAT_BITS ||
	    !(bits[feat / 64] >> (feat % 64) & 1))
		return 0;
	/* the table has one entry per bit set, in bit order */
	for (i = 0; i < feat; i++)
		idx += bits[i / 64] >> (i % 64) & 1;
	if (data_reader_pread(r, table + 16ull * idx, sec, sizeof(*sec)))
		return -EINVAL;
	if (r->swap) {
		sec->offset = __builtin_bswap64(sec->offset);
		sec->size = __builtin_bswap64(sec->size);
	}
	if (!in_file(r, sec->offset, sec->size))
		return data_error(r, table + 16ull * idx,
				  "feature %d section at %#llx, %llu bytes, outside the file", feat,
				  (unsigned long long)sec->offset, (unsigned long long)sec->size);
	return 1;
}

void data_reader_close(struct perf_data_reader *r)
{
	int i;

	if (r->path && r->fd >= 0)
		close(r->fd);
	for (i = 0; i < r->nr_attrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	free(r->buf);
	free(r->path);
	memset(r, 0, sizeof(*r));
}

int feat_cursor_load(struct perf_data_reader *r, int feat, struct feat_cursor *c)
{
	struct perf_file_section sec;
	int ret = data_reader_feature(r, feat, &sec);
	unsigned char *data;

	memset(c, 0, sizeof(*c));
	if (ret <= 0)
		return ret;
	if (sec.size > DATA_MAX_FEATURE_SIZE)
		return data_error(r, sec.offset, "feature %d section of %llu bytes is too large",
				  feat, (unsigned long long)sec.size);
	data = xzalloc(sec.size + 1);
	if (data_reader_pread(r, sec.offset, data, sec.size)) {
		free(data);
		return -EINVAL;
	}
	c->r = r;
	c->data = data;
	c->size = sec.size;
	c->offset = sec.offset;
	return 1;
}

void feat_cursor_free(struct feat_cursor *c)
{
	free((void *)c->data);
	memset(c, 0, sizeof(*c));
}

static int cursor_take(struct feat_cursor *c, void *v, size_t n)
{
	if (c->size - c->pos < n)
		return data_error(c->r, c->offset + c->pos,
				  "feature section ends %zu bytes into a %zu-byte field",
				  c->size - c->pos, n);
	memcpy(v, c->data + c->pos, n);
	c->pos += n;
	return 0;
}

int feat_cursor_u32(struct feat_cursor *c, __u32 *v)
{
	if (cursor_take(c, v, sizeof(*v)))
		return -EINVAL;
	if (c->r->swap)
		*v = __builtin_bswap32(*v);
	return 0;
}

int feat_cursor_u64(struct feat_cursor *c, __u64 *v)
{
	if (cursor_take(c, v, sizeof(*v)))
		return -EINVAL;
	if (c->r->swap)
		*v = __builtin_bswap64(*v);
	return 0;
}

int feat_cursor_string(struct feat_cursor *c, const char **s)
{
	__u64 start = c->offset + c->pos;
	__u32 len;

	if (feat_cursor_u32(c, &len))
		return -EINVAL;
	if (len > c->size - c->pos)
		return data_error(c->r, start, "string of %u bytes runs past its feature section",
				  len);
	if (!len || !memchr(c->data + c->pos, '\0', len))
		return data_error(c->r, start, "string of %u bytes is not NUL-terminated", len);
	*s = (const char *)c->data + c->pos;
	c->pos += len;
	return 0;
}
