#define _GNU_SOURCE /* qsort_r */
#include "elfobj.h"
#include "util.h"

#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
const uint16_t elfobj_host_machine = EM_X86_64;
const int elfobj_host_class = ELFCLASS64;
#elif defined(__aarch64__)
const uint16_t elfobj_host_machine = EM_AARCH64;
const int elfobj_host_class = ELFCLASS64;
#elif defined(__i386__)
const uint16_t elfobj_host_machine = EM_386;
const int elfobj_host_class = ELFCLASS32;
#else
#error "set the host ELF machine for this architecture"
#endif

static bool elf_library_ready;

/* Names to the first index of each, and each index to the next one of the
   same name: the names point into the image, which outlives the table. */
struct name_index {
	bool built;
	struct strmap first;
	uint32_t *next;
};

struct elf_index {
	struct name_index sections, symbols;
	bool functions_built;
	const struct elf_symbol **functions; /* by (section in a relocatable object, address) */
	size_t function_count;
};

bool elfobj_is_elf(const void *data, size_t size)
{
	return size >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0;
}

static char *libelf_failure(const char *call)
{
	return xasprintf("cannot read ELF: %s failed: %s", call, elf_errmsg(-1));
}

static const char *machine_name(unsigned machine)
{
	switch (machine) {
	case EM_386: return "i386";
	case EM_X86_64: return "x86-64";
	case EM_AARCH64: return "aarch64";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390";
	default: return NULL;
	}
}

/* Fills version names of a shared library's dynamic symbols. */
static void read_versions(struct elf_object *obj, Elf *elf)
{
	Elf_Scn *scn = NULL;
	Elf_Data *versym = NULL;
	const char **names = NULL;
	size_t name_count = 0, i;

	for (i = 1; i < obj->section_count; i++) {
		struct elf_section *s = &obj->sections[i];
		Elf_Data *d;
		GElf_Off off = 0;
		size_t guard;

		scn = elf_getscn(elf, i);
		if (!scn)
			continue;
		if (s->type == SHT_GNU_versym) {
			versym = elf_getdata(scn, NULL);
			continue;
		}
		if (s->type != SHT_GNU_verdef && s->type != SHT_GNU_verneed)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		for (guard = 0; guard < 65536; guard++) {
			if (s->type == SHT_GNU_verdef) {
				GElf_Verdef def;
				GElf_Verdaux aux;

				if (!gelf_getverdef(d, off, &def))
					break;
				if (gelf_getverdaux(d, off + def.vd_aux, &aux)) {
					const char *n = elf_strptr(elf, s->link, aux.vda_name);

					if (n && def.vd_ndx >= name_count) {
						size_t old = name_count;

						name_count = def.vd_ndx + 1;
						names = xrealloc(names, name_count * sizeof(*names));
						memset(names + old, 0, (name_count - old) * sizeof(*names));
					}
					if (n)
						names[def.vd_ndx] = n;
				}
				if (!def.vd_next)
					break;
				off += def.vd_next;
			} else {
				GElf_Verneed need;
				GElf_Off aoff;
				unsigned j;

				if (!gelf_getverneed(d, off, &need))
					break;
				aoff = off + need.vn_aux;
				for (j = 0; j < need.vn_cnt && j < 65536; j++) {
					GElf_Vernaux aux;
					const char *n;
					unsigned idx;

					if (!gelf_getvernaux(d, aoff, &aux))
						break;
					idx = aux.vna_other & 0x7fff;
					n = elf_strptr(elf, s->link, aux.vna_name);
					if (n && idx >= name_count) {
						size_t old = name_count;

						name_count = idx + 1;
						names = xrealloc(names, name_count * sizeof(*names));
						memset(names + old, 0, (name_count - old) * sizeof(*names));
					}
					if (n)
						names[idx] = n;
					if (!aux.vna_next)
						break;
					aoff += aux.vna_next;
				}
				if (!need.vn_next)
					break;
				off += need.vn_next;
			}
		}
	}
	if (versym) {
		for (i = 0; i < obj->symbol_count; i++) {
			GElf_Versym v;
			unsigned idx;

			if (!gelf_getversym(versym, (int)i, &v))
				break;
			idx = v & 0x7fff;
			if (idx > 1 && idx < name_count && names[idx]) {
				obj->symbols[i].version = names[idx];
				obj->symbols[i].version_hidden = (v & 0x8000) != 0;
			}
		}
	}
	free(names);
}

