// SPDX-License-Identifier: GPL-2.0-only
/*
 * The perf.data writer and reader together: a file written in either byte order and with
 * attrs bigger than bperf's reads back field for field (header, attrs, ids, every record,
 * command line and event names); the report of a swapped file is the native one's; broken
 * files give exit code 255, never a crash. And bperf data's model of perf's symbol tree keeps
 * a red-black tree's rules through perf's insertions and duplicate removals.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/dso.h"
#include "data/env.h"
#include "data/reader.h"
#include "data/writer.h"
#include "stat/stat_report.h"

static int failures;

#define CHECK(cond, ...)                                                        \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);    \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			failures++;                                             \
		}                                                               \
	} while (0)

static const __u64 ids_a[] = { 11, 12 }, ids_b[] = { 21, 22 };

static void write_file(const char *path, bool swap, unsigned int attr_extra)
{
	static const char *const argv[] = { "stat", "record", "-a" };
	struct data_event ev[2] = {
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_CPU_CLOCK,
			    .read_format = 3, .disabled = 1, .inherit = 1 },
		  .name = "cpu-clock", .ids = ids_a, .nr_ids = 2, .unit = "msec", .scale = 1e-6,
		  .leader_idx = 0, .nr_members = 1 },
		{ .attr = { .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_PAGE_FAULTS,
			    .read_format = 3, .exclude_kernel = 1 },
		  .name = "page-faults:u", .ids = ids_b, .nr_ids = 2, .scale = 1.0,
		  .leader_idx = 1, .nr_members = 1 },
	};
	struct data_features f = { .events = ev, .nr_events = 2, .argv = argv, .argc = 3,
				   .version = "test" };
	struct perf_data_writer w;
	int cpus[] = { 0, 1 }, pid = -1, cpu;

	if (data_writer_open(&w, path, swap)) {
		failures++;
		return;
	}
	w.attr_extra = attr_extra;
	data_writer_begin(&w, ev, 2);
	data_write_event_update_unit(&w, 11, "msec");
	data_write_event_update_scale(&w, 11, 1e-6);
	data_write_thread_map(&w, &pid, NULL, 1);
	data_write_cpu_map(&w, cpus, 2);
	data_write_stat_config(&w, FILE_AGGR_GLOBAL, 0, true);
	for (cpu = 0; cpu < 2; cpu++) {
		data_write_stat(&w, ids_a[cpu], cpu, 0, 1000000 * (cpu + 1), 2000000, 2000000);
		data_write_stat(&w, ids_b[cpu], cpu, 0, 100 + cpu, 2000000, 1000000);
	}
	data_write_stat_round(&w, STAT_ROUND_FINAL, 2000000);
	CHECK(!data_writer_finish(&w, &f), "finish %s", path);
	data_writer_close(&w);
}

static void check_read(const char *path, bool swapped)
{
	struct perf_data_reader r;
	struct data_record rec;
	struct data_env env;
	__u32 types[16];
	int n = 0, ret;

	if (data_reader_open(&r, path)) {
		CHECK(0, "open %s", path);
		return;
	}
	CHECK(r.swap == swapped, "%s: swap %d", path, r.swap);
	CHECK(r.nr_attrs == 2, "%s: %d attrs", path, r.nr_attrs);
	CHECK(r.attrs[0].attr.config == PERF_COUNT_SW_CPU_CLOCK && r.attrs[0].attr.disabled &&
	      r.attrs[0].attr.inherit && !r.attrs[0].attr.exclude_kernel, "%s: attr 0", path);
	CHECK(r.attrs[1].attr.exclude_kernel && !r.attrs[1].attr.disabled, "%s: attr 1 bits",
	      path);
	CHECK(r.attrs[1].nr_ids == 2 && r.attrs[1].ids[1] == 22, "%s: ids", path);
	while ((ret = data_reader_next(&r, &rec)) > 0 && n < 16) {
		types[n++] = rec.header.type;
		if (rec.header.type == REC_STAT) {
			const struct rec_stat *st = rec.data;

			if (st->id == 22)
				CHECK(st->cpu == 1 && st->val == 101 && st->run == 1000000,
				      "%s: stat of id 22", path);
		}
		if (rec.header.type == REC_EVENT_UPDATE && n == 2) {
			double scale;

			memcpy(&scale, (char *)rec.data + 24, 8);
			CHECK(scale == 1e-6, "%s: scale %g", path, scale);
		}
	}
	CHECK(ret == 0 && n == 10, "%s: %d records, ret %d", path, n, ret);
	CHECK(n > 4 && types[2] == REC_THREAD_MAP && types[3] == REC_CPU_MAP &&
	      types[n - 1] == REC_STAT_ROUND, "%s: record order", path);
	CHECK(!data_env_read(&r, &env), "%s: features", path);
	CHECK(env.nr_cmdline == 4 && !strcmp(env.cmdline[3], "-a"), "%s: cmdline", path);
	CHECK(env.nr_events == 2 && !strcmp(env.events[1].name, "page-faults:u"),
	      "%s: event names", path);
	data_env_free(&env);
	data_reader_close(&r);
}

/* The CSV report of path (no header: no command line, which differs between the files). */
static char *report_text(const char *path)
{
	struct report_options ro = { .input = path };
	char *text = NULL;
	size_t size = 0;

	ro.out.out = open_memstream(&text, &size);
	ro.out.format = OUTPUT_CSV;
	ro.out.csv_sep = ",";
	CHECK(stat_report_file(&ro) == 0, "report of %s", path);
	fclose(ro.out.out);
	return text;
}

