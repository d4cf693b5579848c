// SPDX-License-Identifier: GPL-2.0-only
#include "swap.h"

#include <byteswap.h>
#include <string.h>

/* perf_event.h's numbers of the sample-file records whose fixed part is converted here */
enum {
	REC_LOST_TYPE = 2,
	REC_COMM_TYPE = 3,
	REC_EXIT_TYPE = 4,
	REC_FORK_TYPE = 7,
	REC_SAMPLE_TYPE = 9,
	REC_MMAP2_TYPE = 10,
	REC_LOST_SAMPLES_TYPE = 13,
};

static void swap_u16s(void *p, size_t n)
{
	__u16 v;

	for (size_t i = 0; i < n; i++) {
		memcpy(&v, (char *)p + 2 * i, 2);
		v = bswap_16(v);
		memcpy((char *)p + 2 * i, &v, 2);
	}
}

static void swap_u32s(void *p, size_t n)
{
	__u32 v;

	for (size_t i = 0; i < n; i++) {
		memcpy(&v, (char *)p + 4 * i, 4);
		v = bswap_32(v);
		memcpy((char *)p + 4 * i, &v, 4);
	}
}

static void swap_u64s(void *p, size_t n)
{
	__u64 v;

	for (size_t i = 0; i < n; i++) {
		memcpy(&v, (char *)p + 8 * i, 8);
		v = bswap_64(v);
		memcpy((char *)p + 8 * i, &v, 8);
	}
}

void swap_file_header(struct perf_file_header *h)
{
	swap_u64s(h, sizeof(*h) / 8);
}

void swap_rec_header(struct rec_header *h)
{
	h->type = bswap_32(h->type);
	h->misc = bswap_16(h->misc);
	h->size = bswap_16(h->size);
}

static unsigned char reverse_bits(unsigned char b)
{
	unsigned char r = 0;

	for (int i = 0; i < 8; i++)
		if (b & (1u << i))
			r |= 1u << (7 - i);
	return r;
}

/* Field widths of perf_event_attr up to VER8 (136 bytes); 0 marks the bit-field word. */
static const unsigned char attr_fields[] = {
	4, 4, 8, 8, 8, 8, 0, 4, 4, 8, 8, 8, 8, 4, 4, 8, 4, 2, 2, 4, 4, 8, 8,
};

void swap_attr(void *attr, size_t size)
{
	unsigned char *p = attr;
	size_t off = 0, i;

	for (i = 0; i < sizeof(attr_fields) && off < size; i++) {
		size_t w = attr_fields[i] ? attr_fields[i] : 8;

		if (off + w > size)
			return;
		if (!attr_fields[i])
			for (size_t k = 0; k < 8; k++)
				p[off + k] = reverse_bits(p[off + k]);
		else if (w == 2)
			swap_u16s(p + off, 1);
		else if (w == 4)
			swap_u32s(p + off, 1);
		else
			swap_u64s(p + off, 1);
		off += w;
	}
	/* fields of attrs newer than bperf knows: u64s, as every later addition */
	if (off < size)
		swap_u64s(p + off, (size - off) / 8);
}

/* A u16/u64 that decides the layout, read in host order whichever way the swap goes. */
static __u16 host_u16(const void *p, bool from_file)
{
	__u16 v;

	memcpy(&v, p, 2);
	return from_file ? bswap_16(v) : v;
}

static __u64 host_u64(const void *p, bool from_file)
{
	__u64 v;

	memcpy(&v, p, 8);
	return from_file ? bswap_64(v) : v;
}

static void swap_cpu_map_data(unsigned char *p, size_t len, bool from_file)
{
	__u16 type, nr, long_size;

	if (len < 2)
		return;
	type = host_u16(p, from_file);
	swap_u16s(p, 1);
	if (type == CPU_MAP_CPUS && len >= 4) {
		nr = host_u16(p + 2, from_file);
		swap_u16s(p + 2, 1);
		if (4 + 2 * (size_t)nr <= len)
			swap_u16s(p + 4, nr);
	} else if (type == CPU_MAP_MASK && len >= 6) {
		nr = host_u16(p + 2, from_file);
		long_size = host_u16(p + 4, from_file);
		swap_u16s(p + 2, 2);
		if (long_size == 4 && 6 + 4 * (size_t)nr <= len)
			swap_u32s(p + 6, nr);
		else if (long_size == 8 && 8 + 8 * (size_t)nr <= len)
			swap_u64s(p + 8, nr);
	} else if (type == CPU_MAP_RANGE && len >= 8) {
		swap_u16s(p + 4, 2);
	}
}

