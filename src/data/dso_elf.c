// SPDX-License-Identifier: GPL-2.0-only
/* A binary's functions and load segments from its ELF file, read with libelf. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common.h"
#include "dso.h"

/* The GNU build id note of an open ELF file: its size, 0 if it has none. */
static size_t elf_build_id(Elf *elf, unsigned char *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;
		GElf_Nhdr nhdr;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off))) {
			if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == 4 &&
			    !memcmp((char *)data->d_buf + name_off, "GNU", 4)) {
				size_t n = nhdr.n_descsz < DSO_BUILD_ID_MAX ? nhdr.n_descsz :
					   DSO_BUILD_ID_MAX;

				memcpy(id, (char *)data->d_buf + desc_off, n);
				return n;
			}
		}
	}
	return 0;
}

static bool is_function(const GElf_Sym *sym)
{
	int type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF;
}

static char binding(const GElf_Sym *sym)
{
	int b = GELF_ST_BIND(sym->st_info);

	return b == STB_WEAK ? 'w' : b == STB_GLOBAL ? 'g' : 'l';
}

static void read_symbols(struct data_dsos *d, Elf *elf, Elf_Scn *scn, struct data_dso *dso)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	GElf_Shdr shdr;
	size_t i, n;

	if (!data || !gelf_getshdr(scn, &shdr) || !shdr.sh_entsize)
		return;
	n = shdr.sh_size / shdr.sh_entsize;
	dso->syms = xzalloc((n + 1) * sizeof(*dso->syms));
	for (i = 0; i < n; i++) {
		struct data_symbol *s;
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, i, &sym) || !is_function(&sym))
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s = &dso->syms[dso->nr_syms];
		s->start = sym.st_value;
		s->end = sym.st_value + sym.st_size;
		s->name = dso_symbol_name(d, name);
		s->seq = dso->nr_syms++;
		s->binding = binding(&sym);
	}
	dso_fixup_symbols(dso, false);
}

static void read_segments(Elf *elf, struct data_dso *dso)
{
	size_t i, n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	dso->segs = xzalloc((n + 1) * sizeof(*dso->segs));
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		dso->segs[dso->nr_segs].offset = ph.p_offset;
		dso->segs[dso->nr_segs].vaddr = ph.p_vaddr;
		dso->segs[dso->nr_segs++].size = ph.p_filesz;
	}
}

/* Opens path as ELF if its build id is the recorded one (or none was recorded). */
static Elf *open_matching(const char *path, const struct data_dso *dso, int *fd)
{
	unsigned char id[DSO_BUILD_ID_MAX];
	Elf *elf;

	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF &&
	    (!dso->build_id_size || (elf_build_id(elf, id) == dso->build_id_size &&
				     !memcmp(id, dso->build_id, dso->build_id_size))))
		return elf;
	if (elf)
		elf_end(elf);
	close(*fd);
	*fd = -1;
	return NULL;
}

/*
 * perf record's copy in ~/.debug/.build-id/xx/yyyy.../elf; that of [vdso], which no file
 * holds, is .../vdso there.
 */
static char *build_id_cache_path(const struct data_dso *dso)
{
	const char *home = getenv("HOME");
	char hex[2 * DSO_BUILD_ID_MAX + 1];
	size_t i;

	if (!home || !dso->build_id_size)
		return NULL;
	for (i = 0; i < dso->build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", dso->build_id[i]);
	return xasprintf("%s/.debug/.build-id/%.2s/%s/%s", home, hex, hex + 2,
			 strcmp(dso->name, "[vdso]") ? "elf" : "vdso");
}

/* The first section of type t, NULL if none. */
static Elf_Scn *find_section(Elf *elf, Elf64_Word t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == t)
			return scn;
	return NULL;
}

/*
 * Distributions strip binaries and ship the symbols apart (Debian's -dbg and -dbgsym
 * packages): perf takes .symtab from /usr/lib/debug by build id or by path when there.
 */
static bool load_debug_symbols(struct data_dsos *d, struct data_dso *dso, Elf *binary)
{
	unsigned char id[DSO_BUILD_ID_MAX];
	size_t n = elf_build_id(binary, id), i;
	char hex[2 * DSO_BUILD_ID_MAX + 1], *paths[2];
	bool found = false;
	int k;

	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
	paths[0] = n ? xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2) : NULL;
	paths[1] = xasprintf("/usr/lib/debug%s.debug", dso->name);
	for (k = 0; k < 2 && !found; k++) {
		int fd = paths[k] ? open(paths[k], O_RDONLY | O_CLOEXEC) : -1;
		Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
		Elf_Scn *symtab = elf ? find_section(elf, SHT_SYMTAB) : NULL;

		if (symtab) {
			read_symbols(d, elf, symtab, dso);
			found = true;
		}
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
	}
	free(paths[0]);
	free(paths[1]);
	return found;
}

int dso_load_elf(struct data_dsos *d, struct data_dso *dso)
{
	Elf_Scn *symtab, *dynsym;
	char *cached;
	Elf *elf;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* "[vdso]" is no path: only the cache has it */
	elf = dso->name[0] == '/' ? open_matching(dso->name, dso, &fd) : NULL;
	if (!elf) {
		cached = build_id_cache_path(dso);
		elf = cached ? open_matching(cached, dso, &fd) : NULL;
		free(cached);
	}
	if (!elf) {
		if (!d->quiet)
			pr_err("bperf: %s: %s: its samples stay unresolved", dso->name,
			       access(dso->name, R_OK) ? "not found" :
			       "not the binary recorded (build id differs)");
		return -ENOENT;
	}
	symtab = find_section(elf, SHT_SYMTAB);
	dynsym = find_section(elf, SHT_DYNSYM);
	read_segments(elf, dso);
	if (symtab)
		read_symbols(d, elf, symtab, dso);
	else if (!load_debug_symbols(d, dso, elf) && dynsym)
		read_symbols(d, elf, dynsym, dso);
	/*
	 * As perf, only for binaries with functions, and after the others' sizes are set: a
	 * sizeless one before the PLT (_init) keeps its room, where the entries come first.
	 */
	if (dso->nr_syms && dso_add_plt_symbols(d, elf, dso) > 0)
		dso_fixup_symbols(dso, false);
	elf_end(elf);
	close(fd);
	return 0;
}
