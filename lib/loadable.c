#define _GNU_SOURCE
#include "loadable.h"
#include "elfobj.h"
#include "util.h"

#include <elf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifndef DT_RELRSZ
#define DT_RELRSZ 35
#define DT_RELR 36
#define DT_RELRENT 37
#endif
#ifndef R_X86_64_IRELATIVE
#define R_X86_64_IRELATIVE 37
#endif

/* Lines of one kind of defect shown before they are only counted. */
enum { EXAMPLES = 3 };

/* One file as the loader reads it. */
struct image {
	const char *what;             /* "the input", "the output" */
	const unsigned char *data;
	size_t size;
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t phnum;
	Elf64_Dyn *dyn;               /* up to its DT_NULL */
	size_t ndyn;
	struct elf_object obj;        /* symbols, relocations of the link */
	bool has_obj;
	struct addend { uint64_t at, value; } *addends; /* relative DT_RELA entries, by address */
	size_t naddends;
};

/* A range of addresses where the output may differ from the input. */
struct range {
	uint64_t start, end;
};

static void defect(struct loadable_report *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void defect(struct loadable_report *r, const char *fmt, ...)
{
	va_list ap;
	char *line;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&line, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatal("out of memory");
	r->defects = xrealloc(r->defects, (r->count + 1) * sizeof(*r->defects));
	r->defects[r->count++] = line;
}

static const char *tag_name(int64_t tag)
{
	static char other[32];

	switch (tag) {
	case DT_NULL: return "DT_NULL";
	case DT_NEEDED: return "DT_NEEDED";
	case DT_PLTRELSZ: return "DT_PLTRELSZ";
	case DT_PLTGOT: return "DT_PLTGOT";
	case DT_HASH: return "DT_HASH";
	case DT_STRTAB: return "DT_STRTAB";
	case DT_SYMTAB: return "DT_SYMTAB";
	case DT_RELA: return "DT_RELA";
	case DT_RELASZ: return "DT_RELASZ";
	case DT_RELAENT: return "DT_RELAENT";
	case DT_STRSZ: return "DT_STRSZ";
	case DT_SYMENT: return "DT_SYMENT";
	case DT_INIT: return "DT_INIT";
	case DT_FINI: return "DT_FINI";
	case DT_SONAME: return "DT_SONAME";
	case DT_RPATH: return "DT_RPATH";
	case DT_SYMBOLIC: return "DT_SYMBOLIC";
	case DT_REL: return "DT_REL";
	case DT_RELSZ: return "DT_RELSZ";
	case DT_RELENT: return "DT_RELENT";
	case DT_PLTREL: return "DT_PLTREL";
	case DT_DEBUG: return "DT_DEBUG";
	case DT_TEXTREL: return "DT_TEXTREL";
	case DT_JMPREL: return "DT_JMPREL";
	case DT_BIND_NOW: return "DT_BIND_NOW";
	case DT_INIT_ARRAY: return "DT_INIT_ARRAY";
	case DT_FINI_ARRAY: return "DT_FINI_ARRAY";
	case DT_INIT_ARRAYSZ: return "DT_INIT_ARRAYSZ";
	case DT_FINI_ARRAYSZ: return "DT_FINI_ARRAYSZ";
	case DT_RUNPATH: return "DT_RUNPATH";
	case DT_FLAGS: return "DT_FLAGS";
	case DT_PREINIT_ARRAY: return "DT_PREINIT_ARRAY";
	case DT_PREINIT_ARRAYSZ: return "DT_PREINIT_ARRAYSZ";
	case DT_RELRSZ: return "DT_RELRSZ";
	case DT_RELR: return "DT_RELR";
	case DT_RELRENT: return "DT_RELRENT";
	case DT_GNU_HASH: return "DT_GNU_HASH";
	case DT_VERSYM: return "DT_VERSYM";
	case DT_RELACOUNT: return "DT_RELACOUNT";
	case DT_RELCOUNT: return "DT_RELCOUNT";
	case DT_FLAGS_1: return "DT_FLAGS_1";
	case DT_VERDEF: return "DT_VERDEF";
	case DT_VERDEFNUM: return "DT_VERDEFNUM";
	case DT_VERNEED: return "DT_VERNEED";
	case DT_VERNEEDNUM: return "DT_VERNEEDNUM";
	default:
		snprintf(other, sizeof(other), "tag 0x%llx", (unsigned long long)tag);
		return other;
	}
}

/* Reads the headers and the dynamic table of im; 0, or -1 with *why. */
static int image_open(struct image *im, const char *what, const void *data, size_t size, char **why)
{
	size_t i;

	memset(im, 0, sizeof(*im));
	im->what = what;
	im->data = data;
	im->size = size;
	if (size < sizeof(im->eh) || memcmp(data, ELFMAG, SELFMAG)) {
		*why = xasprintf("%s is not an ELF file", what);
		return -1;
	}
	memcpy(&im->eh, data, sizeof(im->eh));
	if (im->eh.e_ident[EI_CLASS] != ELFCLASS64 || im->eh.e_ident[EI_DATA] != ELFDATA2LSB ||
	    im->eh.e_phentsize != sizeof(Elf64_Phdr) || im->eh.e_phoff > size ||
	    im->eh.e_phnum > (size - im->eh.e_phoff) / sizeof(Elf64_Phdr)) {
		*why = xasprintf("%s: its program header table is not a 64-bit one inside the file", what);
		return -1;
	}
	im->phnum = im->eh.e_phnum;
	im->ph = xcalloc(im->phnum + 1, sizeof(*im->ph));
	memcpy(im->ph, im->data + im->eh.e_phoff, im->phnum * sizeof(*im->ph));
	for (i = 0; i < im->phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];
		size_t n, k;

		if (p->p_type != PT_DYNAMIC)
			continue;
		if (p->p_offset > size || p->p_filesz > size - p->p_offset)
			break;
		n = p->p_filesz / sizeof(Elf64_Dyn);
		im->dyn = xcalloc(n + 1, sizeof(*im->dyn));
		memcpy(im->dyn, im->data + p->p_offset, n * sizeof(*im->dyn));
		for (k = 0; k < n && im->dyn[k].d_tag != DT_NULL; k++)
			;
		im->ndyn = k;
		break;
	}
	im->has_obj = elfobj_open_linked(&im->obj, what, (void *)data, size, why) == 0;
	if (!im->has_obj)
		free(*why);
	return 0;
}

