#include "symbolize.h"
#include "util.h"

#include <elf.h>
#include <elfutils/libdwfl.h>
#include <stdlib.h>
#include <string.h>

/* A function symbol as the lookups need it.  The symbol comes first:
   image_section_of is handed a pointer to it. */
struct image_function {
	struct elf_symbol symbol;  /* value: an address of the file */
	const char *section;
	int index;                 /* in libdwfl's symbol table: ties keep it */
};

struct image {
	char *path;
	Dwfl *dwfl;                   /* kept: the symbol names live in it */
	char build_id[129];           /* hex, or "none" */
	struct image_function *functions; /* by address */
	size_t function_count;
	char *failure;                /* why it could not be opened, or NULL */
};

struct symbolizer {
	Dwfl_Callbacks callbacks;
	char *debuginfo_path;
	struct strmap images;         /* path -> struct image */
};

static int no_debuginfo(Dwfl_Module *module, void **userdata, const char *name, Dwarf_Addr base,
			const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
			char **debuginfo_file_name)
{
	(void)module, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink_file, (void)debuglink_crc, (void)debuginfo_file_name;
	return -1;
}

struct symbolizer *symbolizer_new(const char *debuginfo_path)
{
	struct symbolizer *s = xcalloc(1, sizeof(*s));

	s->debuginfo_path = debuginfo_path ? xstrdup(debuginfo_path) : NULL;
	s->callbacks.find_elf = dwfl_build_id_find_elf;
	/* Not libdwfl's default path: debug files installed for other
	   objects (libc6-dbg) would change what a trace resolves to. */
	s->callbacks.find_debuginfo = debuginfo_path ? dwfl_standard_find_debuginfo : no_debuginfo;
	s->callbacks.section_address = dwfl_offline_section_address;
	s->callbacks.debuginfo_path = &s->debuginfo_path;
	return s;
}

