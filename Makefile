# SPDX-License-Identifier: GPL-2.0-only
#
# bperf build. Everything generated goes to .output/ except the ./bperf binary.
#
#   make              build ./bperf and the test workloads (.output/workloads/)
#   make deps         install missing Debian packages and locales (root)
#   make demo         what building needs (install-deps.sh --build), build, count a few workloads
#   make check        deps + build, then tests/run.sh on this kernel and tools/vmtest in QEMU
#                     guests, x86 and arm64 (tools/check, which builds for arm64 beside the x86
#                     guest: fails if one fails; KERNEL= as for vmtest)
#   make vmtest       deps + build, then tests/run.sh in a QEMU guest on Debian's stock kernel
#                     (tools/vmtest; KERNEL=path/to/bzImage boots another kernel; with ARCH=arm64
#                     the arm64 build on Debian's arm64 6.1 and 6.12 kernels)
#   make fuzz         fuzz the perf.data reader, the daemon's client socket and HTTP (tests/fuzz/),
#                     each for FUZZ_SECONDS (default 600; FUZZ_TARGETS="report socket http")
#   make install      PREFIX=/usr/local DESTDIR= : bin/bperf, the man pages and the Prometheus
#                     rules (share/bperf/prometheus/)
#   make clean
#   ARCH=arm64        cross-build for arm64 (CROSS_COMPILE=aarch64-linux-gnu- by default) into
#                     .output/arm64/: bperf, its BPF objects, tests and workloads (make deps
#                     installs the cross compiler and the :arm64 libraries; tools/vmtest boots them)
#   V=1               show the full commands
#   GEN_VMLINUX_H=1   regenerate vmlinux/vmlinux.h from this machine's kernel BTF (do not commit)
#
# BPF pipeline (as in libbpf-tools): bpf/X.bpf.c -> .output/X.bpf.o -> .output/X.skel.h, included
# by user space as "X.skel.h". Every C object waits for all skeletons (order-only prerequisite).
# User space includes the types shared with a BPF program as "bpf/X.h" (the repo top is on -I).

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
# the target, as the kernel and the BPF tracing headers spell it (x86, arm64)
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(ARCH)))

ifeq ($(ARCH),$(HOST_ARCH))
OUTPUT := .output
BPERF := bperf
else
# a cross build keeps to its own tree, so that the host's ./bperf and .output/ stay as they are
OUTPUT := .output/$(ARCH)
BPERF := $(OUTPUT)/bperf
TRIPLET_arm64 := aarch64-linux-gnu
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET := $(TRIPLET_$(ARCH))
ifeq ($(TRIPLET),)
$(error ARCH=$(ARCH): bperf cross-builds for x86 and arm64)
endif
CROSS_COMPILE ?= $(TRIPLET)-
# Debian's multiarch -dev packages (libbpf-dev:arm64 ...) keep their .pc files here
export PKG_CONFIG_LIBDIR := /usr/lib/$(TRIPLET)/pkgconfig:/usr/share/pkgconfig
endif
PREFIX ?= /usr/local
DESTDIR ?=
MANDIR ?= $(PREFIX)/share/man

CC ?= cc
ifneq ($(CROSS_COMPILE),)
CC := $(CROSS_COMPILE)gcc
endif
CLANG ?= clang
BPFTOOL ?= bpftool
PKG_CONFIG ?= pkg-config
LIBBPF_MIN_VERSION := 1.1


ifeq ($(V),1)
Q :=
msg =
else
Q := @
msg = @printf '  %-9s %s\n' "$(1)" "$(2)";
endif

# Run pkg-config once, lazily: `make deps` must work before libbpf-dev and friends exist.
PKGS := libbpf libelf zlib
PKG_CFLAGS = $(eval PKG_CFLAGS := $$(shell $(PKG_CONFIG) --cflags $(PKGS)))$(PKG_CFLAGS)
PKG_LIBS = $(eval PKG_LIBS := $$(shell $(PKG_CONFIG) --libs $(PKGS)))$(PKG_LIBS)
# libbpf's headers for the BPF side; /usr/include is searched anyway and must not become a -I dir
LIBBPF_INCLUDE = $(eval LIBBPF_INCLUDE := $$(filter-out -I/usr/include,\
	-I$$(shell $(PKG_CONFIG) --variable=includedir libbpf)))$(LIBBPF_INCLUDE)

CFLAGS ?= -O2 -g
BPERF_CFLAGS = -std=gnu11 $(CFLAGS) -Wall -Wextra -Wno-unused-parameter \
	-Wno-missing-field-initializers -D_GNU_SOURCE -Isrc -I$(OUTPUT) -I. $(PKG_CFLAGS) -MMD -MP
BPERF_LIBS = $(PKG_LIBS) -lm
BPF_CFLAGS = -target bpf -D__TARGET_ARCH_$(ARCH) -g -O2 -Wall -Werror \
	-Ivmlinux -Ibpf -I$(OUTPUT) $(LIBBPF_INCLUDE) -MMD -MP
# workloads are static so that their start-up page faults are few and always the same
WORKLOAD_CFLAGS = -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE -static -pthread

