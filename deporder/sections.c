/* sections: the input sections ld keeps under --gc-sections (bfd/elflink.c
   bfd_elf_gc_sections): roots, relocations followed from them, COMDAT groups
   kept whole, FDEs of .eh_frame followed for the code they describe. */
#include "linkmodel.h"

#include <ctype.h>
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#ifndef SHF_GNU_RETAIN
#define SHF_GNU_RETAIN (1 << 21)
#endif

bool sections_is_unit(const struct unit *u, uint32_t i)
{
	const struct elf_section *s = &u->elf.sections[i];

	/* ld drops empty sections silently; they are no unit of an order. */
	return i > 0 && i < u->elf.section_count && (s->flags & SHF_ALLOC) && s->type != SHT_GROUP && s->size > 0 &&
	       !u->section_discarded[i];
}

/* Sections ld's default script wraps in KEEP, and those gc never removes. */
static bool section_is_root(const struct unit *u, uint32_t i)
{
	const struct elf_section *s = &u->elf.sections[i];
	const char *n = s->name;

	if (s->type == SHT_NOTE || s->type == SHT_INIT_ARRAY || s->type == SHT_FINI_ARRAY ||
	    s->type == SHT_PREINIT_ARRAY || (s->flags & SHF_GNU_RETAIN))
		return true;
	return !strcmp(n, ".init") || !strcmp(n, ".fini") || !strcmp(n, ".jcr") || !strcmp(n, ".eh_frame") ||
	       !strncmp(n, ".preinit_array", 14) || !strncmp(n, ".init_array", 11) ||
	       !strncmp(n, ".fini_array", 11) || !strncmp(n, ".ctors", 6) || !strncmp(n, ".dtors", 6);
}

/* ld keeps every non-allocated section, and follows the relocations of
   those that are not debugging information (.note.stapsdt keeps
   .stapsdt.base, for instance). */
static bool is_kept_metadata(const struct unit *u, uint32_t i)
{
	const struct elf_section *s = &u->elf.sections[i];

	if ((s->flags & SHF_ALLOC) || u->section_discarded[i] || !s->reloc_count)
		return false;
	if (s->type != SHT_PROGBITS && s->type != SHT_NOTE)
		return false;
	return strncmp(s->name, ".debug", 6) && strncmp(s->name, ".zdebug", 7) &&
	       strncmp(s->name, ".gnu.debuglto", 13) && strncmp(s->name, ".stab", 5) &&
	       strncmp(s->name, ".line", 5) && strcmp(s->name, ".comment");
}