static int by_address(const void *a, const void *b)
{
	const struct image_function *x = a, *y = b;

	if (x->symbol.value != y->symbol.value)
		return x->symbol.value < y->symbol.value ? -1 : 1;
	/* Among aliases, a global name first: it is the one orders use. */
	if ((x->symbol.bind == STB_LOCAL) != (y->symbol.bind == STB_LOCAL))
		return x->symbol.bind == STB_LOCAL ? 1 : -1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static char *dwfl_failure(const char *call)
{
	return xasprintf("cannot read ELF: %s failed: %s", call, dwfl_errmsg(-1));
}

/* Reads the function symbols of the image's one module, by address.  A
   file without any symbol table has none, as with a stripped one. */
static void read_functions(struct image *image, Dwfl_Module *module, GElf_Addr bias)
{
	int count = dwfl_module_getsymtab(module), i;

	image->functions = xcalloc(count > 0 ? count : 1, sizeof(*image->functions));
	for (i = 1; i < count; i++) {
		struct image_function *f = &image->functions[image->function_count];
		GElf_Sym sym;
		GElf_Addr address;
		GElf_Word shndx;
		Elf *elf;
		const char *name = dwfl_module_getsym_info(module, i, &sym, &address, &shndx, &elf, NULL);
		unsigned char type = GELF_ST_TYPE(sym.st_info);

		if (!name || (type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF ||
		    shndx >= SHN_LORESERVE)
			continue;
		f->symbol.name = name;
		/* address is where libdwfl placed the module; less the bias it
		   is the file's own, in whichever file the symbol came from */
		f->symbol.value = address - bias;
		f->symbol.size = sym.st_size;
		f->symbol.shndx = shndx;
		f->symbol.bind = GELF_ST_BIND(sym.st_info);
		f->symbol.type = type;
		f->symbol.visibility = GELF_ST_VISIBILITY(sym.st_other);
		f->section = elfobj_section_name(elf, shndx);
		if (!f->section)
			f->section = "?";
		f->index = i;
		image->function_count++;
	}
	qsort(image->functions, image->function_count, sizeof(*image->functions), by_address);
}

/* Opens path as the one module of a new Dwfl; 0, or -1 with *why set. */
static int open_image(struct symbolizer *s, struct image *image, char **why)
{
	Dwfl_Module *module;
	Elf *elf;
	const unsigned char *bits;
	GElf_Addr bias, bits_address;
	void *map;
	size_t size;
	int n, k;

	/* map_file and the magic check keep the messages elfobj gave. */
	if (map_file(image->path, &map, &size, why) < 0)
		return -1;
	if (!elfobj_is_elf(map, size)) {
		*why = xstrdup("not an ELF file");
		return -1;
	}
	image->dwfl = dwfl_begin(&s->callbacks);
	if (!image->dwfl) {
		*why = dwfl_failure("dwfl_begin");
		return -1;
	}
	module = dwfl_report_offline_memory(image->dwfl, image->path, image->path, map, size);
	if (!module) {
		*why = dwfl_failure("dwfl_report_offline_memory");
		return -1;
	}
	if (dwfl_report_end(image->dwfl, NULL, NULL) != 0) {
		*why = dwfl_failure("dwfl_report_end");
		return -1;
	}
	elf = dwfl_module_getelf(module, &bias);
	if (!elf) {
		*why = dwfl_failure("dwfl_module_getelf");
		return -1;
	}
	if (elfobj_check_linked(elf, why) < 0)
		return -1;
	n = dwfl_module_build_id(module, &bits, &bits_address);
	if (n > 0 && (size_t)n * 2 < sizeof(image->build_id)) {
		for (k = 0; k < n; k++)
			snprintf(image->build_id + 2 * k, 3, "%02x", bits[k]);
	} else {
		strcpy(image->build_id, "none");
	}
	read_functions(image, module, bias);
	return 0;
}

struct image *symbolizer_image(struct symbolizer *s, const char *path, const char *build_id, char **why)
{
	struct image *image = strmap_get(&s->images, path);

	*why = NULL;
	if (!image) {
		image = xcalloc(1, sizeof(*image));
		image->path = xstrdup(path);
		/* The key must outlive the caller's string. */
		*strmap_slot(&s->images, image->path) = image;
		if (open_image(s, image, why) < 0) {
			image->failure = *why;
			*why = NULL;
		}
	}
	if (image->failure) {
		*why = xstrdup(image->failure);
		return NULL;
	}
	if (build_id && strcmp(build_id, "none") != 0 && strcmp(image->build_id, build_id) != 0) {
		*why = xasprintf("build-id %s in the trace, %s in the file: the file is not the one that ran",
				 build_id, image->build_id);
		return NULL;
	}
	return image;
}

/* Index in functions of the last symbol at or below vaddr, or -1. */
static long last_at_or_below(const struct image *image, uint64_t vaddr)
{
	long lo = 0, hi = (long)image->function_count - 1, found = -1;

	while (lo <= hi) {
		long mid = (lo + hi) / 2;

		if (image->functions[mid].symbol.value <= vaddr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	return found;
}

const struct elf_symbol *image_function_at(const struct image *image, uint64_t vaddr)
{
	long k = last_at_or_below(image, vaddr);

	/* Step back over aliases to the first, preferred one. */
	while (k > 0 && image->functions[k - 1].symbol.value == vaddr)
		k--;
	if (k < 0 || image->functions[k].symbol.value != vaddr)
		return NULL;
	return &image->functions[k].symbol;
}

const struct elf_symbol *image_function_containing(const struct image *image, uint64_t vaddr)
{
	long k = last_at_or_below(image, vaddr);

	for (; k >= 0; k--) {
		const struct elf_symbol *sym = &image->functions[k].symbol;

		if (vaddr < sym->value + (sym->size ? sym->size : 1))
			return sym;
		if (sym->value < vaddr && sym->size)
			break;
	}
	return NULL;
}

const char *image_section_of(const struct image *image, const struct elf_symbol *sym)
{
	uintptr_t at = (uintptr_t)sym, first = (uintptr_t)image->functions;

	if (at < first || at >= (uintptr_t)(image->functions + image->function_count))
		return "?";
	return ((const struct image_function *)sym)->section;
}
