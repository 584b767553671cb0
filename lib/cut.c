#include "cut.h"
#include "elfobj.h"
#include "output.h"
#include "util.h"

#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

_Static_assert(sizeof(CUT_MAGIC) == 16, "the magic fills its 16 bytes");
_Static_assert(sizeof(CUT_MAGIC_1) == 16, "the magic fills its 16 bytes");
_Static_assert(sizeof(struct cut_record) == 56, "the record's layout is the file's");
_Static_assert(offsetof(struct cut_record, random_start) == CUT_RECORD_1_SIZE, "version 2 extends version 1");

/* The defined symbol name of elf, or NULL. */
static const struct elf_symbol *defined(const struct elf_object *elf, const char *name)
{
	uint32_t k;

	for (k = elfobj_symbol_by_name(elf, name); k; k = elfobj_symbol_next_named(elf, k))
		if (elf->symbols[k].shndx != SHN_UNDEF)
			return &elf->symbols[k];
	return NULL;
}

/* Where the record's bytes are in the file, its address and its size
   (sizeof(struct cut_record), or CUT_RECORD_1_SIZE for version 1); false
   when elf has none (whole, in a section with file bytes). */
static bool record_place(const struct elf_object *elf, uint64_t *offset, uint64_t *address, size_t *size)
{
	const struct elf_symbol *sym = defined(elf, CUT_SYMBOL);
	const struct elf_section *s;
	const char *magic;

	if (!sym || sym->shndx >= elf->section_count)
		return false;
	if (sym->size == sizeof(struct cut_record))
		magic = CUT_MAGIC;
	else if (sym->size == CUT_RECORD_1_SIZE)
		magic = CUT_MAGIC_1;
	else
		return false;
	s = &elf->sections[sym->shndx];
	if (s->type == SHT_NOBITS || sym->value < s->address || sym->value - s->address + sym->size > s->size)
		return false;
	*offset = s->offset + (sym->value - s->address);
	*address = sym->value;
	*size = sym->size;
	return *offset + sym->size <= elf->image_size && !memcmp(elf->image + *offset, magic, sizeof(CUT_MAGIC));
}

struct cut cut_read(const struct elf_object *elf)
{
	struct cut cut = { 0 };
	struct cut_record r = { 0 };
	uint64_t offset, address;
	size_t size;

	if (!record_place(elf, &offset, &address, &size))
		return cut;
	memcpy(&r, elf->image + offset, size);
	if (!r.piece || r.end <= r.start)
		return cut;
	cut.start = address + (uint64_t)r.start;
	cut.end = address + (uint64_t)r.end;
	cut.piece = r.piece;
	if (r.random_end > r.random_start) {
		cut.random_start = address + (uint64_t)r.random_start;
		cut.random_end = address + (uint64_t)r.random_end;
	}
	return cut;
}

/* The read-only segment of elf that holds .rodata.untraced, page-aligned:
   *start, *end; both 0 when there is none, when that segment also maps
   the file's first page (the headers, the dynamic symbols: read at every
   start) or a .rodata (the traced read-only data of deporder's script),
   or when its program headers cannot be read (*why set, new). */
static void random_range(const struct elf_object *elf, uint64_t *start, uint64_t *end, char **why)
{
	const struct elf_section *untraced = NULL;
	struct elf_segment *segments;
	size_t count, i;
	uint64_t table_offset, table_size;
	uint32_t k;

	*start = *end = 0;
	for (k = elfobj_section_by_name(elf, ".rodata.untraced"); k && !untraced; k = elfobj_section_next_named(elf, k))
		if ((elf->sections[k].flags & SHF_ALLOC) && elf->sections[k].size)
			untraced = &elf->sections[k];
	if (!untraced)
		return;
	segments = elfobj_segments(elf, &count, &table_offset, &table_size, why);
	if (*why)
		return;
	for (i = 0; i < count; i++) {
		const struct elf_segment *s = &segments[i];

		if (s->type == PT_LOAD && !(s->flags & (PF_X | PF_W)) && s->address <= untraced->address &&
		    untraced->address < s->address + s->memory_size && s->offset >= PAGE) {
			*start = s->address / PAGE * PAGE;
			*end = (s->address + s->memory_size + PAGE - 1) / PAGE * PAGE;
		}
	}
	free(segments);
	for (k = elfobj_section_by_name(elf, ".rodata"); k && *end; k = elfobj_section_next_named(elf, k))
		if ((elf->sections[k].flags & SHF_ALLOC) && elf->sections[k].size && elf->sections[k].address < *end &&
		    elf->sections[k].address + elf->sections[k].size > *start)
			*start = *end = 0;
}