SRCS := $(sort $(wildcard src/*.c src/*/*.c))
# perf 6.1's event tables, generated at build time (see PMU_EVENTS_C below)
OBJS := $(SRCS:%.c=$(OUTPUT)/%.o) $(OUTPUT)/pmu-events.o
MAIN_OBJ := $(OUTPUT)/src/main.o
# unit tests link everything but main()
LIB_OBJS := $(filter-out $(MAIN_OBJ),$(OBJS))

BPF_SRCS := $(sort $(wildcard bpf/*.bpf.c))
BPF_OBJS := $(BPF_SRCS:bpf/%.bpf.c=$(OUTPUT)/%.bpf.o)
SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(OUTPUT)/%.skel.h)

UNIT_SRCS := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(OUTPUT)/tests/%)
# programs the tests call (not tests themselves): libbpf and the skeletons only
HELPER_SRCS := $(sort $(wildcard tests/helpers/*.c))
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=$(OUTPUT)/tests/%)

# gen-pmu-events runs at build time, on the build machine: it is not one of bperf's tools
TOOL_SRCS := $(filter-out tools/gen-pmu-events.c,$(sort $(wildcard tools/*.c)))
TOOL_BINS := $(TOOL_SRCS:tools/%.c=$(OUTPUT)/tools/%)

# the fuzz targets (the perf.data reader, the daemon's client socket and HTTP): clang, libFuzzer,
# ASan and UBSan (libclang-rt-*-dev)
FUZZ_SRCS := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS := $(FUZZ_SRCS:tests/fuzz/%.c=$(OUTPUT)/fuzz/%)
FUZZ_CFLAGS = -std=gnu11 -g -O1 -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -Isrc -I$(OUTPUT) -I. $(PKG_CFLAGS) -MMD -MP
FUZZ_LIB_OBJS := $(LIB_OBJS:$(OUTPUT)/src/%.o=$(OUTPUT)/fuzz/src/%.o)
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= report socket http

# perf 6.1's pmu-events tables (vendor events and metrics per CPU model): the JSON of
# tools/perf/pmu-events/arch/ in Debian's linux-source-6.1 (make deps installs it), extracted
# once into .cache/pmu-events/<version>/ and turned into C data for this build's architecture
# (plus perf's test table) by tools/gen-pmu-events, which runs on the build machine: HOSTCC is
# the native compiler even when cross-building. The generated C is never committed.
HOSTCC ?= gcc
HOST_CFLAGS := -std=gnu11 -O2 -Wall -Wextra -D_GNU_SOURCE
PMU_SRC_TAR := /usr/src/linux-source-6.1.tar.xz
PMU_EVENTS_GEN := $(OUTPUT)/host/gen-pmu-events
# holds the directory of the extracted tables
PMU_EVENTS_SRC := $(OUTPUT)/pmu-events-src
PMU_EVENTS_C := $(OUTPUT)/pmu-events.c

WORKLOAD_SRCS := $(sort $(wildcard tests/workloads/*.c))
WORKLOADS := $(WORKLOAD_SRCS:tests/workloads/%.c=$(OUTPUT)/workloads/%)

MANPAGES := $(sort $(wildcard man/*.1))
# recording and alerting rules for the daemon's series (tests/shell/prom_rules.sh checks them)
PROM_RULES := tools/prometheus/bperf.rules.yml
RULESDIR ?= $(PREFIX)/share/bperf/prometheus

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
# keep the BPF objects although only the skeletons are asked for
.SECONDARY: $(BPF_OBJS) $(FUZZ_LIB_OBJS)

.PHONY: all deps demo check vmtest tests workloads skeletons install clean libbpf-check fuzz \
	fuzz-build FORCE

all: $(BPERF) workloads

workloads: $(WORKLOADS)

skeletons: $(SKELS)

tests: $(UNIT_BINS) $(HELPER_BINS) $(WORKLOADS) $(TOOL_BINS)

fuzz-build: $(FUZZ_BINS)

# longer fuzzing than the bounded runs of tests/shell/fuzz_*.sh
fuzz: $(BPERF) $(TOOL_BINS) $(FUZZ_BINS)
	$(Q)for t in $(FUZZ_TARGETS); do \
		FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh $$t || exit; \
	done

$(BPERF): $(OBJS) $(OUTPUT)/includes.ok | libbpf-check
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(OBJS) $(BPERF_LIBS)

# the include direction of src/ (tools/check-includes, drawn in src/README.md)
$(OUTPUT)/includes.ok: tools/check-includes $(SRCS) $(wildcard src/*.h src/*/*.h)
	$(call msg,CHECK,includes)
	$(Q)mkdir -p $(@D)
	$(Q)tools/check-includes
	$(Q)touch $@

$(OUTPUT)/src/%.o: src/%.c | $(SKELS) libbpf-check
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BPERF_CFLAGS) -c $< -o $@

$(PMU_SRC_TAR):
	@echo "bperf's build needs $@ (Debian's linux-source-6.1) for perf's event tables." \
		"Run 'make deps' as root or install linux-source-6.1." >&2; exit 1