static void check_broken(const char *good, const char *bad)
{
	FILE *in = fopen(good, "rb"), *out;
	static char buf[1 << 16];
	struct report_options ro = { .input = bad };
	size_t len = in ? fread(buf, 1, sizeof(buf), in) : 0, cut;

	if (in)
		fclose(in);
	ro.out.out = fopen("/dev/null", "w");
	/* every truncation and a few single-byte corruptions: errors, never crashes */
	for (cut = 0; cut < len; cut += 37) {
		out = fopen(bad, "wb");
		fwrite(buf, 1, cut, out);
		fclose(out);
		CHECK(stat_report_file(&ro) == 255, "truncated at %zu: accepted", cut);
	}
	for (cut = 0; cut < 0x200 && cut < len; cut += 8) {
		char saved = buf[cut];

		buf[cut] ^= 0x7f;
		out = fopen(bad, "wb");
		fwrite(buf, 1, len, out);
		fclose(out);
		stat_report_file(&ro);
		buf[cut] = saved;
	}
	fclose(ro.out.out);
}

/* Checks the subtree at n (index + 1): links, colours; returns its black height, -1 if bad. */
static int tree_black_height(const struct data_dso *dso, __u32 n, __u32 parent)
{
	const struct data_symbol *s;
	int left, right;

	if (!n)
		return 1;
	s = &dso->syms[n - 1];
	CHECK(!s->erased && s->parent == parent, "node %u: erased or parent %u, not %u", n,
	      s->parent, parent);
	if (!s->black)
		CHECK((!s->left || dso->syms[s->left - 1].black) &&
		      (!s->right || dso->syms[s->right - 1].black),
		      "red node %u has a red child", n);
	left = tree_black_height(dso, s->left, n);
	right = tree_black_height(dso, s->right, n);
	CHECK(left == right && left > 0, "node %u: black heights %d and %d", n, left, right);
	return left == right && left > 0 ? left + s->black : -1;
}

/* The starts in order, into starts[]; how many. */
static size_t tree_in_order(const struct data_dso *dso, __u32 n, __u64 *starts, size_t at)
{
	if (!n)
		return at;
	at = tree_in_order(dso, dso->syms[n - 1].left, starts, at);
	starts[at++] = dso->syms[n - 1].start;
	return tree_in_order(dso, dso->syms[n - 1].right, starts, at);
}

