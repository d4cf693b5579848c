// SPDX-License-Identifier: GPL-2.0-only
/*
 * "foo@plt" symbols for a binary's PLT entries, as perf 6.1 makes them: the stubs have no
 * symbols, but the i-th PLT relocation (.rela.plt or .rel.plt) names the function the i-th
 * entry jumps to. perf 6.1 places entry i at .plt's file offset + the header + i entries, with
 * the header and the entries sh_entsize long (their ABI's sizes on ARM and SPARC), and gives
 * them no other fix-up: a sizeless symbol before them (_init), already stretched over the PLT,
 * overlaps them, and its tree decides which one an address gets (symtree.c).
 *
 * With IBT (.plt.sec, ld -z ibtplt and CET distributions) calls go to the second PLT, where
 * perf 6.1 names nothing; bperf adds "foo@plt" there too, after perf's own.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "dso.h"

Elf_Scn *dso_elf_section(Elf *elf, const char *name, GElf_Shdr *shdr, size_t *idx)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name)) {
			if (idx)
				*idx = elf_ndxscn(scn);
			return scn;
		}
	}
	return NULL;
}

/* The dynamic symbol index the i-th relocation of a REL or RELA section refers to. */
static bool reloc_symbol(Elf_Data *data, bool rela, size_t i, size_t *sym)
{
	GElf_Rela ra;
	GElf_Rel r;

	if (rela) {
		if (!gelf_getrela(data, i, &ra))
			return false;
		*sym = GELF_R_SYM(ra.r_info);
	} else {
		if (!gelf_getrel(data, i, &r))
			return false;
		*sym = GELF_R_SYM(r.r_info);
	}
	return true;
}

/* The header and entry sizes of .plt (shdr) on machine m. */
static void plt_layout(int m, const GElf_Shdr *shdr, __u64 *header, __u64 *entry)
{
	switch (m) {
	case EM_ARM:
		*header = 20;
		*entry = 12;
		break;
	case EM_AARCH64:
		*header = 32;
		*entry = 16;
		break;
	case EM_SPARC:
		*header = 48;
		*entry = 12;
		break;
	case EM_SPARCV9:
		*header = 128;
		*entry = 32;
		break;
	default:
		*header = *entry = shdr->sh_entsize;
		break;
	}
}

struct plt_relocs {
	Elf_Data *rel, *syms;
	bool rela;
	size_t nr;
	size_t strtab;		/* the dynamic symbols' string table */
};

/* Adds entry i's "name@plt" for each relocation, first at offset, entry bytes apart. */
static int add_entries(struct data_dsos *d, Elf *elf, const struct plt_relocs *r,
		       struct data_dso *dso, __u64 offset, __u64 entry)
{
	GElf_Sym sym = { 0 };
	size_t i, symidx;
	int added = 0;

	for (i = 0; i < r->nr; i++, offset += entry) {
		const char *name = NULL;
		char *demangled;

		/* perf keeps the previous symbol when one cannot be read */
		if (reloc_symbol(r->rel, r->rela, i, &symidx))
			gelf_getsym(r->syms, symidx, &sym);
		name = elf_strptr(elf, r->strtab, sym.st_name);
		demangled = dso_symbol_name(d, name ? name : "");
		symtree_add(dso, offset, entry, xasprintf("%s@plt", demangled), 'g');
		free(demangled);
		added++;
	}
	return added;
}

int dso_add_plt_symbols(struct data_dsos *d, Elf *elf, struct data_dso *dso)
{
	GElf_Shdr rel_sh, plt_sh, sec_sh, dyn_sh;
	Elf_Scn *rel, *dynsym;
	struct plt_relocs r;
	size_t dynsym_idx;
	__u64 header, entry;
	GElf_Ehdr eh;
	int added;

	dynsym = dso_elf_section(elf, ".dynsym", &dyn_sh, &dynsym_idx);
	if (!dynsym || dyn_sh.sh_type != SHT_DYNSYM || !gelf_getehdr(elf, &eh))
		return -ENOENT;
	rel = dso_elf_section(elf, ".rela.plt", &rel_sh, NULL);
	if (!rel)
		rel = dso_elf_section(elf, ".rel.plt", &rel_sh, NULL);
	/* the relocations must name .dynsym's symbols */
	if (!rel || !rel_sh.sh_entsize || rel_sh.sh_link != dynsym_idx ||
	    (rel_sh.sh_type != SHT_RELA && rel_sh.sh_type != SHT_REL))
		return -ENOENT;
	if (!dso_elf_section(elf, ".plt", &plt_sh, NULL))
		return -ENOENT;
	r.rel = elf_getdata(rel, NULL);
	r.syms = elf_getdata(dynsym, NULL);
	r.rela = rel_sh.sh_type == SHT_RELA;
	r.nr = rel_sh.sh_size / rel_sh.sh_entsize;
	r.strtab = dyn_sh.sh_link;
	if (!r.rel || !r.syms)
		return -EINVAL;
	plt_layout(eh.e_machine, &plt_sh, &header, &entry);
	added = add_entries(d, elf, &r, dso, plt_sh.sh_offset + header, entry);
	if (dso_elf_section(elf, ".plt.sec", &sec_sh, NULL) && sec_sh.sh_entsize)
		added += add_entries(d, elf, &r, dso, sec_sh.sh_offset, sec_sh.sh_entsize);
	return added;
}