/* The section of a linked file that holds symbol's value (one that ends
   at it, for a symbol placed at a section's end); a thread-local symbol's
   value is an offset from the first thread-local section.  SHN_ABS when
   none does. */
static uint32_t section_at(const struct elf_object *obj, const struct elf_symbol *symbol)
{
	uint64_t address = symbol->value, flags = SHF_ALLOC;
	size_t i;
	int pass;

	if (symbol->type == STT_TLS) {
		flags |= SHF_TLS;
		for (i = 1; i < obj->section_count; i++) {
			if (obj->sections[i].flags & SHF_TLS) {
				address += obj->sections[i].address;
				break;
			}
		}
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 1; i < obj->section_count; i++) {
			const struct elf_section *sec = &obj->sections[i];

			if ((sec->flags & flags) != flags || address < sec->address)
				continue;
			if (pass ? address - sec->address == sec->size : address - sec->address < sec->size)
				return i;
		}
	}
	return SHN_ABS;
}

static int read_symbols(struct elf_object *obj, Elf *elf, uint32_t symtab, char **why)
{
	struct elf_section *s = &obj->sections[symtab];
	Elf_Scn *scn = elf_getscn(elf, symtab);
	Elf_Data *data, *xdata = NULL;
	size_t count, i;

	if (!scn || !(data = elf_getdata(scn, NULL))) {
		*why = libelf_failure("elf_getdata (symbol table)");
		return -1;
	}
	for (i = 1; i < obj->section_count; i++) {
		if (obj->sections[i].type == SHT_SYMTAB_SHNDX && obj->sections[i].link == symtab) {
			Elf_Scn *x = elf_getscn(elf, i);

			xdata = x ? elf_getdata(x, NULL) : NULL;
		}
	}
	count = data->d_size / gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	obj->symbols = xcalloc(count, sizeof(*obj->symbols));
	obj->symbol_count = count;
	obj->first_global = s->info <= count ? s->info : count;
	for (i = 0; i < count; i++) {
		struct elf_symbol *sym = &obj->symbols[i];
		GElf_Sym gs;
		Elf32_Word xndx = 0;
		const char *name;

		if (!gelf_getsymshndx(data, xdata, (int)i, &gs, &xndx)) {
			*why = libelf_failure("gelf_getsym");
			return -1;
		}
		name = elf_strptr(elf, s->link, gs.st_name);
		if (!name) {
			*why = xasprintf("cannot read ELF: symbol %zu has a bad name offset", i);
			return -1;
		}
		sym->name = name;
		sym->value = gs.st_value;
		sym->size = gs.st_size;
		sym->shndx = gs.st_shndx == SHN_XINDEX ? xndx : gs.st_shndx;
		sym->bind = GELF_ST_BIND(gs.st_info);
		sym->type = GELF_ST_TYPE(gs.st_info);
		sym->visibility = GELF_ST_VISIBILITY(gs.st_other);
		if (sym->shndx != SHN_UNDEF && sym->shndx < SHN_LORESERVE && sym->shndx >= obj->section_count) {
			/* strip leaves the dynamic symbols of a link made with
			   --emit-relocs naming the sections it removed; the loader
			   reads their values, never their sections: the section
			   that holds the address stands for it */
			if (s->type == SHT_DYNSYM) {
				sym->shndx = section_at(obj, sym);
				continue;
			}
			*why = xasprintf("cannot read ELF: symbol '%s' names section %u of %zu", name, sym->shndx, obj->section_count);
			return -1;
		}
	}
	return 0;
}

