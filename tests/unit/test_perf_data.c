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

#include "check.h"
#include "data/dso.h"
#include "data/env.h"
#include "data/reader.h"
#include "data/writer.h"
#include "stat/stat_report.h"

static const __u64 ids_a[] = { 11, 12 }, ids_b[] = { 21, 22 };

/* "path: what", the name of a check on one file (valid until the next call) */
static const char *of(const char *path, const char *what)
{
	static char name[160];

	snprintf(name, sizeof(name), "%s: %s", path, what);
	return name;
}

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

	if (!CHECK_OK(of(path, "writer open"), data_writer_open(&w, path, swap)))
		return;
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
	CHECK_OK(of(path, "writer finish"), data_writer_finish(&w, &f));
	data_writer_close(&w);
}

static void check_read(const char *path, bool swapped)
{
	struct perf_data_reader r;
	struct data_record rec;
	struct data_env env;
	__u32 types[16];
	int n = 0, ret;

	if (!CHECK_OK(of(path, "reader open"), data_reader_open(&r, path)))
		return;
	CHECK_EQ(of(path, "swap"), swapped, r.swap);
	CHECK_EQ(of(path, "attrs"), 2, r.nr_attrs);
	CHECK_EQ(of(path, "attr 0 config"), PERF_COUNT_SW_CPU_CLOCK, r.attrs[0].attr.config);
	CHECK_EQ(of(path, "attr 0 disabled"), 1, r.attrs[0].attr.disabled);
	CHECK_EQ(of(path, "attr 0 inherit"), 1, r.attrs[0].attr.inherit);
	CHECK_EQ(of(path, "attr 0 exclude_kernel"), 0, r.attrs[0].attr.exclude_kernel);
	CHECK_EQ(of(path, "attr 1 exclude_kernel"), 1, r.attrs[1].attr.exclude_kernel);
	CHECK_EQ(of(path, "attr 1 disabled"), 0, r.attrs[1].attr.disabled);
	if (CHECK_EQ(of(path, "attr 1 ids"), 2, r.attrs[1].nr_ids))
		CHECK_EQ(of(path, "attr 1 id 1"), 22, r.attrs[1].ids[1]);
	while ((ret = data_reader_next(&r, &rec)) > 0 && n < 16) {
		types[n++] = rec.header.type;
		if (rec.header.type == REC_STAT) {
			const struct rec_stat *st = rec.data;

			if (st->id == 22) {
				CHECK_EQ(of(path, "stat of id 22: cpu"), 1, st->cpu);
				CHECK_EQ(of(path, "stat of id 22: val"), 101, st->val);
				CHECK_EQ(of(path, "stat of id 22: run"), 1000000, st->run);
			}
		}
		if (rec.header.type == REC_EVENT_UPDATE && n == 2) {
			double scale;

			memcpy(&scale, (char *)rec.data + 24, 8);
			CHECK_NEAR(of(path, "scale"), 1e-6, scale, 0);
		}
	}
	CHECK_EQ(of(path, "reader's last return"), 0, ret);
	CHECK_EQ(of(path, "records"), 10, n);
	if (CHECK_MSG(of(path, "record order"), n > 4, "expected more than 4 records, got %d", n)) {
		CHECK_EQ(of(path, "record 2 type"), REC_THREAD_MAP, types[2]);
		CHECK_EQ(of(path, "record 3 type"), REC_CPU_MAP, types[3]);
		CHECK_EQ(of(path, "last record type"), REC_STAT_ROUND, types[n - 1]);
	}
	CHECK_OK(of(path, "features"), data_env_read(&r, &env));
	if (CHECK_EQ(of(path, "cmdline words"), 4, env.nr_cmdline))
		CHECK_STR(of(path, "cmdline word 3"), "-a", env.cmdline[3]);
	if (CHECK_EQ(of(path, "event names"), 2, env.nr_events))
		CHECK_STR(of(path, "event name 1"), "page-faults:u", env.events[1].name);
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
	CHECK_EQ(of(path, "report exit status"), 0, stat_report_file(&ro));
	fclose(ro.out.out);
	return text;
}

static void check_broken(const char *good, const char *bad)
{
	FILE *in = fopen(good, "rb"), *out;
	static char buf[1 << 16];
	struct report_options ro = { .input = bad };
	size_t len = in ? fread(buf, 1, sizeof(buf), in) : 0, cut;
	char name[64];

	if (in)
		fclose(in);
	ro.out.out = fopen("/dev/null", "w");
	/* every truncation and a few single-byte corruptions: errors, never crashes */
	for (cut = 0; cut < len; cut += 37) {
		out = fopen(bad, "wb");
		fwrite(buf, 1, cut, out);
		fclose(out);
		snprintf(name, sizeof(name), "truncated at %zu: report exit status", cut);
		CHECK_EQ(name, 255, stat_report_file(&ro));
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

#define TREE "symbol tree"

/* Checks the subtree at n (index + 1): links, colours; returns its black height, -1 if bad. */
static int tree_black_height(const struct data_dso *dso, __u32 n, __u32 parent)
{
	const struct data_symbol *s;
	int left, right;

	if (!n)
		return 1;
	s = &dso->syms[n - 1];
	CHECK_MSG(TREE, !s->erased && s->parent == parent, "node %u: erased or parent %u, not %u",
		  n, s->parent, parent);
	if (!s->black)
		CHECK_MSG(TREE, (!s->left || dso->syms[s->left - 1].black) &&
			  (!s->right || dso->syms[s->right - 1].black),
			  "red node %u has a red child", n);
	left = tree_black_height(dso, s->left, n);
	right = tree_black_height(dso, s->right, n);
	CHECK_MSG(TREE, left == right && left > 0, "node %u: black heights %d and %d", n, left,
		  right);
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

	CHECK_MSG(TREE, !dso->root || dso->syms[dso->root - 1].black, "red root");
	tree_black_height(dso, dso->root, 0);
	n = tree_in_order(dso, dso->root, starts, 0);
	CHECK_MSG(TREE, n == live, "%zu symbols in the tree, %zu expected", n, live);
	for (i = 1; i < n; i++)
		CHECK_MSG(TREE, unique ? starts[i - 1] < starts[i] : starts[i - 1] <= starts[i],
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
	CHECK_MSG(TREE, erased > 0, "no duplicates removed");
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
			CHECK_MSG(TREE, !s->erased && s->start <= addr &&
				  (addr < s->end || addr == s->start),
				  "%#llx: found [%#llx, %#llx)", (unsigned long long)addr,
				  (unsigned long long)s->start, (unsigned long long)s->end);
		else
			CHECK_MSG(TREE, !holds, "%#llx: a symbol holds it, none found",
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
	CHECK_STR("report of the swapped file", a, b);
	CHECK_MSG("report: cpu-clock", strstr(a, "3.00,msec,cpu-clock,4000000,100.00"),
		  "expected '3.00,msec,cpu-clock,4000000,100.00...', got\n%s", a);
	/* page-faults ran half the time: scaled from 201 to 402 */
	CHECK_MSG("report: page-faults:u", strstr(a, "402,,page-faults:u,2000000,50.00"),
		  "expected '402,,page-faults:u,2000000,50.00...', got\n%s", a);
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
	return check_exit("test_perf_data");
}
