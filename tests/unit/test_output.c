// SPDX-License-Identifier: GPL-2.0-only
/*
 * Printers and metrics against perf 6.1's own output on the reference
 * machine: the gold_* texts were printed by /usr/bin/perf (live runs with
 * -v for the raw values, or `perf stat report` of one recording in every
 * format); the fixtures below hold the same numbers. Hardware metrics,
 * which the machine cannot show, are checked against texts built from
 * perf's format rules.
 */
#include <linux/perf_event.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "output/output.h"
#include "util/common.h"
#include "metrics/metrics.h"

#define MAX_EV 12
#define MAX_AGGR 4

struct fixture {
	struct evsel evsels[MAX_EV];
	bool supported[MAX_EV];
	struct evlist evlist;
	struct aggr_id aggr[MAX_AGGR];
	struct counter_value values[MAX_EV * MAX_AGGR];
	struct stat_result res;
	struct run_summary sum;
};

static void fx_init(struct fixture *f, enum aggr_mode mode, int nr_aggr)
{
	memset(f, 0, sizeof(*f));
	f->evlist.entries = f->evsels;
	f->res.evlist = &f->evlist;
	f->res.supported = f->supported;
	f->res.aggr_mode = mode;
	f->res.nr_aggr = nr_aggr;
	f->res.aggr = f->aggr;
	f->res.values = f->values;
	f->res.run_count = 1;
	f->sum.run_count = 1;
}

static int fx_event(struct fixture *f, const char *name, __u32 type, __u64 config)
{
	int idx = f->evlist.nr++;
	struct evsel *e = &f->evsels[idx];

	e->attr.type = type;
	e->attr.config = config;
	e->name = (char *)name;
	e->unit = "";
	e->scale = 1.0;
	e->idx = idx;
	e->leader_idx = idx;
	e->is_clock = type == PERF_TYPE_SOFTWARE && (config == PERF_COUNT_SW_TASK_CLOCK ||
						     config == PERF_COUNT_SW_CPU_CLOCK);
	if (e->is_clock) {
		e->unit = "msec";
		e->scale = 1e-6;
	}
	f->supported[idx] = true;
	return idx;
}

static int fx_sw(struct fixture *f, const char *name, __u64 config)
{
	return fx_event(f, name, PERF_TYPE_SOFTWARE, config);
}

static int fx_hw(struct fixture *f, const char *name, __u64 config)
{
	return fx_event(f, name, PERF_TYPE_HARDWARE, config);
}

static int fx_duration(struct fixture *f)
{
	int idx = fx_sw(f, "duration_time", PERF_COUNT_SW_DUMMY);

	f->evsels[idx].unit = "ns";
	f->evsels[idx].tool = TOOL_DURATION_TIME;
	return idx;
}

static int fx_unsupported(struct fixture *f, const char *name, __u64 config)
{
	int idx = fx_hw(f, name, config);

	f->supported[idx] = false;
	return idx;
}

static struct counter_value *fx_val(struct fixture *f, int ev, int aggr)
{
	return &f->values[ev * f->res.nr_aggr + aggr];
}

/* a counted value, not multiplexed */
static void fx_set(struct fixture *f, int ev, int aggr, double count, __u64 run, int nr_cpus)
{
	struct counter_value *v = fx_val(f, ev, aggr);

	v->count = count;
	v->ena = run;
	v->run = run;
	v->nr_cpus = nr_cpus;
}

static struct output_config cfg_of(enum output_format format)
{
	struct output_config cfg = {
		.format = format,
		.csv_sep = format == OUTPUT_CSV ? "," : " ",
		.big_num = format == OUTPUT_STD,
	};
	return cfg;
}

enum what { ALL, LINES, INTERVAL };

static char *render(struct output_config cfg, const struct fixture *f, enum what what,
		    unsigned int nr_printed)
{
	char *buf = NULL;
	size_t size = 0;

	cfg.out = open_memstream(&buf, &size);
	if (!cfg.out) {
		perror("open_memstream");
		exit(1);
	}
	if (what == ALL)
		print_counters(&cfg, &f->res, &f->sum);
	else if (what == LINES)
		print_counter_lines(&cfg, &f->res);
	else
		print_interval(&cfg, &f->res, nr_printed);
	fclose(cfg.out);
	return buf;
}

static void expect_render(const char *name, enum output_format format, const struct fixture *f,
			  enum what what, const char *expected)
{
	char *got = render(cfg_of(format), f, what, 0);

	CHECK_STR(name, expected, got);
	free(got);
}

/* The three formats of one fixture against perf's three outputs. */
static void expect_all_formats(const char *name, const struct fixture *f, const char *std,
			       const char *csv, const char *json)
{
	char label[128];

	snprintf(label, sizeof(label), "%s std", name);
	expect_render(label, OUTPUT_STD, f, ALL, std);
	snprintf(label, sizeof(label), "%s csv", name);
	expect_render(label, OUTPUT_CSV, f, ALL, csv);
	snprintf(label, sizeof(label), "%s json", name);
	expect_render(label, OUTPUT_JSON, f, ALL, json);
}

static const char gold_std_default[] =
	"\n"
	" Performance counter stats for 'true':\n"
	"\n"
	"              0.68 msec task-clock                       #    0.426 CPUs utilized       "
	"   \n"
	"                 0      context-switches                 #    0.000 /sec                "
	"   \n"
	"                 0      cpu-migrations                   #    0.000 /sec                "
	"   \n"
	"                50      page-faults                      #   73.446 K/sec               "
	"   \n"
	"   <not supported>      cycles                                                      \n"
	"   <not supported>      instructions                                                \n"
	"   <not supported>      branches                                                    \n"
	"   <not supported>      branch-misses                                               \n"
	"\n"
	"       0.001598021 seconds time elapsed\n"
	"\n"
	"       0.001645000 seconds user\n"
	"       0.000000000 seconds sys\n"
	"\n"
	"\n";

static const char gold_csv_global[] =
	"0.61,msec,task-clock,611717,100.00,0.512,CPUs utilized\n"
	"49,,faults,611717,100.00,80.102,K/sec\n"
	"1195747,ns,duration_time,1195747,100.00,1.955,G/sec\n"
	"<not supported>,,cycles,0,100.00,,\n";