/* Refuses other machines and classes, and files of the wrong type: for a
   link (linked false) or for resolving addresses (linked true). */
static int check_kind(int elf_class, const GElf_Ehdr *eh, bool linked, char **why)
{
	const char *mname;

	if (elf_class != elfobj_host_class || eh->e_machine != elfobj_host_machine) {
		mname = machine_name(eh->e_machine);
		if (mname)
			*why = xasprintf("wrong target: ELF file for %s (%d-bit), not for this %s-bit %s link",
					 mname, elf_class == ELFCLASS32 ? 32 : 64,
					 elfobj_host_class == ELFCLASS32 ? "32" : "64",
					 machine_name(elfobj_host_machine));
		else
			*why = xasprintf("wrong target: ELF file for machine %u (%d-bit), not for this %s-bit %s link",
					 eh->e_machine, elf_class == ELFCLASS32 ? 32 : 64,
					 elfobj_host_class == ELFCLASS32 ? "32" : "64",
					 machine_name(elfobj_host_machine));
		return -1;
	}
	if (linked && eh->e_type != ET_EXEC && eh->e_type != ET_DYN) {
		*why = xstrdup("cannot resolve: not an executable or shared library");
		return -1;
	}
	if (!linked && eh->e_type != ET_REL && eh->e_type != ET_DYN) {
		*why = xstrdup(eh->e_type == ET_EXEC ? "cannot link: it is an executable, not an object or shared library"
				: "cannot link: not a relocatable object or shared library");
		return -1;
	}
	return 0;
}

static int check_section_table(Elf *elf, const GElf_Ehdr *eh, size_t size, char **why)
{
	/* libelf reads a cut section header table as no sections at all. */
	if (eh->e_shoff > size || (eh->e_shnum && eh->e_shentsize < gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT)) ||
	    (uint64_t)eh->e_shnum * eh->e_shentsize > size - eh->e_shoff) {
		*why = xstrdup("cannot read ELF: the section header table extends past the end of the file (truncated?)");
		return -1;
	}
	if (eh->e_shoff == 0 || (eh->e_shnum == 0 && eh->e_shentsize == 0)) {
		*why = xstrdup("cannot read ELF: no section header table");
		return -1;
	}
	return 0;
}

static int open_elf(struct elf_object *obj, const char *name, void *data, size_t size, char **why, bool linked);

int elfobj_open(struct elf_object *obj, const char *name, void *data, size_t size, char **why)
{
	return open_elf(obj, name, data, size, why, false);
}

int elfobj_open_linked(struct elf_object *obj, const char *name, void *data, size_t size, char **why)
{
	return open_elf(obj, name, data, size, why, true);
}

/* The header checks: an ELF file libelf reads, for this machine and of a
   kind the caller takes, whose section table lies inside the file. */
static int open_header(struct elf_object *obj, void *data, size_t size, bool linked, GElf_Ehdr *eh, char **why)
{
	if (!elf_library_ready) {
		if (elf_version(EV_CURRENT) == EV_NONE) {
			*why = libelf_failure("elf_version");
			return -1;
		}
		elf_library_ready = true;
	}
	if (!elfobj_is_elf(data, size)) {
		*why = xstrdup("not an ELF file");
		return -1;
	}
	obj->elf = elf_memory(data, size);
	if (!obj->elf) {
		*why = libelf_failure("elf_memory");
		return -1;
	}
	obj->image = data;
	obj->image_size = size;
	if (elf_kind(obj->elf) != ELF_K_ELF || !gelf_getehdr(obj->elf, eh)) {
		*why = xasprintf("cannot read ELF: not a valid ELF file (%s)", elf_errmsg(-1));
		return -1;
	}
	obj->elf_class = gelf_getclass(obj->elf);
	obj->type = eh->e_type;
	obj->machine = eh->e_machine;
	obj->entry = eh->e_entry;
	if (check_kind(obj->elf_class, eh, linked, why) < 0)
		return -1;
	return check_section_table(obj->elf, eh, size, why);
}