/* The body of a record perf writes (stat, maps, attrs); false for another type. */
static bool swap_tool_rec(__u32 type, unsigned char *p, size_t len, bool from_file)
{
	__u64 nr;
	size_t n;

	switch (type) {
	case REC_STAT:
		if (len >= 40) {
			swap_u64s(p, 1);
			swap_u32s(p + 8, 2);
			swap_u64s(p + 16, 3);
		}
		break;
	case REC_STAT_ROUND:
	case REC_STAT_CONFIG:
		swap_u64s(p, len / 8);
		break;
	case REC_THREAD_MAP:
		if (len < 8)
			break;
		nr = host_u64(p, from_file);
		swap_u64s(p, 1);
		for (n = 0; n < nr && 8 + 24 * (n + 1) <= len; n++)
			swap_u64s(p + 8 + 24 * n, 1);
		break;
	case REC_CPU_MAP:
		swap_cpu_map_data(p, len, from_file);
		break;
	case REC_EVENT_UPDATE:
		if (len < 16)
			break;
		nr = host_u64(p, from_file);
		swap_u64s(p, 2);
		/* perf 6.1 leaves the scale as written: a foreign file's scale is misread there */
		if (nr == EVENT_UPDATE_SCALE && len >= 24)
			swap_u64s(p + 16, 1);
		else if (nr == EVENT_UPDATE_CPUS)
			swap_cpu_map_data(p + 16, len - 16, from_file);
		break;
	case REC_HEADER_ATTR: {
		__u32 attr_size;

		if (len < 8)
			break;
		memcpy(&attr_size, p + 4, 4);
		if (from_file)
			attr_size = bswap_32(attr_size);
		if (!attr_size)
			attr_size = 64;
		if (attr_size > len)
			break;
		swap_attr(p, attr_size);
		swap_u64s(p + attr_size, (len - attr_size) / 8);
		break;
	}
	default:
		return false;
	}
	return true;
}

/* The body of a record the kernel writes (mmaps, tasks, losses, samples). */
static void swap_kernel_rec(__u32 type, const void *rec, unsigned char *p, size_t len)
{
	switch (type) {
	case REC_MMAP:
		if (len >= 32) {
			swap_u32s(p, 2);
			swap_u64s(p + 8, 3);
		}
		break;
	case REC_MMAP2_TYPE:
		if (len >= 64) {
			/* the header is in host order already: PERF_RECORD_MISC_MMAP_BUILD_ID */
			bool build_id = ((const struct rec_header *)rec)->misc & (1 << 14);

			swap_u32s(p, 2);
			swap_u64s(p + 8, 3);
			/* a build id is bytes; else major, minor, inode and its generation */
			if (!build_id) {
				swap_u32s(p + 32, 2);
				swap_u64s(p + 40, 2);
			}
			swap_u32s(p + 56, 2);
		}
		break;
	case REC_COMM_TYPE:
		if (len >= 8)
			swap_u32s(p, 2);
		break;
	case REC_LOST_TYPE:
		/* the event id and how many were lost */
		if (len >= 16)
			swap_u64s(p, 2);
		break;
	case REC_LOST_SAMPLES_TYPE:
		if (len >= 8)
			swap_u64s(p, 1);
		break;
	case REC_FORK_TYPE:
	case REC_EXIT_TYPE:
		if (len >= 24) {
			swap_u32s(p, 4);
			swap_u64s(p + 16, 1);
		}
		break;
	case REC_SAMPLE_TYPE:
		/* as perf: every u64; the decoder sorts out u32 pairs, the trailers elsewhere */
		swap_u64s(p, len / 8);
		break;
	default:
		break;
	}
}

void swap_rec_body(__u32 type, void *rec, size_t size, bool from_file)
{
	unsigned char *p = (unsigned char *)rec + sizeof(struct rec_header);
	size_t len = size - sizeof(struct rec_header);

	if (!swap_tool_rec(type, p, len, from_file))
		swap_kernel_rec(type, rec, p, len);
}