static const char gold_json_global[] =
	"{\"counter-value\" : \"0.611393\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
	"\"event-runtime\" : 611393, \"pcnt-running\" : 100.00, \"metric-value\" : 0.216526, "
	"\"metric-unit\" : \"CPUs utilized\"}\n"
	"{\"counter-value\" : \"50.000000\", \"unit\" : \"\", \"event\" : \"faults\", "
	"\"event-runtime\" : 611393, \"pcnt-running\" : 100.00, \"metric-value\" : 81.780459, "
	"\"metric-unit\" : \"K/sec\"}\n"
	"{\"counter-value\" : \"2823641.000000\", \"unit\" : \"ns\", \"event\" : "
	"\"duration_time\", \"event-runtime\" : 2823641, \"pcnt-running\" : 100.00, "
	"\"metric-value\" : 4.618373, \"metric-unit\" : \"G/sec\"}\n"
	"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", "
	"\"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, "
	"\"metric-unit\" : \"\"}\n";

static const char gold_std_A[] =
	"\n"
	" Performance counter stats for '/usr/bin/perf stat record -o A.data -a -A -e "
	"cpu-clock,faults,duration_time sleep 0.1':\n"
	"\n"
	"CPU0                   101.70 msec cpu-clock                        #    1.000 CPUs "
	"utilized          \n"
	"CPU1                   101.70 msec cpu-clock                        #    1.000 CPUs "
	"utilized          \n"
	"CPU0                       82      faults                           #  806.325 /sec     "
	"              \n"
	"CPU1                     2339      faults                           #   22.999 K/sec    "
	"              \n"
	"CPU0                101688166 ns   duration_time                    #  999.924 M/sec    "
	"              \n"
	"\n"
	"       0.101688166 seconds time elapsed\n"
	"\n";

static const char gold_csv_A[] =
	"CPU0,101.70,msec,cpu-clock,101700997,100.00,1.000,CPUs utilized\n"
	"CPU1,101.70,msec,cpu-clock,101703859,100.00,1.000,CPUs utilized\n"
	"CPU0,82,,faults,101697288,100.00,806.325,/sec\n"
	"CPU1,2339,,faults,101700275,100.00,22.999,K/sec\n"
	"CPU0,101688166,ns,duration_time,101688166,100.00,999.924,M/sec\n";

static const char gold_json_A[] =
	"{\"cpu\" : \"0\", \"counter-value\" : \"101.695912\", \"unit\" : \"msec\", \"event\" : "
	"\"cpu-clock\", \"event-runtime\" : 101700997, \"pcnt-running\" : 100.00, "
	"\"metric-value\" : 1.000076, \"metric-unit\" : \"CPUs utilized\"}\n"
	"{\"cpu\" : \"1\", \"counter-value\" : \"101.699330\", \"unit\" : \"msec\", \"event\" : "
	"\"cpu-clock\", \"event-runtime\" : 101703859, \"pcnt-running\" : 100.00, "
	"\"metric-value\" : 1.000110, \"metric-unit\" : \"CPUs utilized\"}\n"
	"{\"cpu\" : \"0\", \"counter-value\" : \"82.000000\", \"unit\" : \"\", \"event\" : "
	"\"faults\", \"event-runtime\" : 101697288, \"pcnt-running\" : 100.00, \"metric-value\" "
	": 806.325430, \"metric-unit\" : \"/sec\"}\n"
	"{\"cpu\" : \"1\", \"counter-value\" : \"2339.000000\", \"unit\" : \"\", \"event\" : "
	"\"faults\", \"event-runtime\" : 101700275, \"pcnt-running\" : 100.00, \"metric-value\" "
	": 22.999168, \"metric-unit\" : \"K/sec\"}\n"
	"{\"cpu\" : \"0\", \"counter-value\" : \"101688166.000000\", \"unit\" : \"ns\", "
	"\"event\" : \"duration_time\", \"event-runtime\" : 101688166, \"pcnt-running\" : "
	"100.00, \"metric-value\" : 999.923832, \"metric-unit\" : \"M/sec\"}\n";

static const char gold_std_per_core[] =
	"\n"
	" Performance counter stats for '/usr/bin/perf stat record -o A.data -a -A -e "
	"cpu-clock,faults,duration_time sleep 0.1':\n"
	"\n"
	"S0-D0-C0           1             101.70 msec cpu-clock                        #    "
	"1.000 CPUs utilized          \n"
	"S0-D0-C0           1                 82      faults                           #  "
	"806.325 /sec                   \n"
	"S0-D0-C0           1          101688166 ns   duration_time                    #  "
	"999.924 M/sec                  \n"
	"S0-D0-C1           1             101.70 msec cpu-clock                        #    "
	"1.000 CPUs utilized          \n"
	"S0-D0-C1           1               2339      faults                           #   "
	"22.999 K/sec                  \n"
	"S0-D0-C1           0      <not counted> ns   duration_time                              "
	"                 \n"
	"\n"
	"       0.101688166 seconds time elapsed\n"
	"\n";

static const char gold_csv_per_core[] =
	"S0-D0-C0,1,101.70,msec,cpu-clock,101700997,100.00,1.000,CPUs utilized\n"
	"S0-D0-C0,1,82,,faults,101697288,100.00,806.325,/sec\n"
	"S0-D0-C0,1,101688166,ns,duration_time,101688166,100.00,999.924,M/sec\n"
	"S0-D0-C1,1,101.70,msec,cpu-clock,101703859,100.00,1.000,CPUs utilized\n"
	"S0-D0-C1,1,2339,,faults,101700275,100.00,22.999,K/sec\n"
	"S0-D0-C1,0,<not counted>,ns,duration_time,0,100.00,,\n";

static const char gold_json_per_core[] =
	"{\"core\" : \"S0-D0-C0\", \"aggregate-number\" : 1, \"counter-value\" : \"101.695912\", "
	"\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 101700997, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 1.000076, \"metric-unit\" : \"CPUs "
	"utilized\"}\n"
	"{\"core\" : \"S0-D0-C0\", \"aggregate-number\" : 1, \"counter-value\" : \"82.000000\", "
	"\"unit\" : \"\", \"event\" : \"faults\", \"event-runtime\" : 101697288, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 806.325430, \"metric-unit\" : \"/sec\"}\n"
	"{\"core\" : \"S0-D0-C0\", \"aggregate-number\" : 1, \"counter-value\" : "
	"\"101688166.000000\", \"unit\" : \"ns\", \"event\" : \"duration_time\", "
	"\"event-runtime\" : 101688166, \"pcnt-running\" : 100.00, \"metric-value\" : "
	"999.923832, \"metric-unit\" : \"M/sec\"}\n"
	"{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 1, \"counter-value\" : \"101.699330\", "
	"\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 101703859, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 1.000110, \"metric-unit\" : \"CPUs "
	"utilized\"}\n"
	"{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 1, \"counter-value\" : "
	"\"2339.000000\", \"unit\" : \"\", \"event\" : \"faults\", \"event-runtime\" : "
	"101700275, \"pcnt-running\" : 100.00, \"metric-value\" : 22.999168, \"metric-unit\" : "
	"\"K/sec\"}\n"
	"{\"core\" : \"S0-D0-C1\", \"aggregate-number\" : 0, \"counter-value\" : \"<not "
	"counted>\", \"unit\" : \"ns\", \"event\" : \"duration_time\", \"event-runtime\" : 0, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n";