/* Reads the section headers into obj->sections; *symtab gets the symbol
   table to read (0: none). */
static int read_sections(struct elf_object *obj, const GElf_Ehdr *eh, bool linked, uint32_t *symtab, char **why)
{
	Elf *elf = obj->elf;
	size_t shnum, shstrndx, i;

	if (elf_getshdrnum(elf, &shnum) != 0) {
		*why = libelf_failure("elf_getshdrnum");
		return -1;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		*why = libelf_failure("elf_getshdrstrndx");
		return -1;
	}
	obj->sections = xcalloc(shnum ? shnum : 1, sizeof(*obj->sections));
	obj->section_count = shnum;
	*symtab = 0;
	for (i = 1; i < shnum; i++) {
		struct elf_section *s = &obj->sections[i];
		Elf_Scn *scn = elf_getscn(elf, i);
		GElf_Shdr sh;

		if (!scn || !gelf_getshdr(scn, &sh)) {
			*why = libelf_failure("gelf_getshdr");
			return -1;
		}
		s->name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!s->name) {
			*why = xasprintf("cannot read ELF: section %zu has a bad name offset", i);
			return -1;
		}
		s->index = i;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->size = sh.sh_size;
		s->addralign = sh.sh_addralign;
		s->offset = sh.sh_offset;
		s->address = sh.sh_addr;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL &&
		    (sh.sh_offset > obj->image_size || sh.sh_size > obj->image_size - sh.sh_offset)) {
			*why = xasprintf("cannot read ELF: section '%s' extends past the end of the file (truncated?)", s->name);
			return -1;
		}
		if ((eh->e_type == ET_REL && sh.sh_type == SHT_SYMTAB) ||
		    (!linked && eh->e_type == ET_DYN && sh.sh_type == SHT_DYNSYM))
			*symtab = i;
		/* A linked image: its full symbol table, or the dynamic one. */
		if (linked && (sh.sh_type == SHT_SYMTAB || (sh.sh_type == SHT_DYNSYM && !*symtab)))
			*symtab = i;
	}
	return 0;
}

/* Marks the members of every section group with the group's index. */
static int read_groups(struct elf_object *obj, char **why)
{
	size_t shnum = obj->section_count, i;

	for (i = 1; i < shnum; i++) {
		struct elf_section *s = &obj->sections[i];
		Elf_Data *d;
		size_t n, k;

		if (s->type != SHT_GROUP)
			continue;
		d = elf_getdata(elf_getscn(obj->elf, i), NULL);
		if (!d || d->d_size < 4) {
			*why = xasprintf("cannot read ELF: group section '%s' is unreadable", s->name);
			return -1;
		}
		n = d->d_size / 4;
		memcpy(&s->group_flags, d->d_buf, 4);
		for (k = 1; k < n; k++) {
			uint32_t member;

			memcpy(&member, (char *)d->d_buf + 4 * k, 4);
			if (member == 0 || member >= shnum) {
				*why = xasprintf("cannot read ELF: group section '%s' names section %u of %zu", s->name, member, shnum);
				return -1;
			}
			obj->sections[member].group = i;
		}
	}
	return 0;
}

