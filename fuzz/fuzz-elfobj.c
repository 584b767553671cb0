/* fuzz-elfobj: lib/elfobj.c on ELF files from memory, read both ways (as
   a link input and as a linked image), with its relocations, build-id and
   every lookup.  Seeds: objects, shared libraries and executables. */
#include "harness.h"
#include "elfobj.h"
#include "util.h"

#include <stdlib.h>

/* Lookups over at most this many symbols and sections: enough to walk
   every index, few enough to keep an input fast. */
enum { LOOKUPS = 64 };

static void look_up(const struct elf_object *obj)
{
	char hex[128];
	size_t i, count;

	elfobj_build_id(obj, hex, sizeof(hex));
	for (i = 1; i < obj->section_count && i < LOOKUPS; i++) {
		uint32_t s = elfobj_section_by_name(obj, obj->sections[i].name);

		harness_check(s != 0 && s <= i, "a section's name finds it or an earlier one");
		while (s) {
			harness_check(s < obj->section_count, "a section lookup gives a section");
			s = elfobj_section_next_named(obj, s);
		}
		elfobj_section_name(obj->elf, i);
	}
	for (i = 1; i < obj->symbol_count && i < LOOKUPS; i++) {
		const struct elf_symbol *sym = &obj->symbols[i];
		const struct elf_symbol *const *at;
		uint32_t k = elfobj_symbol_by_name(obj, sym->name);

		harness_check(k != 0 && k <= i, "a symbol's name finds it or an earlier one");
		while (k) {
			harness_check(k < obj->symbol_count, "a symbol lookup gives a symbol");
			k = elfobj_symbol_next_named(obj, k);
		}
		at = elfobj_functions_at(obj, sym->shndx, sym->value, &count);
		harness_check(!at == !count, "functions_at gives a count with its list");
		elfobj_function_at(obj, sym->shndx, sym->value);
		elfobj_function_containing(obj, sym->shndx, sym->value);
		elfobj_function_containing(obj, sym->shndx, sym->value + sym->size);
	}
	elfobj_symbol_by_name(obj, "main");
	elfobj_section_by_name(obj, ".text");
}

static void read_as(const uint8_t *data, size_t size, bool linked)
{
	struct elf_object obj;
	char *image = harness_copy(data, size), *why = NULL;
	int rc = linked ? elfobj_open_linked(&obj, "fuzz", image, size, &why)
			: elfobj_open(&obj, "fuzz", image, size, &why);

	if (rc < 0) {
		harness_check(why != NULL, "a failed open says why");
		free(why);
		free(image);
		return;
	}
	harness_check(why == NULL, "an open that worked says nothing");
	if (elfobj_load_relocs(&obj, &why) < 0)
		harness_check(why != NULL, "failed relocations say why");
	free(why);
	look_up(&obj);
	if (linked) {
		why = NULL;
		if (elfobj_check_linked(obj.elf, &why) < 0)
			harness_check(why != NULL, "a failed check says why");
		free(why);
	}
	elfobj_close(&obj);
	free(image);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	progname = "fuzz-elfobj";
	if (!elfobj_is_elf(data, size))
		return -1;
	read_as(data, size, false);
	read_as(data, size, true);
	return 0;
}
