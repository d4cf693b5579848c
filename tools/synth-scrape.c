// SPDX-License-Identifier: GPL-2.0-only
/*
 * The daemon's /metrics body for a machine we do not have: a synthetic snapshot of CPUS CPUs,
 * CGROUPS cgroups (and CPU_CGROUPS of them with CPU x cgroup series) and 5 events (cycles and
 * instructions multiplexed, cpu-clock, context-switches, page-faults), formatted as the daemon
 * formats it, then gzipped as the daemon sends it. Prints one line: the series, the bytes plain
 * and gzipped, and the best build and gzip times of REPS. For bench/exposition.
 *
 *	synth-scrape CPUS CGROUPS [CPU_CGROUPS [REPS [openmetrics]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "daemon/exposition.h"
#include "daemon/http_gzip.h"

static const struct snap_event events[] = {
	{ "cycles", false, true }, { "instructions", false, true },
	{ "cpu-clock", true, false }, { "context-switches", false, false },
	{ "page-faults", false, false },
};
#define NR_EVENTS 5

/* Values of realistic widths: counts of 10 to 12 digits, times of seconds with 9 decimals. */
static struct snap_value *values(size_t n)
{
	struct snap_value *v = xzalloc((n + 1) * sizeof(*v));

	for (size_t i = 0; i < n; i++)
		v[i] = (struct snap_value){ 123456789012ULL + i * 7919ULL, 98765432101ULL + i * 13,
					    97765432101ULL + i * 11 };
	return v;
}

static struct snapshot *make_snapshot(int nr_cpus, int nr_cgroups, int nr_cpu_cgroups)
{
	struct snapshot *s = xzalloc(sizeof(*s));
	struct snap_cgroup *cgs = xzalloc((nr_cgroups + 1) * sizeof(*cgs));
	int *cpus = xzalloc(nr_cpus * sizeof(*cpus)), *cpu_cgs;

	cpu_cgs = xzalloc((nr_cpu_cgroups + 1) * sizeof(*cpu_cgs));
	cgs[0].path = xstrdup("/");
	for (int i = 1; i <= nr_cgroups; i++)
		cgs[i].path = xasprintf("/kubepods.slice/pod%05d.slice/cri-containerd-%08x.scope",
					i / 3, i * 2654435761u);
	for (int i = 0; i <= nr_cgroups; i++)
		cgs[i].created = 1795680000.5 + i;
	for (int i = 0; i < nr_cpus; i++)
		cpus[i] = i;
	for (int i = 0; i < nr_cpu_cgroups; i++)
		cpu_cgs[i] = 1 + i;
	*s = (struct snapshot){
		.nr_events = NR_EVENTS, .nr_cgroups = nr_cgroups + 1, .nr_cpus = nr_cpus,
		.nr_cpu_cgroups = nr_cpu_cgroups, .start = 1795680000.5, .events = events,
		.cgroups = cgs, .cpus = cpus, .cpu_cgroups = cpu_cgs,
		.machine = values((size_t)NR_EVENTS * nr_cpus),
		.own = values((size_t)NR_EVENTS * (nr_cgroups + 1)),
		.own_cpu = values((size_t)NR_EVENTS * nr_cpu_cgroups * nr_cpus),
	};
	return s;
}

int main(int argc, char **argv)
{
	int nr_cpus, nr_cgroups, nr_cpu_cgroups, reps;
	double build = 1e18, zip = 1e18;
	struct byte_buf body = {}, gz = {};
	bool om;

	if (argc < 3) {
		fprintf(stderr,
			"usage: synth-scrape CPUS CGROUPS [CPU_CGROUPS [REPS [openmetrics]]]\n");
		return 129;
	}
	nr_cpus = atoi(argv[1]);
	nr_cgroups = atoi(argv[2]);
	nr_cpu_cgroups = argc > 3 ? atoi(argv[3]) : 0;
	reps = argc > 4 ? atoi(argv[4]) : 5;
	om = argc > 5 && !strcmp(argv[5], "openmetrics");
	if (nr_cpus < 1 || nr_cgroups < 0 || nr_cpu_cgroups < 0 || nr_cpu_cgroups > nr_cgroups ||
	    reps < 1) {
		fprintf(stderr, "synth-scrape: bad sizes\n");
		return 129;
	}
	struct snapshot *s = make_snapshot(nr_cpus, nr_cgroups, nr_cpu_cgroups);

	for (int rep = 0; rep < reps; rep++) {
		unsigned long long t0 = now_ns(), t1;

		body.len = gz.len = 0;
		exposition_write(&body, s, om);
		t1 = now_ns();
		gzip_compress(&body, &gz);
		build = (t1 - t0) / 1e6 < build ? (t1 - t0) / 1e6 : build;
		zip = (now_ns() - t1) / 1e6 < zip ? (now_ns() - t1) / 1e6 : zip;
	}
	printf("%d %d %d %s %zu %zu %zu %.1f %.1f\n", nr_cpus, nr_cgroups, nr_cpu_cgroups,
	       om ? "openmetrics" : "text", snap_nr_series(s), body.len, gz.len, build, zip);
	return 0;
}