/* DT_SONAME of a shared object, into obj->soname. */
static void read_soname(struct elf_object *obj)
{
	size_t i, k;

	for (i = 1; i < obj->section_count; i++) {
		Elf_Data *d;
		GElf_Dyn dyn;

		if (obj->sections[i].type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(elf_getscn(obj->elf, i), NULL);
		for (k = 0; d && gelf_getdyn(d, (int)k, &dyn); k++) {
			if (dyn.d_tag == DT_NULL)
				break;
			if (dyn.d_tag == DT_SONAME)
				obj->soname = elf_strptr(obj->elf, obj->sections[i].link, dyn.d_un.d_val);
		}
	}
}

static bool is_lto_only(const struct elf_object *obj)
{
	size_t i;

	for (i = obj->first_global; i < obj->symbol_count; i++)
		if (strcmp(obj->symbols[i].name, "__gnu_lto_slim") == 0)
			return true;
	return false;
}

static int open_elf(struct elf_object *obj, const char *name, void *data, size_t size, char **why, bool linked)
{
	GElf_Ehdr eh;
	uint32_t symtab;

	memset(obj, 0, sizeof(*obj));
	obj->name = name;
	obj->index = xcalloc(1, sizeof(*obj->index));
	*why = NULL;
	if (open_header(obj, data, size, linked, &eh, why) < 0 || read_sections(obj, &eh, linked, &symtab, why) < 0 ||
	    read_groups(obj, why) < 0)
		goto fail;
	if (symtab) {
		if (obj->sections[symtab].link >= obj->section_count) {
			*why = xstrdup("cannot read ELF: the symbol table links to a missing string table");
			goto fail;
		}
		if (read_symbols(obj, obj->elf, symtab, why) < 0)
			goto fail;
	}
	if (eh.e_type == ET_REL && !linked) {
		if (is_lto_only(obj)) {
			*why = xstrdup("cannot order: LTO-only object (GIMPLE bytecode, no machine code); "
				       "rebuild it with -ffat-lto-objects");
			goto fail;
		}
		return 0;
	}
	if (!linked || (symtab && obj->sections[symtab].type == SHT_DYNSYM))
		read_versions(obj, obj->elf);
	read_soname(obj);
	return 0;
fail:
	elfobj_close(obj);
	return -1;
}

int elfobj_load_relocs(struct elf_object *obj, char **why)
{
	Elf *elf = obj->elf;
	size_t i;

	*why = NULL;
	if (obj->relocs_loaded)
		return 0;
	obj->relocs_loaded = true;
	for (i = 1; i < obj->section_count; i++) {
		struct elf_section *rs = &obj->sections[i], *target;
		Elf_Data *d;
		size_t count, k, entsize;
		bool rela = rs->type == SHT_RELA;

		if (rs->type != SHT_RELA && rs->type != SHT_REL)
			continue;
		if (rs->info == 0 || rs->info >= obj->section_count)
			continue;
		target = &obj->sections[rs->info];
		d = elf_getdata(elf_getscn(elf, i), NULL);
		if (!d) {
			*why = libelf_failure("elf_getdata (relocations)");
			return -1;
		}
		entsize = gelf_fsize(elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
		count = entsize ? d->d_size / entsize : 0;
		target->relocs = xrealloc(target->relocs, (target->reloc_count + count) * sizeof(*target->relocs));
		for (k = 0; k < count; k++) {
			struct elf_reloc *r = &target->relocs[target->reloc_count];
			GElf_Rela ra;
			GElf_Rel rl;

			if (rela) {
				if (!gelf_getrela(d, (int)k, &ra))
					goto bad;
			} else {
				if (!gelf_getrel(d, (int)k, &rl))
					goto bad;
				ra.r_offset = rl.r_offset;
				ra.r_info = rl.r_info;
				ra.r_addend = 0;
			}
			r->offset = ra.r_offset;
			r->symbol = GELF_R_SYM(ra.r_info);
			r->type = GELF_R_TYPE(ra.r_info);
			r->addend = ra.r_addend;
			if (r->symbol >= obj->symbol_count) {
				*why = xasprintf("cannot read ELF: a relocation in '%s' names symbol %u of %zu",
						 rs->name, r->symbol, obj->symbol_count);
				return -1;
			}
			target->reloc_count++;
		}
	}
	return 0;
bad:
	*why = libelf_failure("gelf_getrela");
	return -1;
}

struct elf_segment *elfobj_segments(const struct elf_object *obj, size_t *count, uint64_t *table_offset,
				    uint64_t *table_size, char **why)
{
	struct elf_segment *segments;
	GElf_Ehdr eh;
	size_t n, i;

	*count = 0;
	*why = NULL;
	if (!gelf_getehdr(obj->elf, &eh)) {
		*why = libelf_failure("gelf_getehdr");
		return NULL;
	}
	if (elf_getphdrnum(obj->elf, &n) < 0) {
		*why = libelf_failure("elf_getphdrnum");
		return NULL;
	}
	*table_offset = eh.e_phoff;
	*table_size = (uint64_t)n * eh.e_phentsize;
	if (!n)
		return NULL;
	segments = xcalloc(n, sizeof(*segments));
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(obj->elf, i, &ph)) {
			*why = libelf_failure("gelf_getphdr");
			free(segments);
			return NULL;
		}
		if (ph.p_type == PT_LOAD && (ph.p_offset > obj->image_size || ph.p_filesz > obj->image_size - ph.p_offset)) {
			*why = xasprintf("cannot read ELF: program header %zu maps bytes past the end of the file (truncated?)",
					 i);
			free(segments);
			return NULL;
		}
		if (ph.p_type == PT_LOAD && ph.p_filesz > ph.p_memsz) {
			*why = xasprintf("cannot read ELF: load segment %zu holds more of the file than of memory", i);
			free(segments);
			return NULL;
		}
		segments[i].type = ph.p_type;
		segments[i].flags = ph.p_flags;
		segments[i].offset = ph.p_offset;
		segments[i].address = ph.p_vaddr;
		segments[i].file_size = ph.p_filesz;
		segments[i].memory_size = ph.p_memsz;
		segments[i].align = ph.p_align;
	}
	*count = n;
	return segments;
}

