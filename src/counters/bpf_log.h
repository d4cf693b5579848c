/* SPDX-License-Identifier: GPL-2.0-only */
/* libbpf's messages: silent by default (stderr carries perf's output), shown from -v. */
#ifndef BPERF_BPF_LOG_H
#define BPERF_BPF_LOG_H

/* Warnings and information from -v, libbpf's debugging lines from -vv. */
void bpf_log_init(int verbose);

#endif