static bool is_c_identifier(const char *s)
{
	if (!*s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

/* The section a discarded COMDAT member stands for: the same-named section
   of the group that was kept (what ld redirects such relocations to). */
static bool kept_twin(struct link *link, struct unit *u, uint32_t i, struct unit **tu, uint32_t *ts)
{
	const struct elf_section *s = &u->elf.sections[i];
	const char *key;
	struct unit *owner;
	uint32_t k;

	if (s->group) {
		const struct elf_section *g = &u->elf.sections[s->group];

		key = g->info < u->elf.symbol_count ? u->elf.symbols[g->info].name : NULL;
	} else {
		key = s->name;
	}
	owner = key ? strmap_get(&link->comdat_groups, key) : NULL;
	if (!owner || owner == u)
		return false;
	k = elfobj_section_by_name(&owner->elf, s->name);
	if (!k)
		return false;
	*tu = owner;
	*ts = k;
	return true;
}

bool sections_reloc_target(struct link *link, struct unit *u, const struct elf_reloc *r,
			   struct unit **tu, uint32_t *ts)
{
	const struct elf_symbol *sym = &u->elf.symbols[r->symbol];
	struct symbol_entry *e;
	const struct elf_symbol *def;

	if (r->symbol == 0)
		return false;
	if (sym->bind == STB_LOCAL) {
		if (sym->shndx == SHN_UNDEF || sym->shndx >= SHN_LORESERVE || sym->shndx >= u->elf.section_count)
			return false;
		if (u->section_discarded[sym->shndx])
			return kept_twin(link, u, sym->shndx, tu, ts);
		*tu = u;
		*ts = sym->shndx;
		return true;
	}
	e = closure_symbol(link, sym->name);
	if (!e || !e->definition || e->definition->is_shared ||
	    (e->state != SYM_DEFINED && e->state != SYM_DEFWEAK))
		return false;
	def = &e->definition->elf.symbols[e->definition_index];
	if (def->shndx == SHN_UNDEF || def->shndx >= SHN_LORESERVE || def->shndx >= e->definition->elf.section_count)
		return false;
	*tu = e->definition;
	*ts = def->shndx;
	return true;
}

struct mark_item {
	struct unit *unit;
	uint32_t section;
};

struct marker {
	struct link *link;
	struct mark_item *stack;
	size_t depth, capacity;
	struct strmap start_stop_done; /* section names kept for __start_/__stop_ */
};

static void mark(struct marker *m, struct unit *u, uint32_t i)
{
	if (i == 0 || i >= u->elf.section_count || u->section_kept[i] || u->section_discarded[i])
		return;
	u->section_kept[i] = true;
	*ARRAY_PUSH(m->stack, m->depth, m->capacity) = (struct mark_item){ u, i };
}

static void mark_named(struct marker *m, const char *name)
{
	void **slot = strmap_slot(&m->start_stop_done, name);
	size_t i;
	uint32_t k;

	if (*slot)
		return;
	*slot = (void *)1;
	for (i = 0; i < m->link->unit_count; i++) {
		struct unit *u = m->link->units[i];

		for (k = 1; k < u->elf.section_count; k++)
			if (!strcmp(u->elf.sections[k].name, name))
				mark(m, u, k);
	}
}

static void mark_symbol(struct marker *m, const char *name)
{
	struct unit *u = closure_definer(m->link, name);
	struct symbol_entry *e = closure_symbol(m->link, name);
	const struct elf_symbol *def;

	if (!u || !e)
		return;
	def = &u->elf.symbols[e->definition_index];
	if (def->shndx < SHN_LORESERVE)
		mark(m, u, def->shndx);
}

/* .eh_frame: an FDE is kept with the code it describes, and then keeps what
   it points to (LSDA in .gcc_except_table; its CIE's personality). */
static void mark_fdes(struct marker *m, struct unit *u, uint32_t text)
{
	uint32_t eh = elfobj_section_by_name(&u->elf, ".eh_frame");
	const struct elf_section *s;
	const unsigned char *data;
	uint64_t off = 0;
	size_t r = 0;

	if (!eh)
		return;
	s = &u->elf.sections[eh];
	data = u->elf.image + s->offset;
	if (s->type == SHT_NOBITS)
		return;
	while (off + 8 <= s->size) {
		uint32_t len, id;
		uint64_t end;
		size_t first;
		struct unit *tu;
		uint32_t ts;

		memcpy(&len, data + off, 4);
		if (len == 0 || len == 0xffffffff)
			break;
		end = off + 4 + len;
		if (end > s->size)
			break;
		memcpy(&id, data + off + 4, 4);
		while (r < s->reloc_count && s->relocs[r].offset < off)
			r++;
		first = r;
		if (id != 0 && first < s->reloc_count && s->relocs[first].offset < end &&
		    sections_reloc_target(m->link, u, &s->relocs[first], &tu, &ts) && tu == u && ts == text) {
			uint64_t cie = off + 4 - id;
			size_t k;

			for (k = first + 1; k < s->reloc_count && s->relocs[k].offset < end; k++)
				if (sections_reloc_target(m->link, u, &s->relocs[k], &tu, &ts))
					mark(m, tu, ts);
			for (k = 0; k < s->reloc_count; k++) {
				uint32_t clen;

				if (cie + 4 > s->size)
					break;
				memcpy(&clen, data + cie, 4);
				if (s->relocs[k].offset >= cie && s->relocs[k].offset < cie + 4 + clen &&
				    sections_reloc_target(m->link, u, &s->relocs[k], &tu, &ts))
					mark(m, tu, ts);
			}
		}
		off = end;
	}
}

static void mark_from(struct marker *m, struct unit *u, uint32_t i)
{
	const struct elf_section *s = &u->elf.sections[i];
	size_t k;

	if (s->group) {
		for (k = 1; k < u->elf.section_count; k++)
			if (u->elf.sections[k].group == s->group)
				mark(m, u, k);
	}
	if (!strcmp(s->name, ".eh_frame"))
		return;
	for (k = 0; k < s->reloc_count; k++) {
		const struct elf_reloc *r = &s->relocs[k];
		const struct elf_symbol *sym = &u->elf.symbols[r->symbol];
		struct unit *tu;
		uint32_t ts;

		if (sections_reloc_target(m->link, u, r, &tu, &ts)) {
			mark(m, tu, ts);
			continue;
		}
		if (sym->bind != STB_LOCAL) {
			const char *n = sym->name;

			if (!strncmp(n, "__start_", 8) && is_c_identifier(n + 8))
				mark_named(m, n + 8);
			else if (!strncmp(n, "__stop_", 7) && is_c_identifier(n + 7))
				mark_named(m, n + 7);
		}
	}
	if (s->flags & SHF_EXECINSTR)
		mark_fdes(m, u, i);
}

void sections_mark(struct link *link)
{
	struct link_options *opt = link->options;
	struct marker m = { .link = link };
	size_t i;
	uint32_t k;
	bool again;

	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];

		u->section_kept = xcalloc(u->elf.section_count ? u->elf.section_count : 1, sizeof(bool));
	}
	for (i = 0; i < link->seed_count; i++)
		mark_symbol(&m, link->seeds[i]);
	for (i = 0; i < opt->undefined_count; i++)
		mark_symbol(&m, opt->undefined[i]);
	if (!link->seed_count && (opt->entry || !opt->shared))
		mark_symbol(&m, opt->entry ? opt->entry : "_start");
	for (i = 0; i < link->symbol_count; i++) {
		struct symbol_entry *e = link->symbol_list[i];
		struct unit *u = closure_definer(link, e->name);
		const struct elf_symbol *def;

		if (!u)
			continue;
		def = &u->elf.symbols[e->definition_index];
		if (e->referenced_dynamic ||
		    (opt->shared && (def->visibility == STV_DEFAULT || def->visibility == STV_PROTECTED)))
			mark_symbol(&m, e->name);
	}
	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];

		for (k = 1; k < u->elf.section_count; k++)
			if ((sections_is_unit(u, k) && section_is_root(u, k)) || is_kept_metadata(u, k))
				mark(&m, u, k);
	}
	do {
		while (m.depth > 0) {
			struct mark_item it = m.stack[--m.depth];

			mark_from(&m, it.unit, it.section);
		}
		/* SHF_LINK_ORDER sections live and die with the section they name. */
		again = false;
		for (i = 0; i < link->unit_count; i++) {
			struct unit *u = link->units[i];

			for (k = 1; k < u->elf.section_count; k++) {
				const struct elf_section *s = &u->elf.sections[k];

				if ((s->flags & SHF_LINK_ORDER) && !u->section_kept[k] && s->link < u->elf.section_count &&
				    u->section_kept[s->link] && sections_is_unit(u, k)) {
					mark(&m, u, k);
					again = true;
				}
			}
		}
	} while (again);
	free(m.stack);
	strmap_free(&m.start_stop_done);
}
