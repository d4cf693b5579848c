// SPDX-License-Identifier: GPL-2.0-only
/*
 * A binary's symbols from its ELF file, read with libelf, into perf 6.1's symbol tree as perf
 * puts them there: the .symtab (of the binary, else of its debug file) and then the .dynsym,
 * functions, objects and labels, at their file offsets, each table's sizeless symbols then
 * stretched to the next and its duplicates dropped; then the PLT entries (dso_plt.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
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

/* An ELF file open for reading, with what perf's symbol loading looks at. */
struct elf_file {
	Elf *elf;
	int fd;
	Elf_Scn *symtab, *dynsym;	/* by name and type, as perf finds them */
};

/* The section called name, if it has that type (perf looks for its symbol tables so) */
static Elf_Scn *section_by_name(Elf *elf, const char *name, Elf64_Word type)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = dso_elf_section(elf, name, &shdr, NULL);

	return scn && shdr.sh_type == type ? scn : NULL;
}

static void elf_file_close(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

static bool elf_file_open(struct elf_file *f, const char *path)
{
	memset(f, 0, sizeof(*f));
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd >= 0)
		f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		elf_file_close(f);
		return false;
	}
	f->symtab = section_by_name(f->elf, ".symtab", SHT_SYMTAB);
	f->dynsym = section_by_name(f->elf, ".dynsym", SHT_DYNSYM);
	return true;
}

/* The symbols perf keeps: functions, objects and labels, defined, named. */
static bool wanted(const GElf_Sym *sym, bool *label)
{
	int type = GELF_ST_TYPE(sym->st_info), vis = GELF_ST_VISIBILITY(sym->st_other);

	if (!sym->st_name || sym->st_shndx == SHN_UNDEF)
		return false;
	*label = type == STT_NOTYPE && sym->st_shndx != SHN_ABS && vis != STV_HIDDEN &&
		 vis != STV_INTERNAL;
	return *label || type == STT_FUNC || type == STT_GNU_IFUNC || type == STT_OBJECT;
}

static char binding(const GElf_Sym *sym)
{
	int b = GELF_ST_BIND(sym->st_info);

	return b == STB_WEAK ? 'w' : b == STB_GLOBAL ? 'g' : 'l';
}

/* ARM's mapping symbols ($a, $d, $t, $x) mark code and data, not functions. */
static bool arm_mapping_symbol(const GElf_Ehdr *eh, const char *name)
{
	return (eh->e_machine == EM_ARM || eh->e_machine == EM_AARCH64) && name[0] == '$' &&
	       name[1] && strchr("adtx", name[1]) && (!name[2] || name[2] == '.');
}

/*
 * Where perf puts a symbol: its file offset, by the load segment of the running binary that
 * holds its address, else by its section.
 */
static __u64 file_offset(Elf *runtime, __u64 value, const GElf_Shdr *sec)
{
	size_t i, n;
	GElf_Phdr ph;

	if (!elf_getphdrnum(runtime, &n)) {
		for (i = 0; i < n; i++) {
			__u64 size;

			if (!gelf_getphdr(runtime, i, &ph))
				break;
			size = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
			if (ph.p_type == PT_LOAD && size && value >= ph.p_vaddr &&
			    value < ph.p_vaddr + size)
				return value - (ph.p_vaddr - ph.p_offset);
		}
	}
	return value - (sec->sh_addr - sec->sh_offset);
}

/* A section's name contains "text" or "data": perf keeps the labels there. */
static bool text_or_data(Elf *elf, const GElf_Shdr *sec)
{
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	name = elf_strptr(elf, shstrndx, sec->sh_name);
	return name && (strstr(name, "text") || strstr(name, "data"));
}

/*
 * One of perf's passes over a symbol table (syms's .symtab or .dynsym; runtime is the binary
 * that runs): each symbol it keeps goes into the tree in table order, then the sizeless ones
 * get their ends and duplicates go. How many were added, or -EINVAL where perf gives up (a
 * symbol in no section): those added stay, without the fix-ups.
 */