static void check_tree(const struct data_dso *dso, size_t live, bool unique)
{
	__u64 *starts = calloc(dso->nr_syms + 1, sizeof(*starts));
	size_t n, i;

	CHECK(!dso->root || dso->syms[dso->root - 1].black, "red root");
	tree_black_height(dso, dso->root, 0);
	n = tree_in_order(dso, dso->root, starts, 0);
	CHECK(n == live, "%zu symbols in the tree, %zu expected", n, live);
	for (i = 1; i < n; i++)
		CHECK(unique ? starts[i - 1] < starts[i] : starts[i - 1] <= starts[i],
		      "in order: %#llx before %#llx", (unsigned long long)starts[i - 1],
		      (unsigned long long)starts[i]);
	free(starts);
}

/*
 * Thousands of symbols, many at one address, some sizeless, into the tree as perf inserts
 * them; perf's end fix-up and duplicate removal (a thousand deletions and more); the tree
 * stays a red-black tree in order, and each lookup gives a symbol holding the address (or a
 * sizeless one at it), or NULL where none does (sizes below the spacing: nothing overlaps).
 */
static void check_symbol_tree(void)
{
	struct data_dso dso = { .tree = true };
	size_t i, n = 3000, live = 0, erased = 0;
	unsigned int seed = 1;
	__u64 addr;

	for (i = 0; i < n; i++) {
		__u64 start = (rand_r(&seed) % 600) * 16, size = rand_r(&seed) % 4 ? 8 : 0;
		char name[32];

		snprintf(name, sizeof(name), "%s%zu", i % 3 ? "f" : "__g", i);
		symtree_add(&dso, start, size, strdup(name), "lgw"[i % 3]);
		if (i % 500 == 499)
			check_tree(&dso, i + 1, false);
	}
	symtree_fixup_end(&dso);
	symtree_fixup_duplicate(&dso);
	for (i = 0; i < dso.nr_syms; i++)
		erased += dso.syms[i].erased;
	live = dso.nr_syms - erased;
	CHECK(erased > 0, "no duplicates removed");
	check_tree(&dso, live, true);
	for (addr = 0; addr < 600 * 16 + 8192; addr += 3) {
		const struct data_symbol *s = symtree_find(&dso, addr);
		bool holds = false;

		for (i = 0; i < dso.nr_syms && !holds; i++) {
			const struct data_symbol *t = &dso.syms[i];

			holds = !t->erased && t->start <= addr &&
				(addr < t->end || (addr == t->start && t->end == t->start));
		}
		if (s)
			CHECK(!s->erased && s->start <= addr &&
			      (addr < s->end || addr == s->start), "%#llx: found [%#llx, %#llx)",
			      (unsigned long long)addr, (unsigned long long)s->start,
			      (unsigned long long)s->end);
		else
			CHECK(!holds, "%#llx: a symbol holds it, none found",
			      (unsigned long long)addr);
	}
	for (i = 0; i < dso.nr_syms; i++)
		free(dso.syms[i].name);
	free(dso.syms);
}

int main(void)
{
	char dir[] = "/tmp/test_perf_data.XXXXXX";
	char native[64], swapped[64], big[64], bad[64];
	char *a, *b;

	if (!mkdtemp(dir))
		return 1;
	snprintf(native, sizeof(native), "%s/native", dir);
	snprintf(swapped, sizeof(swapped), "%s/swapped", dir);
	snprintf(big, sizeof(big), "%s/big", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	write_file(native, false, 0);
	write_file(swapped, true, 0);
	write_file(big, false, 40);
	check_read(native, false);
	check_read(swapped, true);
	check_read(big, false);
	a = report_text(native);
	b = report_text(swapped);
	CHECK(!strcmp(a, b), "swapped report:\n%s\nnative:\n%s", b, a);
	CHECK(strstr(a, "3.00,msec,cpu-clock,4000000,100.00") != NULL, "report: %s", a);
	/* page-faults ran half the time: scaled from 201 to 402 */
	CHECK(strstr(a, "402,,page-faults:u,2000000,50.00") != NULL, "report: %s", a);
	free(a);
	free(b);
	/* the errors of broken files are expected: one line each on stderr */
	check_broken(native, bad);
	check_symbol_tree();
	unlink(native);
	unlink(swapped);
	unlink(big);
	unlink(bad);
	unlink(strcat(native, ".old"));
	rmdir(dir);
	return failures ? 1 : 0;
}
