// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for `bperf stat report`: each input is a perf.data file, read through the
 * whole report path (reader, feature parsers, replay, aggregation, printers) into /dev/null.
 * The last byte picks the output format and aggregation so that every printer is reached, and
 * whether the file is read by path or as stdin (forward only). The same input then goes through
 * `bperf data` (sample decoding by sample_type, callchains, trailers, the ordered queue,
 * processes and maps, dump and the csv tables), the kernel's symbols left out for speed.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "data/dump.h"
#include "data/hists.h"
#include "data/session.h"
#include "data/tables.h"
#include "stat/stat_report.h"

static const enum aggr_mode modes[] = {
	AGGR_GLOBAL, AGGR_NONE, AGGR_CORE, AGGR_DIE, AGGR_SOCKET, AGGR_NODE,
};

struct fuzz_data_ctx {
	FILE *out;
	struct data_hists hists;
};

static int fuzz_record(void *ctx, struct data_session *s, const struct data_record *rec)
{
	data_dump_record(s, rec, ((struct fuzz_data_ctx *)ctx)->out);
	return 0;
}

static int fuzz_ordered(void *ctx, struct data_session *s, const struct data_record *rec,
			const struct data_sample *smp, const struct data_location *loc)
{
	struct fuzz_data_ctx *c = ctx;

	if (smp && loc)
		data_hists_add(&c->hists, smp->sid.attr_idx, loc, smp->period);
	tables_overview_record(s, rec, smp, loc, c->out);
	return 0;
}

static void fuzz_data(const char *path, FILE *out)
{
	static const struct data_session_ops ops = {
		.record = fuzz_record,
		.ordered = fuzz_ordered,
	};
	struct fuzz_data_ctx ctx = { .out = out };
	struct data_session s;

	if (data_session_open(&s, path)) {
		data_session_close(&s);
		return;
	}
	s.ops = &ops;
	s.ctx = &ctx;
	s.resolve = true;
	s.machine.dsos.quiet = true;
	s.machine.dsos.kallsyms_path = "/nonexistent";
	/* a small window so that the bounded queue's half flushes are reached */
	s.queue_max_bytes = 4096;
	data_hists_init(&ctx.hists, s.r.nr_attrs);
	data_dump_header(&s, out);
	data_session_run(&s);
	data_hists_sort(&ctx.hists);
	data_dump_stats(&s, out);
	tables_write_stat(&s, out);
	tables_write_processes(&s, out);
	tables_write_results(&s, &ctx.hists, out);
	data_hists_free(&ctx.hists);
	data_session_close(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	unsigned char pick = size ? data[size - 1] : 0;
	struct report_options ro = { 0 };
	char path[64];
	int fd;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	fd = memfd_create("fuzz_report", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro.input = path;
	/* the stdin path too (pipe format only), read forward through the same descriptor */
	if (pick & 2 && lseek(fd, 0, SEEK_SET) == 0 && dup2(fd, STDIN_FILENO) == STDIN_FILENO)
		ro.input = "-";
	ro.aggr_mode_given = pick & 8;
	ro.aggr_mode = modes[(pick >> 4) % (sizeof(modes) / sizeof(modes[0]))];
	ro.out.out = devnull;
	ro.out.format = pick % 3 == 0 ? OUTPUT_STD : pick % 3 == 1 ? OUTPUT_CSV : OUTPUT_JSON;
	ro.out.csv_sep = ",";
	ro.out.big_num = pick & 4;
	stat_report_file(&ro);
	if (!(pick & 2))
		fuzz_data(path, devnull);
	close(fd);
	return 0;
}