static const char gold_std_per_socket[] =
	"\n"
	" Performance counter stats for '/usr/bin/perf stat record -o A.data -a -A -e "
	"cpu-clock,faults,duration_time sleep 0.1':\n"
	"\n"
	"S0        2             203.40 msec cpu-clock                        #    2.000 CPUs "
	"utilized          \n"
	"S0        2               2421      faults                           #   11.903 K/sec   "
	"               \n"
	"S0        1          101688166 ns   duration_time                    #  499.954 M/sec   "
	"               \n"
	"\n"
	"       0.101688166 seconds time elapsed\n"
	"\n";

static const char gold_csv_per_socket[] =
	"S0,2,203.40,msec,cpu-clock,203404856,100.00,2.000,CPUs utilized\n"
	"S0,2,2421,,faults,203397563,100.00,11.903,K/sec\n"
	"S0,1,101688166,ns,duration_time,101688166,100.00,499.954,M/sec\n";

static const char gold_json_per_socket[] =
	"{\"socket\" : \"S0\", \"aggregate-number\" : 2, \"counter-value\" : \"203.395242\", "
	"\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 203404856, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 2.000186, \"metric-unit\" : \"CPUs "
	"utilized\"}\n"
	"{\"socket\" : \"S0\", \"aggregate-number\" : 2, \"counter-value\" : \"2421.000000\", "
	"\"unit\" : \"\", \"event\" : \"faults\", \"event-runtime\" : 203397563, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 11.902933, \"metric-unit\" : \"K/sec\"}\n"
	"{\"socket\" : \"S0\", \"aggregate-number\" : 1, \"counter-value\" : "
	"\"101688166.000000\", \"unit\" : \"ns\", \"event\" : \"duration_time\", "
	"\"event-runtime\" : 101688166, \"pcnt-running\" : 100.00, \"metric-value\" : "
	"499.953514, \"metric-unit\" : \"M/sec\"}\n";

static const char gold_std_per_die[] =
	"\n"
	" Performance counter stats for '/usr/bin/perf stat record -o A.data -a -A -e "
	"cpu-clock,faults,duration_time sleep 0.1':\n"
	"\n"
	"S0-D0           2             203.40 msec cpu-clock                        #    2.000 "
	"CPUs utilized          \n"
	"S0-D0           2               2421      faults                           #   11.903 "
	"K/sec                  \n"
	"S0-D0           1          101688166 ns   duration_time                    #  499.954 "
	"M/sec                  \n"
	"\n"
	"       0.101688166 seconds time elapsed\n"
	"\n";

static const char gold_csv_per_die[] =
	"S0-D0,2,203.40,msec,cpu-clock,203404856,100.00,2.000,CPUs utilized\n"
	"S0-D0,2,2421,,faults,203397563,100.00,11.903,K/sec\n"
	"S0-D0,1,101688166,ns,duration_time,101688166,100.00,499.954,M/sec\n";

static const char gold_json_per_die[] =
	"{\"die\" : \"S0-D0\", \"aggregate-number\" : 2, \"counter-value\" : \"203.395242\", "
	"\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 203404856, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 2.000186, \"metric-unit\" : \"CPUs "
	"utilized\"}\n"
	"{\"die\" : \"S0-D0\", \"aggregate-number\" : 2, \"counter-value\" : \"2421.000000\", "
	"\"unit\" : \"\", \"event\" : \"faults\", \"event-runtime\" : 203397563, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 11.902933, \"metric-unit\" : \"K/sec\"}\n"
	"{\"die\" : \"S0-D0\", \"aggregate-number\" : 1, \"counter-value\" : "
	"\"101688166.000000\", \"unit\" : \"ns\", \"event\" : \"duration_time\", "
	"\"event-runtime\" : 101688166, \"pcnt-running\" : 100.00, \"metric-value\" : "
	"499.953514, \"metric-unit\" : \"M/sec\"}\n";

static const char gold_std_per_node[] =
	"\n"
	" Performance counter stats for '/usr/bin/perf stat record -o A.data -a -A -e "
	"cpu-clock,faults,duration_time sleep 0.1':\n"
	"\n"
	"N0        2             203.40 msec cpu-clock                        #    2.000 CPUs "
	"utilized          \n"
	"N0        2               2421      faults                           #   11.903 K/sec   "
	"               \n"
	"N0        1          101688166 ns   duration_time                    #  499.954 M/sec   "
	"               \n"
	"\n"
	"       0.101688166 seconds time elapsed\n"
	"\n";

static const char gold_csv_per_node[] =
	"N0,2,203.40,msec,cpu-clock,203404856,100.00,2.000,CPUs utilized\n"
	"N0,2,2421,,faults,203397563,100.00,11.903,K/sec\n"
	"N0,1,101688166,ns,duration_time,101688166,100.00,499.954,M/sec\n";

static const char gold_json_per_node[] =
	"{\"node\" : \"N0\", \"aggregate-number\" : 2, \"counter-value\" : \"203.395242\", "
	"\"unit\" : \"msec\", \"event\" : \"cpu-clock\", \"event-runtime\" : 203404856, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 2.000186, \"metric-unit\" : \"CPUs "
	"utilized\"}\n"
	"{\"node\" : \"N0\", \"aggregate-number\" : 2, \"counter-value\" : \"2421.000000\", "
	"\"unit\" : \"\", \"event\" : \"faults\", \"event-runtime\" : 203397563, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 11.902933, \"metric-unit\" : \"K/sec\"}\n"
	"{\"node\" : \"N0\", \"aggregate-number\" : 1, \"counter-value\" : \"101688166.000000\", "
	"\"unit\" : \"ns\", \"event\" : \"duration_time\", \"event-runtime\" : 101688166, "
	"\"pcnt-running\" : 100.00, \"metric-value\" : 499.953514, \"metric-unit\" : \"M/sec\"}\n";