static void image_close(struct image *im)
{
	if (im->has_obj)
		elfobj_close(&im->obj);
	free(im->ph);
	free(im->dyn);
	free(im->addends);
}

/* The PT_LOAD that maps address (in its memory size), or NULL. */
static const Elf64_Phdr *load_of(const struct image *im, uint64_t address)
{
	size_t i;

	for (i = 0; i < im->phnum; i++) {
		const Elf64_Phdr *p = &im->ph[i];

		if (p->p_type == PT_LOAD && address >= p->p_vaddr && address - p->p_vaddr < p->p_memsz)
			return p;
	}
	return NULL;
}

static bool in_code(const struct image *im, uint64_t address)
{
	const Elf64_Phdr *p = load_of(im, address);

	return p && (p->p_flags & PF_X);
}

/* The bytes of the file at [address, address + n), or NULL when a PT_LOAD
   does not take them all from the file. */
static const unsigned char *bytes_at(const struct image *im, uint64_t address, uint64_t n)
{
	const Elf64_Phdr *p = load_of(im, address);
	uint64_t at;

	if (!p || address - p->p_vaddr > p->p_filesz || n > p->p_filesz - (address - p->p_vaddr))
		return NULL;
	at = p->p_offset + (address - p->p_vaddr);
	if (at > im->size || n > im->size - at)
		return NULL;
	return im->data + at;
}

static bool word_at(const struct image *im, uint64_t address, uint64_t *value)
{
	const unsigned char *p = bytes_at(im, address, 8);

	if (p)
		memcpy(value, p, 8);
	return p != NULL;
}

/* The first value of tag in the dynamic table; false without one. */
static bool dyn_value(const struct image *im, int64_t tag, uint64_t *value)
{
	size_t i;

	for (i = 0; i < im->ndyn; i++) {
		if (im->dyn[i].d_tag == tag) {
			*value = im->dyn[i].d_un.d_val;
			return true;
		}
	}
	return false;
}

static size_t dyn_count(const struct image *im, int64_t tag)
{
	size_t i, n = 0;

	for (i = 0; i < im->ndyn; i++)
		n += im->dyn[i].d_tag == tag;
	return n;
}

/* The string at offset of the dynamic string table, or NULL. */
static const char *dyn_string(const struct image *im, uint64_t offset)
{
	uint64_t table, size;
	const unsigned char *p;

	if (!dyn_value(im, DT_STRTAB, &table) || !dyn_value(im, DT_STRSZ, &size) || offset >= size)
		return NULL;
	p = bytes_at(im, table, size);
	if (!p || !memchr(p + offset, '\0', size - offset))
		return NULL;
	return (const char *)p + offset;
}