static int read_symbols(struct data_dsos *d, struct data_dso *dso, struct elf_file *syms,
			Elf_Scn *table, struct elf_file *runtime)
{
	Elf_Data *data = elf_getdata(table, NULL);
	GElf_Shdr shdr;
	GElf_Ehdr eh;
	size_t i, n;
	int added = 0;

	if (!data || !gelf_getshdr(table, &shdr) || !shdr.sh_entsize ||
	    !gelf_getehdr(syms->elf, &eh))
		return 0;
	n = shdr.sh_size / shdr.sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Shdr sec;
		Elf_Scn *scn;
		Elf *sec_elf = syms->elf;
		const char *name;
		GElf_Sym sym;
		bool label;

		if (!gelf_getsym(data, i, &sym) || !wanted(&sym, &label))
			continue;
		name = elf_strptr(syms->elf, shdr.sh_link, sym.st_name);
		if (!name || arm_mapping_symbol(&eh, name) || sym.st_shndx == SHN_ABS)
			continue;
		scn = elf_getscn(syms->elf, sym.st_shndx);
		if (!scn || !gelf_getshdr(scn, &sec))
			return -EINVAL;
		if (!(sec.sh_flags & SHF_ALLOC))
			continue;
		/* a debug file's sections are empty (NOBITS): the binary's say where they are */
		if (sec.sh_type == SHT_NOBITS) {
			scn = elf_getscn(runtime->elf, sym.st_shndx);
			if (!scn || !gelf_getshdr(scn, &sec))
				return -EINVAL;
			sec_elf = runtime->elf;
		}
		if (label && !text_or_data(sec_elf, &sec))
			continue;
		symtree_add(dso, file_offset(runtime->elf, sym.st_value, &sec), sym.st_size,
			    dso_symbol_name(d, name), binding(&sym));
		added++;
	}
	if (added) {
		symtree_fixup_end(dso);
		symtree_fixup_duplicate(dso);
	}
	return added;
}

/* perf's symbols of a binary: the .symtab and then the .dynsym of the file that has them. */
static int load_symbols(struct data_dsos *d, struct data_dso *dso, struct elf_file *syms,
			struct elf_file *runtime)
{
	int n = 0, ret;

	if (syms->symtab) {
		n = read_symbols(d, dso, syms, syms->symtab, runtime);
		if (n < 0)
			return n;
	}
	if (syms->dynsym) {
		ret = read_symbols(d, dso, syms, syms->dynsym, runtime);
		if (ret < 0)
			return ret;
		n += ret;
	}
	return n;
}

/* Opens path as ELF if its build id is the recorded one (or none was recorded). */
static bool open_matching(struct elf_file *f, const char *path, const struct data_dso *dso)
{
	unsigned char id[DSO_BUILD_ID_MAX];

	if (!elf_file_open(f, path))
		return false;
	if (!dso->build_id_size || (elf_build_id(f->elf, id) == dso->build_id_size &&
				    !memcmp(id, dso->build_id, dso->build_id_size)))
		return true;
	elf_file_close(f);
	return false;
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

/*
 * Distributions strip binaries and ship the symbols apart (Debian's -dbg and -dbgsym
 * packages): perf takes .symtab from /usr/lib/debug by build id or by path when there.
 */
static bool open_debug_file(struct elf_file *f, const struct data_dso *dso, Elf *binary)
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
		found = paths[k] && elf_file_open(f, paths[k]) && f->symtab;
		if (!found)
			elf_file_close(f);
	}
	free(paths[0]);
	free(paths[1]);
	return found;
}

int dso_load_elf(struct data_dsos *d, struct data_dso *dso)
{
	struct elf_file binary, debug = { .fd = -1 };
	char *cached;
	bool opened;
	int n;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	/* "[vdso]" is no path: only the cache has it */
	opened = dso->name[0] == '/' && open_matching(&binary, dso->name, dso);
	if (!opened) {
		cached = build_id_cache_path(dso);
		opened = cached && open_matching(&binary, cached, dso);
		free(cached);
	}
	if (!opened) {
		if (!d->quiet)
			pr_err("bperf: %s: %s: its samples stay unresolved", dso->name,
			       access(dso->name, R_OK) ? "not found" :
			       "not the binary recorded (build id differs)");
		return -ENOENT;
	}
	dso->tree = true;
	/* a stripped binary's debug file (its .dynsym is NOBITS there: not read) */
	if (!binary.symtab && open_debug_file(&debug, dso, binary.elf)) {
		n = load_symbols(d, dso, &debug, &binary);
	} else {
		n = load_symbols(d, dso, &binary, &binary);
	}
	/* as perf, only for binaries with symbols, and after the others' ends are set */
	if (n > 0)
		dso_add_plt_symbols(d, binary.elf, dso);
	elf_file_close(&debug);
	elf_file_close(&binary);
	return 0;
}