static const char gold_std_thread[] =
	"\n"
	" Performance counter stats for process id '4154':\n"
	"\n"
	"             thr-4157                  44.86 msec task-clock                       #    "
	"0.149 CPUs utilized          \n"
	"             thr-4156                  28.94 msec task-clock                       #    "
	"0.096 CPUs utilized          \n"
	"             thr-4154          <not counted> msec task-clock                            "
	"                      \n"
	"             thr-4154          <not counted>      faults                                "
	"                      \n"
	"             thr-4156                      0      faults                           #    "
	"0.000 /sec                   \n"
	"             thr-4157                      0      faults                           #    "
	"0.000 /sec                   \n"
	"             thr-4156                      5      cs                               #  "
	"172.751 /sec                   \n"
	"             thr-4157                      5      cs                               #  "
	"111.453 /sec                   \n"
	"             thr-4154          <not counted>      cs                                    "
	"                      \n"
	"\n"
	"       0.300626877 seconds time elapsed\n"
	"\n";

static const char gold_iv_std[] =
	"#           time             counts unit events\n"
	"     0.100209020               0.93 msec task-clock                       #    0.009 "
	"CPUs utilized          \n"
	"     0.100209020                 77      faults                           #   82.820 "
	"K/sec                  \n";

static const char gold_iv_std2[] =
	"     0.200550703      <not counted> msec task-clock                                     "
	"             \n"
	"     0.200550703      <not counted>      faults                                         "
	"             \n";

static const char gold_iv_csv[] =
	"     0.100193408,1.69,msec,task-clock,1686981,100.00,0.017,CPUs utilized\n"
	"     0.100193408,77,,faults,1686981,100.00,45.644,K/sec\n";

static const char gold_iv_json[] =
	"{\"interval\" : 0.100224983, \"counter-value\" : \"0.886662\", \"unit\" : \"msec\", "
	"\"event\" : \"task-clock\", \"event-runtime\" : 886662, \"pcnt-running\" : 100.00, "
	"\"metric-value\" : 0.008867, \"metric-unit\" : \"CPUs utilized\"}\n"
	"{\"interval\" : 0.100224983, \"counter-value\" : \"76.000000\", \"unit\" : \"\", "
	"\"event\" : \"faults\", \"event-runtime\" : 886662, \"pcnt-running\" : 100.00, "
	"\"metric-value\" : 85.714737, \"metric-unit\" : \"K/sec\"}\n";

static const char gold_sum_csv[] =
	"         summary,2.51,msec,task-clock,2507853,100.00,0.016,CPUs utilized\n"
	"         summary,76,,faults,2507853,100.00,30.305,K/sec\n";

static const char gold_r_std[] =
	"\n"
	" Performance counter stats for '/tmp/w.sh' (3 runs):\n"
	"\n"
	"             27.66 msec task-clock                       #    1.151 CPUs utilized       "
	"     ( +- 20.76% )\n"
	"               398      page-faults                      #   15.244 K/sec               "
	"     ( +-  0.42% )\n"
	"\n"
	"           0.02404 +- 0.00641 seconds time elapsed  ( +- 26.68% )\n"
	"\n";

static const char gold_bignum_std[] =
	"          1,004.55 msec cpu-clock                        #    2.003 CPUs utilized       "
	"   \n"
	"                74      faults                           #   73.665 /sec                "
	"   \n"
	"       501,421,134 ns   duration_time                    #  499.151 M/sec               "
	"   \n";

static const char gold_de_std[] =
	"\n"
	" Performance counter stats for 'true' (2 runs):\n"
	"\n"
	"              0,56 msec task-clock                       #    0,453 CPUs utilized       "
	"     ( +-  9,74% )\n"
	"                49      faults                           #   79,748 K/sec               "
	"     ( +-  1,02% )\n"
	"\n"
	"          0,001236 +- 0,000161 seconds time elapsed  ( +- 13,07% )\n"
	"\n";

static const char gold_smi_std[] =
	"                 0      msr/smi/                        \n"
	"            998586      msr/tsc/                                                        "
	"   \n";

static const char gold_smi_csv[] =
	"0,,msr/smi/,603079,100.00\n";

static const char gold_smi_json[] =
	"{\"counter-value\" : \"0.000000\", \"unit\" : \"\", \"event\" : \"msr/smi/\", "
	"\"event-runtime\" : 527673, \"pcnt-running\" : 100.00, \n";

static const char gold_std_hw[] =
	"           1000.00 msec task-clock                       #    2.000 CPUs utilized       "
	"   \n"
	"        3000000000      cycles                           #    3.000 GHz                 "
	"   \n"
	"        6000000000      instructions                     #    2.00  insn per cycle      "
	"   \n"
	"                                                  #    0.25  stalled cycles per insn\n"
	"        1500000000      stalled-cycles-frontend          #   50.00% frontend cycles "
	"idle   \n"
	"         300000000      stalled-cycles-backend           #   10.00% backend cycles idle "
	"   \n"
	"        1000000000      branches                         # 1000.000 M/sec               "
	"   \n"
	"          10000000      branch-misses                    #    1.00% of all branches     "
	"   \n"
	"         100000000      cache-references                 #  100.000 M/sec               "
	"   \n"
	"           1000000      cache-misses                     #    1.000 % of all cache refs "
	"   \n"
	"        2000000000      L1-dcache-loads                  #    2.000 G/sec               "
	"   \n"
	"          50000000      L1-dcache-load-misses            #    2.50% of all L1-dcache "
	"accesses\n"
	"           1000000      dTLB-load-misses                                                "
	"   \n";

static const char gold_std_hw_A[] =
	"CPU0               4000000000      cycles                           #    2.000 GHz      "
	"              \n"
	"CPU0               8000000000      instructions                     #    2.00  insn per "
	"cycle         \n"
	"CPU0                                                                 #    0.50  stalled "
	"cycles per insn\n"
	"CPU0               4000000000      stalled-cycles-frontend          #  100.00% frontend "
	"cycles idle   \n"
	"CPU0               2000000000      instructions:u                                       "
	"              \n"
	"CPU0                  2000.00 msec task-clock                       #    2.000 CPUs "
	"utilized          \n";

static const char gold_std_mux[] =
	"              1000      faults                                                          "
	"     (66.67%)\n"
	"     <not counted>      page-faults                                                   "
	"(0.00%)\n";

