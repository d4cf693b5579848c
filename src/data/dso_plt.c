// SPDX-License-Identifier: GPL-2.0-only
/*
 * "foo@plt" functions for a binary's PLT entries, as perf makes them: the stubs have no
 * symbols, but the i-th PLT relocation (.rela.plt or .rel.plt) names the function the i-th
 * entry jumps to.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>

#include "../common.h"
#include "dso.h"

static Elf_Scn *section_by_name(Elf *elf, const char *name, GElf_Shdr *shdr)
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
		if (n && !strcmp(n, name))
			return scn;
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

int dso_add_plt_symbols(struct data_dsos *d, Elf *elf, struct data_dso *dso)
{
	GElf_Shdr rel_sh, plt_sh, sec_sh, dyn_sh;
	Elf_Scn *rel, *dynsym;
	Elf_Data *rel_data, *sym_data;
	__u64 addr, header, entry;
	size_t i, n, symidx;
	GElf_Ehdr eh;
	bool rela;
	int added = 0;

	rel = section_by_name(elf, ".rela.plt", &rel_sh);
	if (!rel)
		rel = section_by_name(elf, ".rel.plt", &rel_sh);
	if (!rel || !rel_sh.sh_entsize || !gelf_getehdr(elf, &eh))
		return -ENOENT;
	/* the relocations must name .dynsym's symbols */
	dynsym = elf_getscn(elf, rel_sh.sh_link);
	if (!dynsym || !gelf_getshdr(dynsym, &dyn_sh) || dyn_sh.sh_type != SHT_DYNSYM)
		return -ENOENT;
	if (!section_by_name(elf, ".plt", &plt_sh))
		return -ENOENT;
	rela = rel_sh.sh_type == SHT_RELA;
	rel_data = elf_getdata(rel, NULL);
	sym_data = elf_getdata(dynsym, NULL);
	if (!rel_data || !sym_data)
		return -EINVAL;

	/* with IBT (.plt.sec) calls go to the second PLT, one entry per function, no header */
	if (section_by_name(elf, ".plt.sec", &sec_sh) && sec_sh.sh_entsize) {
		addr = sec_sh.sh_addr;
		header = 0;
		entry = sec_sh.sh_entsize;
	} else {
		addr = plt_sh.sh_addr;
		/* headers and entries differ in size there: their ABIs' sizes, not sh_entsize */
		switch (eh.e_machine) {
		case EM_ARM:
			header = 20;
			entry = 12;
			break;
		case EM_AARCH64:
			header = 32;
			entry = 16;
			break;
		default:
			header = entry = plt_sh.sh_entsize;
			break;
		}
	}
	if (!entry)
		return -ENOENT;
	addr += header;

	n = rel_sh.sh_size / rel_sh.sh_entsize;
	dso->syms = xrealloc(dso->syms, (dso->nr_syms + n + 1) * sizeof(*dso->syms));
	for (i = 0; i < n; i++, addr += entry) {
		struct data_symbol *s;
		const char *name;
		char *demangled;
		GElf_Sym sym;

		if (!reloc_symbol(rel_data, rela, i, &symidx) ||
		    !gelf_getsym(sym_data, symidx, &sym))
			continue;
		name = elf_strptr(elf, dyn_sh.sh_link, sym.st_name);
		s = &dso->syms[dso->nr_syms];
		memset(s, 0, sizeof(*s));
		s->start = addr;
		s->end = addr + entry;
		demangled = dso_symbol_name(d, name ? name : "");
		s->name = xasprintf("%s@plt", demangled);
		free(demangled);
		s->seq = dso->nr_syms++;
		s->binding = 'g';
		added++;
	}
	return added;
}