bool elfobj_build_id_place(const struct elf_object *obj, uint64_t *offset, size_t *size)
{
	size_t i;

	for (i = 1; i < obj->section_count; i++) {
		const struct elf_section *s = &obj->sections[i];
		const unsigned char *p;
		uint64_t off = 0;

		/* The offset of a NOBITS or NULL section was never checked
		   against the file: it may point anywhere. */
		if (s->type != SHT_NOTE)
			continue;
		p = obj->image + s->offset;
		while (off + 12 <= s->size) {
			uint32_t namesz, descsz, type;

			memcpy(&namesz, p + off, 4);
			memcpy(&descsz, p + off + 4, 4);
			memcpy(&type, p + off + 8, 4);
			off += 12;
			if (namesz > s->size || descsz > s->size || off + ((namesz + 3) & ~3u) + descsz > s->size)
				break;
			if (type == NT_GNU_BUILD_ID && namesz == 4 && !memcmp(p + off, "GNU", 4) && descsz) {
				*offset = s->offset + off + 4;
				*size = descsz;
				return true;
			}
			off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
		}
	}
	return false;
}

bool elfobj_build_id(const struct elf_object *obj, char *hex, size_t hex_size)
{
	uint64_t offset;
	size_t size, k;

	if (!elfobj_build_id_place(obj, &offset, &size) || size * 2 + 1 > hex_size)
		return false;
	for (k = 0; k < size; k++)
		snprintf(hex + 2 * k, 3, "%02x", obj->image[offset + k]);
	return true;
}

int elfobj_check_linked(void *elf, char **why)
{
	GElf_Ehdr eh;
	size_t size;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		*why = xasprintf("cannot read ELF: not a valid ELF file (%s)", elf_errmsg(-1));
		return -1;
	}
	if (check_kind(gelf_getclass(elf), &eh, true, why) < 0)
		return -1;
	if (!elf_rawfile(elf, &size)) {
		*why = libelf_failure("elf_rawfile");
		return -1;
	}
	return check_section_table(elf, &eh, size, why);
}

const char *elfobj_section_name(void *elf, size_t index)
{
	Elf_Scn *scn = elf_getscn(elf, index);
	size_t shstrndx;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	return elf_strptr(elf, shstrndx, sh.sh_name);
}