static int compare_addends(const void *a, const void *b)
{
	const struct addend *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* The addends of the relative entries of DT_RELA, sorted by address. */
static void read_addends(struct image *im)
{
	uint64_t table, size, i;
	const unsigned char *p;

	if (!dyn_value(im, DT_RELA, &table) || !dyn_value(im, DT_RELASZ, &size) || !(p = bytes_at(im, table, size)))
		return;
	im->addends = xcalloc(size / sizeof(Elf64_Rela) + 1, sizeof(*im->addends));
	for (i = 0; i + sizeof(Elf64_Rela) <= size; i += sizeof(Elf64_Rela)) {
		Elf64_Rela r;

		memcpy(&r, p + i, sizeof(r));
		if (ELF64_R_TYPE(r.r_info) == R_X86_64_RELATIVE || ELF64_R_TYPE(r.r_info) == R_X86_64_IRELATIVE)
			im->addends[im->naddends++] = (struct addend){ r.r_offset, (uint64_t)r.r_addend };
	}
	qsort(im->addends, im->naddends, sizeof(*im->addends), compare_addends);
}

/* The pointer the loader leaves at address: a relative DT_RELA entry's
   addend, else the word in the file. */
static bool pointer_at(const struct image *im, uint64_t address, uint64_t *value)
{
	struct addend key = { address, 0 }, *found;

	found = im->naddends ? bsearch(&key, im->addends, im->naddends, sizeof(*im->addends), compare_addends) : NULL;
	if (found) {
		*value = found->value;
		return true;
	}
	return word_at(im, address, value);
}

/* The name of the function whose entry is address, or NULL. */
static const char *function_name(const struct image *im, uint64_t address)
{
	const struct elf_symbol *s = im->has_obj ? elfobj_function_at(&im->obj, 0, address) : NULL;

	return s ? s->name : NULL;
}

/* Whether address is the entry of a function called name in im. */
static bool entry_of(const struct image *im, uint64_t address, const char *name)
{
	const struct elf_symbol *const *all;
	size_t n, i;

	if (!im->has_obj)
		return false;
	all = elfobj_functions_at(&im->obj, 0, address, &n);
	for (i = 0; all && i < n; i++)
		if (all[i]->name && !strcmp(all[i]->name, name))
			return true;
	return false;
}

/* Whether a code pointer of the input (in) still points where it should
   in the output (out): at the entry of the function of the same name, or
   into code when the input's points at none. */
static bool code_pointer_holds(const struct image *in, uint64_t v_in, const struct image *out, uint64_t v_out)
{
	const char *name = function_name(in, v_in);

	if (name && out->has_obj)
		return entry_of(out, v_out, name);
	return in_code(out, v_out);
}

/* "0x1234 (main)" for messages; a static buffer of two. */
static const char *where(const struct image *im, uint64_t address)
{
	static char buf[2][160];
	static int which;
	const char *name = function_name(im, address);

	which ^= 1;
	if (name)
		snprintf(buf[which], sizeof(buf[which]), "0x%llx (%.120s)", (unsigned long long)address, name);
	else
		snprintf(buf[which], sizeof(buf[which]), "0x%llx", (unsigned long long)address);
	return buf[which];
}

static const char *phdr_name(uint32_t type)
{
	switch (type) {
	case PT_LOAD: return "PT_LOAD";
	case PT_DYNAMIC: return "PT_DYNAMIC";
	case PT_INTERP: return "PT_INTERP";
	case PT_NOTE: return "PT_NOTE";
	case PT_PHDR: return "PT_PHDR";
	case PT_TLS: return "PT_TLS";
	case PT_GNU_EH_FRAME: return "PT_GNU_EH_FRAME";
	case PT_GNU_RELRO: return "PT_GNU_RELRO";
	default: return "segment";
	}
}

/* Says why the pointer at address (what: "data: the pointer", a
   DT_INIT_ARRAY slot) does not point where the input's did. */
static void bad_pointer(struct loadable_report *r, const char *what, uint64_t address, const struct image *in,
			uint64_t v_in, const struct image *out, uint64_t v_out)
{
	const char *name = function_name(in, v_in);
	uint32_t k = name && out->has_obj ? elfobj_symbol_by_name(&out->obj, name) : 0;

	if (v_in == v_out && k)
		defect(r, "%s at 0x%llx still holds 0x%llx, where %s was in the input; the output has it at 0x%llx",
		       what, (unsigned long long)address, (unsigned long long)v_in, name,
		       (unsigned long long)out->obj.symbols[k].value);
	else
		defect(r, "%s at 0x%llx holds %s, where the input's holds %s", what, (unsigned long long)address,
		       where(out, v_out), where(in, v_in));
}

/* The program headers of the output, on their own and against the
   input's. */
static void check_segments(const struct image *in, const struct image *out, struct loadable_report *r)
{
	static const uint32_t counted[] = { PT_DYNAMIC, PT_INTERP, PT_TLS, PT_GNU_RELRO, PT_PHDR };
	const Elf64_Phdr *previous = NULL;
	size_t i, k;

	for (i = 0; i < out->phnum; i++) {
		const Elf64_Phdr *p = &out->ph[i];

		if (p->p_type != PT_LOAD)
			continue;
		if (p->p_filesz > p->p_memsz)
			defect(r, "PT_LOAD %zu: %llu bytes from the file, more than its %llu in memory", i,
			       (unsigned long long)p->p_filesz, (unsigned long long)p->p_memsz);
		if (p->p_offset > out->size || p->p_filesz > out->size - p->p_offset)
			defect(r, "PT_LOAD %zu: bytes 0x%llx to 0x%llx of a file of 0x%zx", i,
			       (unsigned long long)p->p_offset, (unsigned long long)(p->p_offset + p->p_filesz),
			       out->size);
		if (p->p_align > 1 && (p->p_align & (p->p_align - 1)))
			defect(r, "PT_LOAD %zu: alignment 0x%llx is not a power of two", i, (unsigned long long)p->p_align);
		else if (p->p_align > 1 && p->p_offset % p->p_align != p->p_vaddr % p->p_align)
			defect(r, "PT_LOAD %zu: offset 0x%llx and address 0x%llx differ modulo its alignment 0x%llx", i,
			       (unsigned long long)p->p_offset, (unsigned long long)p->p_vaddr,
			       (unsigned long long)p->p_align);
		if (previous && p->p_vaddr < previous->p_vaddr)
			defect(r, "PT_LOAD %zu at 0x%llx comes after one at 0x%llx: the loader wants them in "
				  "ascending order", i, (unsigned long long)p->p_vaddr,
			       (unsigned long long)previous->p_vaddr);
		else if (previous && previous->p_vaddr + previous->p_memsz > p->p_vaddr)
			defect(r, "PT_LOAD %zu [0x%llx, 0x%llx) overlaps the one before it [0x%llx, 0x%llx)", i,
			       (unsigned long long)p->p_vaddr, (unsigned long long)(p->p_vaddr + p->p_memsz),
			       (unsigned long long)previous->p_vaddr,
			       (unsigned long long)(previous->p_vaddr + previous->p_memsz));
		previous = p;
	}
	for (i = 0; i < out->phnum; i++) {
		const Elf64_Phdr *p = &out->ph[i], *load;

		if (p->p_type != PT_DYNAMIC && p->p_type != PT_INTERP && p->p_type != PT_PHDR && p->p_type != PT_TLS &&
		    p->p_type != PT_GNU_RELRO && p->p_type != PT_GNU_EH_FRAME && p->p_type != PT_NOTE)
			continue;
		/* a PT_TLS of .tbss alone has no image to map */
		if (!p->p_memsz || (p->p_type == PT_TLS && !p->p_filesz))
			continue;
		load = load_of(out, p->p_vaddr);
		if (!load || p->p_memsz > load->p_memsz - (p->p_vaddr - load->p_vaddr)) {
			if (p->p_type != PT_GNU_RELRO || !load_of(out, p->p_vaddr + p->p_memsz - 1))
				defect(r, "%s [0x%llx, 0x%llx) is not inside a PT_LOAD", phdr_name(p->p_type),
				       (unsigned long long)p->p_vaddr, (unsigned long long)(p->p_vaddr + p->p_memsz));
		} else if (p->p_filesz && p->p_type != PT_GNU_RELRO &&
			   p->p_offset - load->p_offset != p->p_vaddr - load->p_vaddr) {
			defect(r, "%s at 0x%llx: its file offset 0x%llx is not where its PT_LOAD puts that address",
			       phdr_name(p->p_type), (unsigned long long)p->p_vaddr, (unsigned long long)p->p_offset);
		}
		if (p->p_type == PT_PHDR && (p->p_offset != out->eh.e_phoff ||
					     p->p_filesz != out->phnum * sizeof(Elf64_Phdr)))
			defect(r, "PT_PHDR covers 0x%llx bytes at 0x%llx, the table is %zu entries at 0x%llx",
			       (unsigned long long)p->p_filesz, (unsigned long long)p->p_offset, out->phnum,
			       (unsigned long long)out->eh.e_phoff);
	}
	for (k = 0; k < sizeof(counted) / sizeof(counted[0]); k++) {
		size_t a = 0, b = 0;

		for (i = 0; i < in->phnum; i++)
			a += in->ph[i].p_type == counted[k];
		for (i = 0; i < out->phnum; i++)
			b += out->ph[i].p_type == counted[k];
		if (a != b)
			defect(r, "%zu %s in the output, %zu in the input", b, phdr_name(counted[k]), a);
	}
	for (i = 0; i < out->phnum; i++) {
		const Elf64_Phdr *p = &out->ph[i];

		if (p->p_type == PT_INTERP && r->interp &&
		    (p->p_offset > out->size || p->p_filesz > out->size - p->p_offset ||
		     strnlen((const char *)out->data + p->p_offset, p->p_filesz) != strlen(r->interp) ||
		     memcmp(out->data + p->p_offset, r->interp, strlen(r->interp))))
			defect(r, "PT_INTERP does not name %s as the input's does", r->interp);
	}
	if (out->eh.e_entry && (out->eh.e_type == ET_EXEC || r->input_has_interp) && !in_code(out, out->eh.e_entry))
		defect(r, "the entry point 0x%llx is not in executable code", (unsigned long long)out->eh.e_entry);
	if (in->eh.e_type != out->eh.e_type || in->eh.e_machine != out->eh.e_machine)
		defect(r, "the ELF type or machine is not the input's");
}

/* The tables the dynamic table points at, with the tag of their size. */
static int64_t size_tag(int64_t tag)
{
	switch (tag) {
	case DT_STRTAB: return DT_STRSZ;
	case DT_RELA: return DT_RELASZ;
	case DT_REL: return DT_RELSZ;
	case DT_JMPREL: return DT_PLTRELSZ;
	case DT_RELR: return DT_RELRSZ;
	case DT_INIT_ARRAY: return DT_INIT_ARRAYSZ;
	case DT_FINI_ARRAY: return DT_FINI_ARRAYSZ;
	case DT_PREINIT_ARRAY: return DT_PREINIT_ARRAYSZ;
	default: return 0;
	}
}

static bool is_table(int64_t tag)
{
	switch (tag) {
	case DT_STRTAB: case DT_SYMTAB: case DT_HASH: case DT_GNU_HASH: case DT_VERSYM: case DT_VERNEED:
	case DT_VERDEF: case DT_RELA: case DT_REL: case DT_JMPREL: case DT_RELR:
		return true;
	default:
		return false;
	}
}

static bool is_string(int64_t tag)
{
	return tag == DT_NEEDED || tag == DT_SONAME || tag == DT_RPATH || tag == DT_RUNPATH || tag == 0x7ffffffd ||
	       tag == 0x7fffffff;
}

static int compare_words(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Whether the RELA tables a and b (size bytes each) relocate the same
   places with the same types and symbols, in any order. */
static bool same_relocations(const unsigned char *a, const unsigned char *b, uint64_t size)
{
	uint64_t n = size / sizeof(Elf64_Rela), i, *x = xcalloc(2 * n + 1, 8), *y = xcalloc(2 * n + 1, 8);
	bool same;

	for (i = 0; i < n; i++) {
		memcpy(&x[2 * i], a + i * sizeof(Elf64_Rela), 16);
		memcpy(&y[2 * i], b + i * sizeof(Elf64_Rela), 16);
	}
	qsort(x, n, 16, compare_words);
	qsort(y, n, 16, compare_words);
	same = !memcmp(x, y, n * 16);
	free(x);
	free(y);
	return same;
}

/* A pointer table of the dynamic table (DT_INIT_ARRAY...): each slot at
   the entry of the function of the input's slot. */
static void check_array(const struct image *in, const struct image *out, int64_t tag, struct loadable_report *r)
{
	uint64_t a_in, a_out, size, i, v_in, v_out;

	if (!dyn_value(in, tag, &a_in) || !dyn_value(out, tag, &a_out) || !dyn_value(in, size_tag(tag), &size))
		return;
	if (a_in != a_out) {
		defect(r, "%s: 0x%llx, the input's 0x%llx", tag_name(tag), (unsigned long long)a_out,
		       (unsigned long long)a_in);
		r->dynamic_damaged = true;
		return;
	}
	for (i = 0; i < size / 8; i++) {
		if (!pointer_at(in, a_in + 8 * i, &v_in))
			continue;
		if (!pointer_at(out, a_out + 8 * i, &v_out)) {
			defect(r, "%s[%llu] at 0x%llx is outside the output's file", tag_name(tag), (unsigned long long)i,
			       (unsigned long long)(a_out + 8 * i));
			r->dynamic_damaged = true;
		} else if (in_code(in, v_in) && !code_pointer_holds(in, v_in, out, v_out)) {
			char *what = xasprintf("%s[%llu]", tag_name(tag), (unsigned long long)i);

			bad_pointer(r, what, a_out + 8 * i, in, v_in, out, v_out);
			free(what);
			r->dynamic_damaged = true;
		}
	}
}

/* The dynamic table of the output against the input's. */
static void check_dynamic(const struct image *in, const struct image *out, struct loadable_report *r)
{
	size_t i, before = r->count;
	uint64_t v;

	if (!in->ndyn)
		return;
	if (!out->ndyn) {
		defect(r, "the output has no dynamic table, the input one of %zu entries", in->ndyn);
		r->dynamic_damaged = true;
		return;
	}
	{
		char *missing = xstrdup(""), *strange = xstrdup(""), *next;
		size_t nmissing = 0, nstrange = 0, ntags = 0;

		for (i = 0; i < in->ndyn; i++) {
			int64_t tag = in->dyn[i].d_tag;
			size_t k, a, b;

			for (k = 0; k < i && in->dyn[k].d_tag != tag; k++)
				;
			if (k < i)
				continue;
			ntags++;
			a = dyn_count(in, tag);
			b = dyn_count(out, tag);
			if (b == 0) {
				next = xasprintf("%s%s%s", missing, nmissing++ ? ", " : "", tag_name(tag));
				free(missing);
				missing = next;
			} else if (a != b) {
				defect(r, "%s: %zu entries, the input %zu", tag_name(tag), b, a);
			}
		}
		for (i = 0; i < out->ndyn; i++) {
			if (dyn_count(in, out->dyn[i].d_tag))
				continue;
			if (nstrange++ < EXAMPLES) {
				next = xasprintf("%s%s%s (0x%llx)", strange, nstrange > 1 ? ", " : "",
						 tag_name(out->dyn[i].d_tag), (unsigned long long)out->dyn[i].d_un.d_val);
				free(strange);
				strange = next;
			}
		}
		if (nmissing)
			defect(r, "the dynamic table lacks %zu of the input's %zu tags: %s", nmissing, ntags, missing);
		if (nstrange)
			defect(r, "the dynamic table has %zu entries of tags the input has not: %s%s", nstrange, strange,
			       nstrange > EXAMPLES ? ", ..." : "");
		free(missing);
		free(strange);
	}
	for (i = 0; i < in->ndyn; i++) {
		int64_t tag = in->dyn[i].d_tag;
		uint64_t a = in->dyn[i].d_un.d_val, b;
		size_t n, k, nth = 0;

		/* the same entry of its tag in the output */
		for (k = 0; k < i; k++)
			nth += in->dyn[k].d_tag == tag;
		for (k = 0, n = 0; k < out->ndyn; k++)
			if (out->dyn[k].d_tag == tag && n++ == nth)
				break;
		if (k == out->ndyn)
			continue;
		b = out->dyn[k].d_un.d_val;
		if (is_string(tag)) {
			const char *s = dyn_string(in, a), *t = dyn_string(out, b);

			if (s && (!t || strcmp(s, t)))
				defect(r, "%s: '%s', the input's '%s'", tag_name(tag), t ? t : "(outside .dynstr)", s);
		} else if (tag == DT_INIT || tag == DT_FINI) {
			if (in_code(in, a) && !code_pointer_holds(in, a, out, b))
				defect(r, "%s: %s is not the entry of what the input's %s was", tag_name(tag), where(out, b),
				       where(in, a));
		} else if (tag == DT_INIT_ARRAY || tag == DT_FINI_ARRAY || tag == DT_PREINIT_ARRAY) {
			/* check_array */
		} else if (is_table(tag)) {
			int64_t st = size_tag(tag);
			uint64_t size = 0, j;
			const unsigned char *p, *q;

			if (!bytes_at(out, b, 1)) {
				defect(r, "%s: 0x%llx is not in the output's file", tag_name(tag), (unsigned long long)b);
				continue;
			}
			if (!st || !dyn_value(in, st, &size) || !(p = bytes_at(in, a, size)))
				continue;
			if (!(q = bytes_at(out, b, size))) {
				defect(r, "%s: %llu bytes at 0x%llx are not all in the output's file", tag_name(tag),
				       (unsigned long long)size, (unsigned long long)b);
			} else if (tag == DT_JMPREL) {
				/* the addends may change (code BOLT moved); what and where not, nor
				   the order: a PLT entry names its relocation by its index */
				for (j = 0; j + sizeof(Elf64_Rela) <= size; j += sizeof(Elf64_Rela))
					if (memcmp(p + j, q + j, 16))
						break;
				if (j + sizeof(Elf64_Rela) <= size)
					defect(r, "%s: entry %llu relocates another place or symbol than the input's (the "
						  "PLT finds it by its index)",
					       tag_name(tag), (unsigned long long)(j / sizeof(Elf64_Rela)));
			} else if (tag == DT_RELA) {
				/* in any order, the addends aside */
				if (!same_relocations(p, q, size))
					defect(r, "%s: the output relocates other places or symbols than the input",
					       tag_name(tag));
			} else if (memcmp(p, q, size)) {
				defect(r, "%s: the %llu bytes at 0x%llx are not the input's table", tag_name(tag),
				       (unsigned long long)size, (unsigned long long)b);
			}
		} else if (a != b) {
			defect(r, "%s: %llu (0x%llx), the input's %llu", tag_name(tag), (unsigned long long)b,
			       (unsigned long long)b, (unsigned long long)a);
		}
	}
	if (dyn_value(out, DT_RELACOUNT, &v)) {
		/* the loader takes the first DT_RELACOUNT entries for relative
		   ones without looking */
		uint64_t table, size, i;
		const unsigned char *p;

		if (dyn_value(out, DT_RELA, &table) && dyn_value(out, DT_RELASZ, &size) &&
		    (p = bytes_at(out, table, size))) {
			for (i = 0; i < v && (i + 1) * sizeof(Elf64_Rela) <= size; i++) {
				Elf64_Rela rel;

				memcpy(&rel, p + i * sizeof(rel), sizeof(rel));
				if (ELF64_R_TYPE(rel.r_info) != R_X86_64_RELATIVE)
					break;
			}
			if (i < v)
				defect(r, "DT_RELACOUNT says %llu relative relocations come first, entry %llu is not one",
				       (unsigned long long)v, (unsigned long long)i);
		}
	}
	if (dyn_value(out, DT_RELR, &v)) {
		uint64_t size, ent;

		if (!dyn_value(out, DT_RELRSZ, &size) || !dyn_value(out, DT_RELRENT, &ent) || ent != 8 || size % 8)
			defect(r, "DT_RELR without DT_RELRSZ and DT_RELRENT of 8 (the loader reads its table by them)");
	}
	if (r->count > before)
		r->dynamic_damaged = true;
	check_array(in, out, DT_INIT_ARRAY, r);
	check_array(in, out, DT_FINI_ARRAY, r);
	check_array(in, out, DT_PREINIT_ARRAY, r);
}

static int compare_ranges(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether address lies in one of the ranges (sorted, apart). */
static bool covered(const struct range *ranges, size_t n, uint64_t address)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ranges[mid].start <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && address < ranges[lo - 1].end;
}

static int compare_addresses(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

struct slots {
	struct range *ranges;       /* where the output may differ */
	size_t count, capacity;
	uint64_t *pointers;         /* the pointer slots whose values are checked */
	size_t npointers, pointer_capacity;
};

static void add_slot(struct slots *s, uint64_t address, uint64_t size, bool pointer)
{
	*ARRAY_PUSH(s->ranges, s->count, s->capacity) = (struct range){ address, address + size };
	if (pointer)
		*ARRAY_PUSH(s->pointers, s->npointers, s->pointer_capacity) = address;
}

/* Every place the loader or the link relocated in the input's data. */
static void collect_slots(const struct image *in, struct slots *s)
{
	uint64_t table, size, i, where_next = 0;
	const unsigned char *p;
	char *why;
	size_t k, j;

	if (dyn_value(in, DT_RELR, &table) && dyn_value(in, DT_RELRSZ, &size) && (p = bytes_at(in, table, size))) {
		for (i = 0; i + 8 <= size; i += 8) {
			uint64_t w;
			int bit;

			memcpy(&w, p + i, 8);
			if (!(w & 1)) {
				add_slot(s, w, 8, true);
				where_next = w + 8;
				continue;
			}
			for (bit = 0; bit < 63; bit++)
				if ((w >> (bit + 1)) & 1)
					add_slot(s, where_next + 8 * (uint64_t)bit, 8, true);
			where_next += 63 * 8;
		}
	}
	for (k = 0; k < 2; k++) {
		int64_t tag = k ? DT_JMPREL : DT_RELA, st = k ? DT_PLTRELSZ : DT_RELASZ;

		if (!dyn_value(in, tag, &table) || !dyn_value(in, st, &size) || !(p = bytes_at(in, table, size)))
			continue;
		for (i = 0; i + sizeof(Elf64_Rela) <= size; i += sizeof(Elf64_Rela)) {
			Elf64_Rela r;
			uint32_t type;

			memcpy(&r, p + i, sizeof(r));
			type = ELF64_R_TYPE(r.r_info);
			add_slot(s, r.r_offset, 8, type == R_X86_64_RELATIVE || type == R_X86_64_IRELATIVE);
		}
	}
	/* the GOT: in a program not linked as PIE, the slots of functions the
	   code takes through it hold their addresses with no relocation at
	   all, and BOLT updates them */
	if (in->has_obj && (k = elfobj_section_by_name(&in->obj, ".got"))) {
		const struct elf_section *got = &in->obj.sections[k];

		for (i = 0; i + 8 <= got->size; i += 8)
			add_slot(s, got->address + i, 8, true);
	}
	/* --emit-relocs: the link's own relocations of the writable sections
	   (a program not linked as PIE has no dynamic ones for its pointers) */
	if (in->has_obj && elfobj_load_relocs((struct elf_object *)&in->obj, &why) == 0) {
		for (k = 1; k < in->obj.section_count; k++) {
			const struct elf_section *sec = &in->obj.sections[k];

			if (!(sec->flags & SHF_WRITE) || !(sec->flags & SHF_ALLOC))
				continue;
			for (j = 0; j < sec->reloc_count; j++) {
				const struct elf_reloc *rel = &sec->relocs[j];

				if (rel->type == R_X86_64_64)
					add_slot(s, rel->offset, 8, true);
				else if (rel->type != R_X86_64_NONE)
					add_slot(s, rel->offset, rel->type == R_X86_64_32 || rel->type == R_X86_64_32S ||
									 rel->type == R_X86_64_PC32 ? 4 : 8,
						 false);
			}
		}
	} else if (in->has_obj) {
		free(why);
	}
	qsort(s->pointers, s->npointers, sizeof(*s->pointers), compare_addresses);
	for (k = j = 0; k < s->npointers; k++)
		if (!j || s->pointers[j - 1] != s->pointers[k])
			s->pointers[j++] = s->pointers[k];
	s->npointers = j;
	qsort(s->ranges, s->count, sizeof(*s->ranges), compare_ranges);
	for (k = j = 0; k < s->count; k++) {
		if (j && s->ranges[k].start <= s->ranges[j - 1].end) {
			if (s->ranges[k].end > s->ranges[j - 1].end)
				s->ranges[j - 1].end = s->ranges[k].end;
		} else {
			s->ranges[j++] = s->ranges[k];
		}
	}
	s->count = j;
}

/* The relocated data of the output against the input's. */
static void check_data(const struct image *in, const struct image *out, struct loadable_report *r)
{
	struct slots s = { 0 };
	size_t i, bad = 0, moved = 0, changed = 0, unmapped = 0;
	uint64_t first_changed = 0, dyn_start = 0, dyn_end = 0;

	collect_slots(in, &s);
	for (i = 0; i < in->phnum; i++)
		if (in->ph[i].p_type == PT_DYNAMIC) {
			dyn_start = in->ph[i].p_vaddr;
			dyn_end = dyn_start + in->ph[i].p_memsz;
		}
	for (i = 0; i < s.npointers; i++) {
		uint64_t a = s.pointers[i], v_in, v_out;

		if (!pointer_at(in, a, &v_in) || (a >= dyn_start && a < dyn_end))
			continue;
		if (!pointer_at(out, a, &v_out)) {
			if (unmapped++ < EXAMPLES)
				defect(r, "data: the pointer at 0x%llx is not in the output's file", (unsigned long long)a);
		} else if (in_code(in, v_in) ? !code_pointer_holds(in, v_in, out, v_out) : v_in != v_out) {
			if (bad++ < EXAMPLES)
				bad_pointer(r, "data: the pointer", a, in, v_in, out, v_out);
			moved += v_in == v_out;
		}
	}
	if (bad > EXAMPLES)
		defect(r, "data: %zu pointers in all do not point where the input's do%s", bad,
		       moved ? " (some still at the input's places of code the output moved)" : "");
	/* the bytes of the writable segments where nothing is relocated */
	for (i = 0; i < in->phnum; i++) {
		const Elf64_Phdr *p = &in->ph[i];
		uint64_t k;

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_W))
			continue;
		for (k = 0; k < p->p_filesz && p->p_offset + k < in->size; k++) {
			uint64_t a = p->p_vaddr + k;
			const unsigned char *q = bytes_at(out, a, 1);

			if ((q && *q == in->data[p->p_offset + k]) || (a >= dyn_start && a < dyn_end) ||
			    covered(s.ranges, s.count, a))
				continue;
			if (!changed++)
				first_changed = a;
		}
	}
	if (changed)
		defect(r, "data: %zu bytes of the writable segments changed where no relocation lies (the first at "
			  "0x%llx): written at the wrong place", changed, (unsigned long long)first_changed);
	if (bad || unmapped || changed)
		r->data_damaged = true;
	free(s.ranges);
	free(s.pointers);
}

int loadable_compare(const void *input, size_t input_size, const void *output, size_t output_size,
		     struct loadable_report *report, char **why)
{
	struct image in, out;
	size_t i;

	memset(report, 0, sizeof(*report));
	if (image_open(&in, "the input", input, input_size, why) < 0)
		return -1;
	if (image_open(&out, "the output", output, output_size, why) < 0) {
		image_close(&in);
		return -1;
	}
	for (i = 0; i < in.phnum; i++) {
		const Elf64_Phdr *p = &in.ph[i];

		if (p->p_type == PT_INTERP && p->p_offset < input_size && p->p_filesz <= input_size - p->p_offset) {
			report->input_has_interp = true;
			report->interp = xstrndup((const char *)in.data + p->p_offset, strnlen((const char *)in.data + p->p_offset, p->p_filesz));
		}
	}
	report->input_relr = dyn_count(&in, DT_RELR) > 0;
	read_addends(&in);
	read_addends(&out);
	check_segments(&in, &out, report);
	check_dynamic(&in, &out, report);
	check_data(&in, &out, report);
	image_close(&in);
	image_close(&out);
	return 0;
}

void loadable_report_free(struct loadable_report *report)
{
	size_t i;

	for (i = 0; i < report->count; i++)
		free(report->defects[i]);
	free(report->defects);
	free(report->interp);
	memset(report, 0, sizeof(*report));
}