static void test_default_events_std(void)
{
	struct fixture f;
	int tc, cs, mig, pf;

	fx_init(&f, AGGR_GLOBAL, 1);
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	cs = fx_sw(&f, "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES);
	mig = fx_sw(&f, "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS);
	pf = fx_sw(&f, "page-faults", PERF_COUNT_SW_PAGE_FAULTS);
	fx_unsupported(&f, "cycles", PERF_COUNT_HW_CPU_CYCLES);
	fx_unsupported(&f, "instructions", PERF_COUNT_HW_INSTRUCTIONS);
	fx_unsupported(&f, "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	fx_unsupported(&f, "branch-misses", PERF_COUNT_HW_BRANCH_MISSES);
	fx_set(&f, tc, 0, 680770, 680770, 1);
	fx_set(&f, cs, 0, 0, 680770, 1);
	fx_set(&f, mig, 0, 0, 680770, 1);
	fx_set(&f, pf, 0, 50, 680770, 1);
	f.res.wall_ns = 1598021;
	f.sum.target_desc = "'true'";
	f.sum.elapsed_s = 0.001598021;
	f.sum.user_s = 0.001645;
	f.sum.show_rusage = true;
	expect_render("default events std", OUTPUT_STD, &f, ALL, gold_std_default);
}

static void test_global_csv_json(void)
{
	struct fixture f;
	int tc, faults, dur;

	fx_init(&f, AGGR_GLOBAL, 1);
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	dur = fx_duration(&f);
	fx_unsupported(&f, "cycles", PERF_COUNT_HW_CPU_CYCLES);
	fx_set(&f, tc, 0, 611717, 611717, 1);
	fx_set(&f, faults, 0, 49, 611717, 1);
	fx_set(&f, dur, 0, 1195747, 1195747, 1);
	f.res.wall_ns = 1195747;
	expect_render("global csv", OUTPUT_CSV, &f, ALL, gold_csv_global);

	fx_set(&f, tc, 0, 611393, 611393, 1);
	fx_set(&f, faults, 0, 50, 611393, 1);
	fx_set(&f, dur, 0, 2823641, 2823641, 1);
	f.res.wall_ns = 2823641;
	expect_render("global json", OUTPUT_JSON, &f, ALL, gold_json_global);
}

/* One `perf stat record -a -A -e cpu-clock,faults,duration_time sleep 0.1`, reported per mode. */
static void fixture_report(struct fixture *f, enum aggr_mode mode)
{
	bool per_cpu = mode == AGGR_NONE || mode == AGGR_CORE;
	int clk, faults, dur;

	fx_init(f, mode, per_cpu ? 2 : 1);
	f->aggr[1].cpu = 1;
	f->aggr[1].core = 1;
	clk = fx_sw(f, "cpu-clock", PERF_COUNT_SW_CPU_CLOCK);
	faults = fx_sw(f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	dur = fx_duration(f);
	if (per_cpu) {
		fx_set(f, clk, 0, 101695912, 101700997, 1);
		fx_set(f, clk, 1, 101699330, 101703859, 1);
		fx_set(f, faults, 0, 82, 101697288, 1);
		fx_set(f, faults, 1, 2339, 101700275, 1);
		fx_set(f, dur, 0, 101688166, 101688166, 1);
		/* duration_time only exists on the first CPU */
		if (mode == AGGR_NONE)
			fx_val(f, dur, 1)->absent = true;
	} else {
		fx_set(f, clk, 0, 203395242, 203404856, 2);
		fx_set(f, faults, 0, 2421, 203397563, 2);
		fx_set(f, dur, 0, 101688166, 101688166, 1);
	}
	f->res.wall_ns = 101688166;
	f->sum.target_desc = "'/usr/bin/perf stat record -o A.data -a -A -e "
			     "cpu-clock,faults,duration_time sleep 0.1'";
	f->sum.elapsed_s = 0.101688166;
}

static void test_aggregation_modes(void)
{
	struct fixture f;

	fixture_report(&f, AGGR_NONE);
	expect_all_formats("-A", &f, gold_std_A, gold_csv_A, gold_json_A);
	fixture_report(&f, AGGR_CORE);
	expect_all_formats("--per-core", &f, gold_std_per_core, gold_csv_per_core,
			   gold_json_per_core);
	fixture_report(&f, AGGR_SOCKET);
	expect_all_formats("--per-socket", &f, gold_std_per_socket, gold_csv_per_socket,
			   gold_json_per_socket);
	fixture_report(&f, AGGR_DIE);
	expect_all_formats("--per-die", &f, gold_std_per_die, gold_csv_per_die,
			   gold_json_per_die);
	fixture_report(&f, AGGR_NODE);
	expect_all_formats("--per-node", &f, gold_std_per_node, gold_csv_per_node,
			   gold_json_per_node);
}

static void set_thread(struct fixture *f, int aggr, const char *comm, pid_t tid)
{
	snprintf(f->aggr[aggr].comm, sizeof(f->aggr[aggr].comm), "%s", comm);
	f->aggr[aggr].tid = tid;
}

static void test_per_thread(void)
{
	static const char csv[] =
		"thr-4157,53.00,msec,task-clock,52999212,100.00,0.176,CPUs utilized\n"
		"thr-4156,35.60,msec,task-clock,35600660,100.00,0.118,CPUs utilized\n"
		"thr-4154,<not counted>,msec,task-clock,0,100.00,,\n"
		"thr-4154,<not counted>,,faults,0,100.00,,\n"
		"thr-4156,0,,faults,35586374,100.00,0.000,/sec\n"
		"thr-4157,0,,faults,52999212,100.00,0.000,/sec\n";
	static const char system_wide[] =
		"             thr-4157                  53.65 msec task-clock                 "
		"      #    0.178 CPUs utilized          \n"
		"kworker/u8:0-kvfree_rcu_reclaim-12                     0.06 msec task-clock  "
		"                     #    0.000 CPUs utilized          \n";
	struct fixture f;
	int tc, faults, cs;

	/* -p: threads sorted by count per event, ties in thread order, idle ones kept */
	fx_init(&f, AGGR_THREAD, 3);
	set_thread(&f, 0, "thr", 4154);
	set_thread(&f, 1, "thr", 4156);
	set_thread(&f, 2, "thr", 4157);
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	cs = fx_sw(&f, "cs", PERF_COUNT_SW_CONTEXT_SWITCHES);
	fx_set(&f, tc, 1, 28943393, 28943393, 0);
	fx_set(&f, tc, 2, 44862005, 44862005, 0);
	fx_set(&f, faults, 1, 0, 28943393, 0);
	fx_set(&f, faults, 2, 0, 44862005, 0);
	fx_set(&f, cs, 1, 5, 28943393, 0);
	fx_set(&f, cs, 2, 5, 44862005, 0);
	f.res.wall_ns = 300626877;
	f.sum.target_desc = "process id '4154'";
	f.sum.elapsed_s = 0.300626877;
	expect_render("--per-thread -p std", OUTPUT_STD, &f, ALL, gold_std_thread);

	fx_init(&f, AGGR_THREAD, 3);
	set_thread(&f, 0, "thr", 4154);
	set_thread(&f, 1, "thr", 4156);
	set_thread(&f, 2, "thr", 4157);
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	fx_set(&f, tc, 1, 35600660, 35600660, 0);
	fx_set(&f, tc, 2, 52999212, 52999212, 0);
	fx_set(&f, faults, 1, 0, 35586374, 0);
	fx_set(&f, faults, 2, 0, 52999212, 0);
	f.res.wall_ns = 300600000;
	expect_render("--per-thread -p csv", OUTPUT_CSV, &f, LINES, csv);

	/* -a --per-thread: zero counts are dropped, long comms push the columns */
	fx_init(&f, AGGR_THREAD, 3);
	set_thread(&f, 0, "idle", 7);
	set_thread(&f, 1, "kworker/u8:0-kvfree_rcu_reclaim", 12);
	set_thread(&f, 2, "thr", 4157);
	f.res.per_thread_drop_zero = true;
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	fx_set(&f, tc, 0, 0, 1000, 0);
	fx_set(&f, tc, 1, 60000, 60000, 0);
	fx_set(&f, tc, 2, 53650000, 53650000, 0);
	f.res.wall_ns = 302080043;
	expect_render("--per-thread -a std", OUTPUT_STD, &f, LINES, system_wide);
}

static void fixture_interval(struct fixture *f, double ts, double clock, double faults_count)
{
	int tc, faults;

	fx_init(f, AGGR_GLOBAL, 1);
	tc = fx_sw(f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	faults = fx_sw(f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	if (clock) {
		fx_set(f, tc, 0, clock, clock, 1);
		fx_set(f, faults, 0, faults_count, clock, 1);
	}
	f->res.interval = true;
	f->res.interval_ts = ts;
	f->res.wall_ns = 100e6; /* the nominal -I 100 */
}

static void test_interval(void)
{
	struct output_config cfg = cfg_of(OUTPUT_STD);
	struct fixture f;
	char *got;

	fixture_interval(&f, 0.100209020, 929730, 77);
	got = render(cfg, &f, INTERVAL, 0);
	CHECK_STR("-I std first print", gold_iv_std, got);
	free(got);

	/* no header on the second print; an idle period is <not counted> */
	fixture_interval(&f, 0.200550703, 0, 0);
	got = render(cfg, &f, INTERVAL, 1);
	CHECK_STR("-I std second print", gold_iv_std2, got);
	free(got);

	fixture_interval(&f, 0.200550703, 0, 0);
	got = render(cfg, &f, INTERVAL, 25);
	CHECK_MSG("-I header every 25 prints", !strncmp(got, "#           time", 16),
		  "expected header, got %s", got);
	free(got);

	fixture_interval(&f, 0.100193408, 1686981, 77);
	got = render(cfg_of(OUTPUT_CSV), &f, INTERVAL, 0);
	CHECK_STR("-I csv", gold_iv_csv, got);
	free(got);

	fixture_interval(&f, 0.100224983, 886662, 76);
	got = render(cfg_of(OUTPUT_JSON), &f, INTERVAL, 0);
	CHECK_STR("-I json", gold_iv_json, got);
	free(got);

	/* --summary totals after the intervals */
	fixture_interval(&f, 0, 2507853, 76);
	f.res.interval = false;
	f.res.wall_ns = 153300000;
	cfg = cfg_of(OUTPUT_CSV);
	cfg.summary = true;
	got = render(cfg, &f, LINES, 0);
	CHECK_STR("--summary csv", gold_sum_csv, got);
	free(got);
	cfg.no_csv_summary = true;
	got = render(cfg, &f, LINES, 0);
	CHECK_STR("--summary --no-csv-summary csv",
		  "2.51,msec,task-clock,2507853,100.00,0.016,CPUs utilized\n"
		  "76,,faults,2507853,100.00,30.305,K/sec\n", got);
	free(got);
}

/* -r 3: perf prints the last run's counts; rates divide by the mean clock. */
static void test_repeat(void)
{
	double shadow[2] = { 26109105.666667, 401.333333 };
	struct fixture f;
	int tc, pf;

	fx_init(&f, AGGR_GLOBAL, 1);
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	pf = fx_sw(&f, "page-faults", PERF_COUNT_SW_PAGE_FAULTS);
	fx_set(&f, tc, 0, 27657692, 27657692, 1);
	fx_set(&f, pf, 0, 398, 27657692, 1);
	fx_val(&f, tc, 0)->noise_pct = 20.76;
	fx_val(&f, pf, 0)->noise_pct = 0.42;
	f.res.shadow_counts = shadow;
	f.res.run_count = 3;
	f.res.wall_ns = 24039000;
	f.sum.run_count = 3;
	f.sum.target_desc = "'/tmp/w.sh'";
	f.sum.elapsed_s = 0.024039;
	f.sum.elapsed_stddev_s = 0.0064136;
	expect_render("-r 3 std", OUTPUT_STD, &f, ALL, gold_r_std);
}

static bool try_locale(const char *name)
{
	if (setlocale(LC_ALL, name))
		return true;
	printf("SKIP: locale %s is not installed\n", name);
	return false;
}

static void test_locales(void)
{
	static const char csv[] =
		"0.56,msec,task-clock,9.74%,559727,100.00,0.453,CPUs utilized\n"
		"49,,faults,1.02%,559727,100.00,79.748,K/sec\n";
	static const char json[] =
		"{\"counter-value\" : \"0.559727\", \"unit\" : \"msec\", \"event\" : \"task-clock\", "
		"\"variance\" : 9.74, \"event-runtime\" : 559727, \"pcnt-running\" : 100.00, "
		"\"metric-value\" : 0.453000, \"metric-unit\" : \"CPUs utilized\"}\n"
		"{\"counter-value\" : \"49.000000\", \"unit\" : \"\", \"event\" : \"faults\", "
		"\"variance\" : 1.02, \"event-runtime\" : 559727, \"pcnt-running\" : 100.00, "
		"\"metric-value\" : 79.748061, \"metric-unit\" : \"K/sec\"}\n";
	double shadow[2] = { 614435, 49 };
	struct fixture f;
	int clk, faults, dur, tc;

	if (try_locale("en_US.UTF-8")) {
		fx_init(&f, AGGR_GLOBAL, 1);
		clk = fx_sw(&f, "cpu-clock", PERF_COUNT_SW_CPU_CLOCK);
		faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
		dur = fx_duration(&f);
		fx_set(&f, clk, 0, 1004548000, 1004548000, 2);
		fx_set(&f, faults, 0, 74, 1004548000, 2);
		fx_set(&f, dur, 0, 501421134, 501421134, 1);
		f.res.wall_ns = 501421134;
		expect_render("big-num en_US std", OUTPUT_STD, &f, LINES, gold_bignum_std);
	}

	if (try_locale("de_DE.UTF-8")) {
		fx_init(&f, AGGR_GLOBAL, 1);
		tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
		faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
		fx_set(&f, tc, 0, 559727, 559727, 1);
		fx_set(&f, faults, 0, 49, 559727, 1);
		fx_val(&f, tc, 0)->noise_pct = 9.74;
		fx_val(&f, faults, 0)->noise_pct = 1.02;
		f.res.shadow_counts = shadow;
		f.res.run_count = 2;
		f.res.wall_ns = 1235600;
		f.sum.run_count = 2;
		f.sum.target_desc = "'true'";
		f.sum.elapsed_s = 0.0012356;
		f.sum.elapsed_stddev_s = 0.000161493;
		expect_render("de_DE std", OUTPUT_STD, &f, ALL, gold_de_std);
		/* deliberate difference from perf: '.' in CSV and JSON whatever the locale */
		expect_render("de_DE csv", OUTPUT_CSV, &f, ALL, csv);
		expect_render("de_DE json", OUTPUT_JSON, &f, ALL, json);
	}
	setlocale(LC_ALL, "C");
}

static void test_smi(void)
{
	struct fixture f;
	int smi, tsc;

	fx_init(&f, AGGR_GLOBAL, 1);
	smi = fx_event(&f, "msr/smi/", 12, 4);
	tsc = fx_event(&f, "msr/tsc/", 12, 0);
	fx_set(&f, smi, 0, 0, 603079, 1);
	fx_set(&f, tsc, 0, 998586, 603079, 1);
	expect_render("msr/smi/ std", OUTPUT_STD, &f, LINES, gold_smi_std);
	f.evlist.nr = 1;
	expect_render("msr/smi/ csv", OUTPUT_CSV, &f, LINES, gold_smi_csv);
	fx_set(&f, smi, 0, 0, 527673, 1);
	expect_render("msr/smi/ json", OUTPUT_JSON, &f, LINES, gold_smi_json);
}

static void test_multiplexed(void)
{
	struct fixture f;
	int faults, pf;

	fx_init(&f, AGGR_GLOBAL, 1);
	faults = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	pf = fx_sw(&f, "page-faults", PERF_COUNT_SW_PAGE_FAULTS);
	fx_set(&f, faults, 0, 1000, 2000, 1);
	fx_val(&f, faults, 0)->ena = 3000;
	fx_val(&f, pf, 0)->ena = 3000;
	expect_render("multiplexed std", OUTPUT_STD, &f, LINES, gold_std_mux);
	/* the CSV/JSON percentage is integer arithmetic: 66, not 66.67 */
	expect_render("multiplexed csv", OUTPUT_CSV, &f, LINES,
		      "1000,,faults,2000,66.00,,\n"
		      "<not counted>,,page-faults,0,0.00,,\n");
	expect_render("multiplexed json", OUTPUT_JSON, &f, LINES,
		      "{\"counter-value\" : \"1000.000000\", \"unit\" : \"\", \"event\" : \"faults\", "
		      "\"event-runtime\" : 2000, \"pcnt-running\" : 66.00, \"metric-value\" : "
		      "0.000000, \"metric-unit\" : \"(null)\"}\n"
		      "{\"counter-value\" : \"<not counted>\", \"unit\" : \"\", \"event\" : "
		      "\"page-faults\", \"event-runtime\" : 0, \"pcnt-running\" : 0.00, "
		      "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n");
}

#define CACHE_MISS(c) ((c) | PERF_COUNT_HW_CACHE_OP_READ << 8 | \
		       PERF_COUNT_HW_CACHE_RESULT_MISS << 16)

static void test_hardware_metrics(void)
{
	static const struct {
		const char *name;
		__u32 type;
		__u64 config;
		double count;
	} events[] = {
		{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1e9 },
		{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 3e9 },
		{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 6e9 },
		{ "stalled-cycles-frontend", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1.5e9 },
		{ "stalled-cycles-backend", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 3e8 },
		{ "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1e9 },
		{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1e7 },
		{ "cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1e8 },
		{ "cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1e6 },
		{ "L1-dcache-loads", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D, 2e9 },
		{ "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
		  CACHE_MISS(PERF_COUNT_HW_CACHE_L1D), 5e7 },
		{ "dTLB-load-misses", PERF_TYPE_HW_CACHE, CACHE_MISS(PERF_COUNT_HW_CACHE_DTLB),
		  1e6 },
	};
	struct fixture f;
	size_t i;
	int cyc, insn, front, insn_u, tc;

	fx_init(&f, AGGR_GLOBAL, 1);
	for (i = 0; i < ARRAY_SIZE(events); i++) {
		int ev = fx_event(&f, events[i].name, events[i].type, events[i].config);

		fx_set(&f, ev, 0, events[i].count, 1000, 1);
	}
	f.res.wall_ns = 5e8;
	expect_render("hardware metrics std", OUTPUT_STD, &f, LINES, gold_std_hw);

	/* -A: the second metric line is indented by the CPU column plus 8 */
	fx_init(&f, AGGR_NONE, 1);
	cyc = fx_hw(&f, "cycles", PERF_COUNT_HW_CPU_CYCLES);
	insn = fx_hw(&f, "instructions", PERF_COUNT_HW_INSTRUCTIONS);
	front = fx_hw(&f, "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	insn_u = fx_hw(&f, "instructions:u", PERF_COUNT_HW_INSTRUCTIONS);
	f.evsels[insn_u].attr.exclude_kernel = 1; /* no cycles:u to divide by */
	tc = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	fx_set(&f, cyc, 0, 4e9, 1000, 1);
	fx_set(&f, insn, 0, 8e9, 1000, 1);
	fx_set(&f, front, 0, 4e9, 1000, 1);
	fx_set(&f, insn_u, 0, 2e9, 1000, 1);
	fx_set(&f, tc, 0, 2e9, 1000, 1);
	f.res.wall_ns = 1e9;
	expect_render("hardware metrics -A std", OUTPUT_STD, &f, LINES, gold_std_hw_A);

	/* perf's extra metric lines in CSV: the CPU column, then empty count, unit, event fields */
	expect_render("hardware metrics -A csv", OUTPUT_CSV, &f, LINES,
		      "CPU0,4000000000,,cycles,1000,100.00,2.000,GHz\n"
		      "CPU0,8000000000,,instructions,1000,100.00,2.00,insn per cycle\n"
		      "CPU0,,,,,,0.50,stalled cycles per insn\n"
		      "CPU0,4000000000,,stalled-cycles-frontend,1000,100.00,100.00,"
		      "frontend cycles idle\n"
		      "CPU0,2000000000,,instructions:u,1000,100.00,,\n"
		      "CPU0,2000.00,msec,task-clock,1000,100.00,2.000,CPUs utilized\n");
	f.evlist.nr = 3;
	expect_render("hardware metrics -A json", OUTPUT_JSON, &f, LINES,
		      "{\"cpu\" : \"0\", \"counter-value\" : \"4000000000.000000\", \"unit\" : \"\", "
		      "\"event\" : \"cycles\", \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, "
		      "\"metric-value\" : 0.000000, \"metric-unit\" : \"Ghz\"}\n"
		      "{\"cpu\" : \"0\", \"counter-value\" : \"8000000000.000000\", \"unit\" : \"\", "
		      "\"event\" : \"instructions\", \"event-runtime\" : 1000, \"pcnt-running\" : "
		      "100.00, \"metric-value\" : 2.000000, \"metric-unit\" : \"insn per cycle\"}\n"
		      "{\"cpu\" : \"0\", \"metric-value\" : 0.500000, \"metric-unit\" : "
		      "\"stalled cycles per insn\"}\n"
		      "{\"cpu\" : \"0\", \"counter-value\" : \"4000000000.000000\", \"unit\" : \"\", "
		      "\"event\" : \"stalled-cycles-frontend\", \"event-runtime\" : 1000, "
		      "\"pcnt-running\" : 100.00, \"metric-value\" : 100.000000, \"metric-unit\" : "
		      "\"frontend cycles idle\"}\n");
}

/*
 * --metric-only cells as perf's print_metric_only() sizes them: 20 wide, or the unit's length + 1
 * when the unit is longer than 20, plus what perf counts for the value's colour even when it
 * prints none: 3 for get_ratio_color()'s "" (a ratio below its lowest threshold), 8 for a colour.
 */
static void test_metric_only_colors(void)
{
	struct output_config cfg = cfg_of(OUTPUT_STD);
	char want[512], *got;
	struct fixture f;
	int ev;

	fx_init(&f, AGGR_GLOBAL, 1);
	fx_set(&f, fx_hw(&f, "cycles", PERF_COUNT_HW_CPU_CYCLES), 0, 3e9, 1000, 1);
	/* 50% > 10: magenta */
	ev = fx_hw(&f, "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND);
	fx_set(&f, ev, 0, 1.5e9, 1000, 1);
	/* 10% <= 20: "" */
	ev = fx_hw(&f, "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND);
	fx_set(&f, ev, 0, 3e8, 1000, 1);
	fx_set(&f, fx_hw(&f, "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS), 0, 1e9, 1000, 1);
	/* 1% <= 5: "" */
	fx_set(&f, fx_hw(&f, "branch-misses", PERF_COUNT_HW_BRANCH_MISSES), 0, 1e7, 1000, 1);
	fx_set(&f, fx_event(&f, "L1-dcache-loads", PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_L1D),
	       0, 2e9, 1000, 1);
	/* 6% > 5: yellow */
	ev = fx_event(&f, "L1-dcache-load-misses", PERF_TYPE_HW_CACHE,
		      CACHE_MISS(PERF_COUNT_HW_CACHE_L1D));
	fx_set(&f, ev, 0, 1.2e8, 1000, 1);
	/* no -M metric: an empty header; cycles without a clock: an empty Ghz cell */
	snprintf(want, sizeof(want), "\n%20s %28s %23s %33s %56s \n", "", "  50.00%", "  10.00%",
		 "   1.00%", "   6.00%");
	cfg.metric_only = true;
	got = render(cfg, &f, LINES, 0);
	CHECK_STR("metric-only colour widths", want, got);
	free(got);
}

/* Metric values straight from metrics_compute(). */
static void test_metric_rules(void)
{
	struct metric_line m[METRICS_MAX];
	struct fixture f;
	int c1, c2, ev, n;

	/* two clock events: the rate divides by their mean */
	fx_init(&f, AGGR_GLOBAL, 1);
	c1 = fx_sw(&f, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	c2 = fx_sw(&f, "cpu-clock", PERF_COUNT_SW_CPU_CLOCK);
	ev = fx_sw(&f, "faults", PERF_COUNT_SW_PAGE_FAULTS);
	fx_set(&f, c1, 0, 1e6, 1, 1);
	fx_set(&f, c2, 0, 3e6, 1, 1);
	fx_set(&f, ev, 0, 2, 1, 1);
	f.res.wall_ns = 1e6;
	n = metrics_compute(&f.res, ev, 0, m, METRICS_MAX);
	if (CHECK_EQ("rate over two clocks: lines", 1, n)) {
		/* 1000.000 /sec, not K: only above 1000 */
		CHECK_NEAR("rate over two clocks", 1000.0, m[0].value, 0);
		CHECK_STR("rate over two clocks: unit", "/sec", m[0].unit);
	}
	/* no wall time: the empty CPUs utilized metric */
	f.res.wall_ns = 0;
	n = metrics_compute(&f.res, c1, 0, m, METRICS_MAX);
	if (CHECK_EQ("CPUs utilized without wall time: lines", 1, n)) {
		/* the empty metric */
		CHECK_STR("CPUs utilized without wall time: format", NULL, m[0].format);
		CHECK_STR("CPUs utilized without wall time: unit", "CPUs utilized", m[0].unit);
	}
	/* an unsupported clock gives no rate */
	f.supported[c1] = false;
	f.supported[c2] = false;
	n = metrics_compute(&f.res, ev, 0, m, METRICS_MAX);
	if (CHECK_EQ("rate without a counted clock: lines", 1, n))
		CHECK_STR("rate without a counted clock: unit (none: no metric)", NULL, m[0].unit);
}

int main(void)
{
	setlocale(LC_ALL, "C");
	test_default_events_std();
	test_global_csv_json();
	test_aggregation_modes();
	test_per_thread();
	test_interval();
	test_repeat();
	test_smi();
	test_multiplexed();
	test_hardware_metrics();
	test_metric_rules();
	test_metric_only_colors();
	test_locales();
	return check_exit("test_output");
}