static void name_index_build(struct name_index *x, size_t count, const char *(*name_of)(const struct elf_object *, size_t),
			     const struct elf_object *obj)
{
	size_t i;

	x->built = true;
	x->next = xcalloc(count ? count : 1, sizeof(*x->next));
	/* From the end, so that each chain runs in table order. */
	for (i = count; i-- > 1;) {
		void **slot = strmap_slot(&x->first, name_of(obj, i));

		x->next[i] = (uint32_t)(uintptr_t)*slot;
		*slot = (void *)(uintptr_t)i;
	}
}

static void name_index_free(struct name_index *x)
{
	strmap_free(&x->first);
	free(x->next);
}

static const char *section_name(const struct elf_object *obj, size_t i)
{
	return obj->sections[i].name;
}

static const char *symbol_name(const struct elf_object *obj, size_t i)
{
	return obj->symbols[i].name;
}

uint32_t elfobj_section_by_name(const struct elf_object *obj, const char *name)
{
	struct name_index *x = &obj->index->sections;

	if (!x->built)
		name_index_build(x, obj->section_count, section_name, obj);
	return (uint32_t)(uintptr_t)strmap_get(&x->first, name);
}

uint32_t elfobj_section_next_named(const struct elf_object *obj, uint32_t section)
{
	struct name_index *x = &obj->index->sections;

	if (!x->built)
		name_index_build(x, obj->section_count, section_name, obj);
	return section < obj->section_count ? x->next[section] : 0;
}

uint32_t elfobj_symbol_by_name(const struct elf_object *obj, const char *name)
{
	struct name_index *x = &obj->index->symbols;

	if (!x->built)
		name_index_build(x, obj->symbol_count, symbol_name, obj);
	return (uint32_t)(uintptr_t)strmap_get(&x->first, name);
}

uint32_t elfobj_symbol_next_named(const struct elf_object *obj, uint32_t symbol)
{
	struct name_index *x = &obj->index->symbols;

	if (!x->built)
		name_index_build(x, obj->symbol_count, symbol_name, obj);
	return symbol < obj->symbol_count ? x->next[symbol] : 0;
}

/* Functions sort by (key section, address): the section counts only in a
   relocatable object, where every section starts at 0. */
static uint32_t key_section(const struct elf_object *obj, uint32_t section)
{
	return obj->type == ET_REL ? section : 0;
}

static int compare_key(const struct elf_object *obj, const struct elf_symbol *sym, uint32_t section, uint64_t address)
{
	uint32_t s = key_section(obj, sym->shndx);

	if (s != section)
		return s < section ? -1 : 1;
	return sym->value < address ? -1 : sym->value > address;
}

static int by_function_key(const void *a, const void *b, void *context)
{
	const struct elf_object *obj = context;
	const struct elf_symbol *x = *(const struct elf_symbol *const *)a, *y = *(const struct elf_symbol *const *)b;
	int c = compare_key(obj, x, key_section(obj, y->shndx), y->value);

	if (c)
		return c;
	/* Among aliases, a global name first: it is the one orders use. */
	if ((x->bind == STB_LOCAL) != (y->bind == STB_LOCAL))
		return x->bind == STB_LOCAL ? 1 : -1;
	return x < y ? -1 : 1;
}

static const struct elf_index *functions_built(const struct elf_object *obj)
{
	struct elf_index *x = obj->index;
	size_t i;

	if (x->functions_built)
		return x;
	x->functions_built = true;
	x->functions = xcalloc(obj->symbol_count ? obj->symbol_count : 1, sizeof(*x->functions));
	for (i = 0; i < obj->symbol_count; i++) {
		const struct elf_symbol *sym = &obj->symbols[i];

		if ((sym->type == STT_FUNC || sym->type == STT_GNU_IFUNC) && sym->shndx != SHN_UNDEF &&
		    sym->shndx < SHN_LORESERVE)
			x->functions[x->function_count++] = sym;
	}
	qsort_r(x->functions, x->function_count, sizeof(*x->functions), by_function_key, (void *)obj);
	return x;
}

/* Position of the first function at or above (section, address), or with
   past, above it. */
