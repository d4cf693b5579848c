/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Binaries samples fall in and their symbols: ELF files read in-process with libelf (.symtab
 * and .dynsym, and "foo@plt" for PLT entries; checked against the build id the recording saw,
 * with perf's ~/.debug build-id cache as the fallback, which also holds the [vdso] image), a
 * JIT's /tmp/perf-PID.map, and the kernel from /proc/kallsyms, modules as their own "[name]"
 * binaries. Symbols are loaded the first time a sample needs them.
 */
#ifndef BPERF_DATA_DSO_H
#define BPERF_DATA_DSO_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define DSO_BUILD_ID_MAX 20

struct data_dso;

struct data_symbol {
	/*
	 * [start, end): kernel addresses, file offsets in an ELF binary (where perf puts them:
	 * a sample's offset in its mapping finds them), a JIT's addresses
	 */
	__u64 start, end;
	char *name;		/* NULL once erased from the tree */
	struct data_dso *module;	/* kallsyms: the module's binary, NULL for the kernel */
	__u32 seq;		/* order in the file: ties between aliases go by it */
	char binding;		/* 'g'lobal, 'w'eak or 'l'ocal */
	/* symtree.c: links as indexes + 1 into the binary's syms, 0 for none */
	__u32 left, right, parent;
	bool black, erased;
};

struct data_dso {
	char *name;		/* the path as mapped, or "[kernel.kallsyms]", "[ext4]" */
	char *short_name;	/* what perf's Shared Object column shows */
	__u64 short_hash;	/* of short_name: perf's report merges binaries by it */
	bool kernel;
	bool jit;		/* a JIT's code: name is /tmp/perf-PID.map, its symbols' file */
	bool loaded;		/* symbols tried (they may still be missing) */
	/*
	 * kallsyms: sorted by start. ELF and JIT binaries: in the order perf inserts them into
	 * its tree, whose root is root (symtree.c), erased ones included.
	 */
	struct data_symbol *syms;
	size_t nr_syms;
	__u32 root;
	bool tree;
	unsigned char build_id[DSO_BUILD_ID_MAX];	/* what the recording saw */
	size_t build_id_size;
};

struct data_dsos {
	struct data_dso **dsos;
	size_t nr;
	struct data_dso *kernel;	/* [kernel.kallsyms] */
	const char *kallsyms_path;	/* /proc/kallsyms, or bperf data --kallsyms */
	__u64 kernel_text;		/* _text as the recording saw it (KASLR), 0 if unknown */
	bool quiet;			/* no warnings about missing binaries */
	/* demangle.c: libstdc++'s __cxa_demangle, looked for once */
	void *libstdcxx, *cxa_demangle;
	bool demangler_tried;
};

void data_dsos_init(struct data_dsos *d);
void data_dsos_free(struct data_dsos *d);
/* The binary of that name, added if new. */
struct data_dso *data_dsos_get(struct data_dsos *d, const char *name);
/*
 * The binary of a JIT's code in process pid (anonymous executable memory): perf names it
 * /tmp/perf-PID.map, the file its symbols come from, and shows "[JIT] tid PID".
 */
struct data_dso *data_dsos_get_jit(struct data_dsos *d, __u32 pid);
/* Sets what the recording says the binary's build id is. */
void data_dso_set_build_id(struct data_dso *dso, const unsigned char *id, size_t size);
/*
 * The symbol at addr, or NULL: addr is the kernel's address, an offset in an ELF binary (the
 * sample's offset in its mapping, as perf looks it up) or the address in a JIT's memory.
 */
const struct data_symbol *data_dso_find(struct data_dsos *d, struct data_dso *dso, __u64 addr);

/* dso_elf.c, jit_map.c and kallsyms.c: 0, or -errno when the symbols are not there. */
int dso_load_elf(struct data_dsos *d, struct data_dso *dso);
int dso_load_perf_map(struct data_dsos *d, struct data_dso *dso);
int dso_load_kallsyms(struct data_dsos *d, struct data_dso *kernel);
/* demangle.c: a symbol's name as perf report shows it (C++ names demangled), allocated */
char *dso_symbol_name(struct data_dsos *d, const char *elf_name);
void dso_demangler_close(struct data_dsos *d);
/* dso_plt.c: adds elf's "foo@plt" entries to dso's tree; how many, or -errno. */
int dso_add_plt_symbols(struct data_dsos *d, Elf *elf, struct data_dso *dso);
/* The first section called name (its header into *shdr, its index into *idx unless NULL). */
Elf_Scn *dso_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr, size_t *idx);
/*
 * kallsyms: sorts dso->syms, gives the symbols without a size the room up to the next (so that
 * of aliases the last listed is the one with room) and keeps one of the aliases at an address.
 */
void dso_fixup_kallsyms(struct data_dso *dso);

/* symtree.c: perf's symbol tree. Adds a symbol (taking name) as perf inserts it. */
struct data_symbol *symtree_add(struct data_dso *dso, __u64 start, __u64 size, char *name,
				char binding);
/* perf's end fix-up: a sizeless symbol reaches the next one (the last, a page past its own). */
void symtree_fixup_end(struct data_dso *dso);
/*
 * Of two symbols at one address, whether perf keeps a rather than b (choose_best_symbol: sized,
 * not weak, global, fewer leading underscores, the longer name, not a "SyS" alias, the first).
 */
bool symbol_kept_over(const struct data_symbol *a, const struct data_symbol *b);
/* perf's duplicate fix-up: of the symbols at one address, one stays. */
void symtree_fixup_duplicate(struct data_dso *dso);
/* perf's lookup: the first symbol holding addr on the way down from the root, or NULL. */
const struct data_symbol *symtree_find(const struct data_dso *dso, __u64 addr);

#endif
