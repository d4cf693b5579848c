/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Byte-order conversion of perf.data structures, for files written on a host of the other
 * endianness. Each conversion is its own inverse, so the writer uses the same code to produce
 * such files for tests.
 */
#ifndef BPERF_DATA_SWAP_H
#define BPERF_DATA_SWAP_H

#include <stdbool.h>
#include <stddef.h>

#include "perf_file.h"

void swap_file_header(struct perf_file_header *h);
void swap_rec_header(struct rec_header *h);
/*
 * A perf_event_attr of size bytes (its own size field already in host order or not: size
 * says how much to convert). The flag bit-field word keeps its byte order but each byte's
 * bits are reversed, as compilers lay bit-fields out from the other end on big-endian hosts.
 */
void swap_attr(void *attr, size_t size);
/*
 * A record body after its header (already in host order), by type; size is the whole record.
 * from_file: the body is in the foreign order now (reading), else in host order (writing).
 */
void swap_rec_body(__u32 type, void *rec, size_t size, bool from_file);

#endif