static size_t bound(const struct elf_object *obj, const struct elf_index *x, uint32_t section, uint64_t address,
		    bool past)
{
	size_t lo = 0, hi = x->function_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = compare_key(obj, x->functions[mid], section, address);

		if (c < 0 || (past && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct elf_symbol *const *elfobj_functions_at(const struct elf_object *obj, uint32_t section, uint64_t address,
						    size_t *count)
{
	const struct elf_index *x = functions_built(obj);
	size_t first, end;

	section = key_section(obj, section);
	first = bound(obj, x, section, address, false);
	for (end = first; end < x->function_count && !compare_key(obj, x->functions[end], section, address); end++)
		;
	*count = end - first;
	return end > first ? &x->functions[first] : NULL;
}

const struct elf_symbol *elfobj_function_at(const struct elf_object *obj, uint32_t section, uint64_t address)
{
	size_t count;
	const struct elf_symbol *const *at = elfobj_functions_at(obj, section, address, &count);

	return at ? at[0] : NULL;
}

const struct elf_symbol *elfobj_function_containing(const struct elf_object *obj, uint32_t section,
						    uint64_t address)
{
	const struct elf_index *x = functions_built(obj);
	size_t k;

	section = key_section(obj, section);
	/* From the last function at or below address, back while one of
	   them could still reach it. */
	for (k = bound(obj, x, section, address, true); k-- > 0;) {
		const struct elf_symbol *sym = x->functions[k];

		if (key_section(obj, sym->shndx) != section)
			break;
		if (address < sym->value + (sym->size ? sym->size : 1))
			return sym;
		if (sym->value < address && sym->size)
			break;
	}
	return NULL;
}

int elfobj_find_section(const void *image, size_t size, const char *name, const void **contents,
			size_t *contents_size, char **why)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int status = 0;

	*contents = NULL;
	*contents_size = 0;
	*why = NULL;
	if (!elf_library_ready) {
		if (elf_version(EV_CURRENT) == EV_NONE) {
			*why = libelf_failure("elf_version");
			return -1;
		}
		elf_library_ready = true;
	}
	if (!elfobj_is_elf(image, size)) {
		*why = xstrdup("not an ELF file");
		return -1;
	}
	elf = elf_memory((char *)image, size);
	if (!elf) {
		*why = libelf_failure("elf_memory");
		return -1;
	}
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
		*why = libelf_failure("elf_getshdrstrndx");
		elf_end(elf);
		return -1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (!gelf_getshdr(scn, &sh)) {
			*why = libelf_failure("gelf_getshdr");
			status = -1;
			break;
		}
		n = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!n || strcmp(n, name) != 0 || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset) {
			*why = xasprintf("cannot read ELF: section '%s' extends past the end of the file (truncated?)", name);
			status = -1;
		} else {
			*contents = (const char *)image + sh.sh_offset;
			*contents_size = sh.sh_size;
		}
		break;
	}
	elf_end(elf);
	return status;
}

int elfobj_load_segments(const struct elf_object *obj, struct elf_segment **segments, size_t *count, char **why)
{
	uint64_t table_offset, table_size;
	size_t all, i, n = 0;

	*segments = elfobj_segments(obj, &all, &table_offset, &table_size, why);
	*count = 0;
	if (!*segments)
		return *why ? -1 : 0;
	for (i = 0; i < all; i++)
		if ((*segments)[i].type == PT_LOAD)
			(*segments)[n++] = (*segments)[i];
	*count = n;
	return 0;
}

void elfobj_close(struct elf_object *obj)
{
	size_t i;

	if (obj->elf)
		elf_end(obj->elf);
	for (i = 0; i < obj->section_count; i++)
		free(obj->sections[i].relocs);
	free(obj->sections);
	free(obj->symbols);
	if (obj->index) {
		name_index_free(&obj->index->sections);
		name_index_free(&obj->index->symbols);
		free(obj->index->functions);
		free(obj->index);
	}
	memset(obj, 0, sizeof(*obj));
}