/* The range to cut in elf: *start, *end; NULL, or what is missing. */
static const char *cut_range(const struct elf_object *elf, bool any_page, uint64_t *start, uint64_t *end, char **why)
{
	const struct elf_symbol *hot = defined(elf, "__hot_end");
	struct elf_segment *segments;
	size_t count, i;
	uint64_t table_offset, table_size;

	if (!hot)
		hot = defined(elf, "__linkopt_hot_end");
	if (!hot)
		return "no end of the traced code in it (__hot_end of BOLT, __linkopt_hot_end of deporder's GNU ld "
		       "script)";
	segments = elfobj_segments(elf, &count, &table_offset, &table_size, why);
	if (*why)
		return NULL;
	*start = (hot->value + PAGE - 1) / PAGE * PAGE;
	*end = 0;
	for (i = 0; i < count; i++)
		if (segments[i].type == PT_LOAD && (segments[i].flags & PF_X) && segments[i].address <= hot->value &&
		    hot->value <= segments[i].address + segments[i].file_size)
			*end = (segments[i].address + segments[i].file_size) / PAGE * PAGE;
	free(segments);
	if (!*end)
		return "the end of its traced code is in no executable segment";
	if (*end <= *start && any_page && *end >= PAGE)
		*start = *end - PAGE;
	if (*end <= *start)
		return "no whole page of code after its traced code in its segment: nothing to cut";
	return NULL;
}

/* The names of the cut's own code (prefetch/prefetch.c: the constructor,
   the cut when not inlined), each also the start of the names of the
   parts BOLT or gcc split off it (linkopt_prefetch.cold...). */
static const char *const self_names[] = { "linkopt_prefetch", "linkopt_cut_pieces" };

/* The first symbol of the cut's own code inside [start, end) of elf: its
   address in *at and its name (of self_names) returned; NULL if none. */
static const char *self_in(const struct elf_object *elf, uint64_t start, uint64_t end, uint64_t *at)
{
	size_t k, n;

	for (k = 0; k < elf->symbol_count; k++) {
		const struct elf_symbol *sym = &elf->symbols[k];

		if (sym->type != STT_FUNC || sym->shndx == SHN_UNDEF || !sym->name || sym->value >= end ||
		    sym->value + (sym->size ? sym->size : 1) <= start)
			continue;
		for (n = 0; n < sizeof(self_names) / sizeof(self_names[0]); n++)
			if (!strncmp(sym->name, self_names[n], strlen(self_names[n]))) {
				*at = sym->value;
				return self_names[n];
			}
	}
	return NULL;
}

/* cut_file's work on the file's bytes, image (left as it was on failure). */
static int apply(void *image, size_t size, const char *name, uint64_t piece, bool any_page, struct cut *done,
		 char **why)
{
	struct elf_object elf;
	struct cut_record r = { CUT_MAGIC, 0, 0, 0, 0, 0 };
	uint64_t offset = 0, address = 0, start = 0, end = 0, random_start = 0, random_end = 0;
	size_t record_size = sizeof(r);
	const char *missing = NULL;

	*why = NULL;
	memset(done, 0, sizeof(*done));
	if (piece != CUT_WHOLE && piece % PAGE) {
		*why = xasprintf("%s: a piece of %llu bytes: not a multiple of the page size (%d)", name,
				 (unsigned long long)piece, PAGE);
		return -1;
	}
	if (elfobj_open_linked(&elf, name, image, size, why) < 0)
		return -1;
	if (!record_place(&elf, &offset, &address, &record_size))
		missing = "no cut record in it (linkopt_cut: it was linked with neither linkopt-prefetch.o nor "
			  "linkopt-cut.o, or is stripped)";
	else if (piece)
		missing = cut_range(&elf, any_page, &start, &end, why);
	if (piece && !missing && !*why)
		done->self_name = self_in(&elf, start, end, &done->self_at);
	if (piece && !missing && !*why)
		random_range(&elf, &random_start, &random_end, why);
	elfobj_close(&elf);
	if (*why)
		return -1;
	if (missing) {
		*why = xasprintf("%s: cannot cut: %s", name, missing);
		return -1;
	}
	if (piece == CUT_WHOLE)
		piece = end - start;
	if (record_size != sizeof(r)) {
		/* version 1's constructor knows no advice */
		memcpy(r.magic, CUT_MAGIC_1, sizeof(r.magic));
		done->version_1 = random_end > random_start;
		random_start = random_end = 0;
	}
	if (piece) {
		r.start = (int64_t)(start - address);
		r.end = (int64_t)(end - address);
		r.piece = piece;
		done->start = start;
		done->end = end;
		done->piece = piece;
		if (random_end > random_start) {
			r.random_start = (int64_t)(random_start - address);
			r.random_end = (int64_t)(random_end - address);
			done->random_start = random_start;
			done->random_end = random_end;
		}
	}
	memcpy((char *)image + offset, &r, record_size);
	return 0;
}

int cut_file(const char *path, const char *out, uint64_t piece, bool to_trace, struct cut *done, char **why)
{
	void *map;
	char *data;
	size_t size;
	int r;

	if (map_file(path, &map, &size, why) < 0)
		return -1;
	data = xmalloc(size ? size : 1);
	memcpy(data, map, size);
	munmap(map, size);
	r = apply(data, size, path, to_trace ? PAGE : piece, to_trace, done, why);
	if (r == 0 && write_executable_atomic(out, data, size) < 0) {
		*why = xasprintf("%s: cannot write: %s", out, strerror(errno));
		r = -1;
	}
	free(data);
	return r;
}