# checked at every build (a dpkg-query): a new package version or a cleaned cache extracts again;
# the file changes, and the tables are generated again, only when the directory does
$(PMU_EVENTS_SRC): $(PMU_SRC_TAR) tools/pmu-events-src.sh FORCE
	$(Q)mkdir -p $(@D)
	$(Q)tools/pmu-events-src.sh $(PMU_SRC_TAR) .cache/pmu-events >$@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm $@.tmp; else mv $@.tmp $@; fi

$(PMU_EVENTS_GEN): tools/gen-pmu-events.c
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOSTCC) $(HOST_CFLAGS) -o $@ $<

$(PMU_EVENTS_C): $(PMU_EVENTS_GEN) $(PMU_EVENTS_SRC) src/events/pmu_tables_data.h
	$(call msg,GEN,$@)
	$(Q)$(PMU_EVENTS_GEN) $(ARCH) "$$(cat $(PMU_EVENTS_SRC))/arch" $@

$(OUTPUT)/pmu-events.o: $(PMU_EVENTS_C)
	$(call msg,CC,$@)
	$(Q)$(CC) $(BPERF_CFLAGS) -c $< -o $@

# test_registry_bases fails leader_cg_sum() at will (the linker's --wrap)
$(OUTPUT)/tests/test_registry_bases: LDFLAGS += -Wl,--wrap=leader_cg_sum
$(OUTPUT)/tests/%: tests/unit/%.c $(LIB_OBJS) | $(SKELS) libbpf-check
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BPERF_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(BPERF_LIBS)

$(OUTPUT)/tests/%: tests/helpers/%.c | $(SKELS) libbpf-check
	$(call msg,HELPER,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BPERF_CFLAGS) $(LDFLAGS) -o $@ $< $(BPERF_LIBS)

$(OUTPUT)/tools/%: tools/%.c $(LIB_OBJS) | $(SKELS) libbpf-check
	$(call msg,TOOL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BPERF_CFLAGS) $(LDFLAGS) -o $@ $< $(LIB_OBJS) $(BPERF_LIBS)

$(OUTPUT)/fuzz/src/%.o: src/%.c | $(SKELS) libbpf-check
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(OUTPUT)/fuzz/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS) | $(SKELS) libbpf-check
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIB_OBJS) $(BPERF_LIBS)

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c vmlinux/vmlinux.h | libbpf-check
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUTPUT)/workloads/%: tests/workloads/%.c $(wildcard tests/workloads/*.h)
	$(call msg,WORKLOAD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(WORKLOAD_CFLAGS) -o $@ $<

ifeq ($(GEN_VMLINUX_H),1)
vmlinux/vmlinux.h: FORCE
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp
	$(Q)mv $@.tmp $@
endif

libbpf-check:
	@$(PKG_CONFIG) --atleast-version=$(LIBBPF_MIN_VERSION) libbpf || { \
		echo "bperf needs libbpf >= $(LIBBPF_MIN_VERSION) (pkg-config found:" \
			"$$($(PKG_CONFIG) --modversion libbpf 2>/dev/null || echo none))." \
			"Run 'make deps' as root or install libbpf-dev." >&2; \
		exit 1; }

deps:
	$(Q)tools/install-deps.sh

BUILD_JOBS ?= $(shell nproc)

# Sub-makes keep the order deps -> build -> run even under make -j.
demo:
	$(Q)tools/install-deps.sh --build
	$(Q)$(MAKE) --no-print-directory all
	./bperf stat -- $(OUTPUT)/workloads/pagetouch 1000
	./bperf stat -e task-clock,context-switches,page-faults -- $(OUTPUT)/workloads/pingpong 1000
	./bperf stat -e page-faults,page-faults:b,context-switches,context-switches:b \
		-- $(OUTPUT)/workloads/pingpong 1000

# The build uses every CPU (serial, the two builds took 84 s of make check's 20 minutes); the
# arm64 build is tools/check's, beside the x86 guest.
check:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory -j$(BUILD_JOBS) all tests
	KERNEL=$(KERNEL) tools/check

vmtest:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all tests
	tools/vmtest --arch $(ARCH) $(if $(KERNEL),--kernel $(KERNEL))

# the workloads go where an installed `bperf check` looks for them
install: $(BPERF) workloads
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(RULESDIR) \
		$(DESTDIR)$(PREFIX)/libexec/bperf/workloads
	install -m 0755 $(BPERF) $(DESTDIR)$(PREFIX)/bin/bperf
	install -m 0755 $(WORKLOADS) $(DESTDIR)$(PREFIX)/libexec/bperf/workloads/
	$(if $(MANPAGES),install -m 0644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/)
	install -m 0644 $(PROM_RULES) $(DESTDIR)$(RULESDIR)/

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf $(OUTPUT) $(BPERF)

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/src/*.d $(OUTPUT)/src/*/*.d $(OUTPUT)/tests/*.d \
	$(OUTPUT)/tools/*.d $(OUTPUT)/fuzz/*.d $(OUTPUT)/fuzz/src/*.d $(OUTPUT)/fuzz/src/*/*.d)
