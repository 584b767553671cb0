/* closure: GNU ld 2.40's symbol resolution and archive extraction
   (bfd/elflink.c elf_link_add_archive_symbols, ld/ldlang.c open_input_bfds),
   reproduced rule for rule so that the members come out in ld's order. */
#include "linkmodel.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

struct symbol_entry *closure_symbol(struct link *link, const char *name)
{
	return strmap_get(&link->symbols, name);
}

static struct symbol_entry *symbol_get(struct link *link, const char *name)
{
	void **slot = strmap_slot(&link->symbols, name);
	struct symbol_entry *s = *slot;

	if (!s) {
		s = xcalloc(1, sizeof(*s));
		s->name = name;
		*slot = s;
		*ARRAY_PUSH(link->symbol_list, link->symbol_count, link->symbol_capacity) = s;
	}
	return s;
}

/* A new entry that becomes undefined, weak undefined or common joins ld's
   list of undefined symbols; the archive loop and group rescans watch it. */
static void became_undefined(struct link *link, struct symbol_entry *s, enum symbol_state state,
			     struct unit *referrer)
{
	s->state = state;
	if (!s->first_reference)
		s->first_reference = referrer;
	link->undefs++;
}

static void add_reference(struct link *link, const char *name, bool weak, struct unit *referrer,
			  bool dynamic)
{
	struct symbol_entry *s = symbol_get(link, name);

	if (s->state == SYM_NEW)
		became_undefined(link, s, weak ? SYM_UNDEFWEAK : SYM_UNDEFINED, referrer);
	else if (s->state == SYM_UNDEFWEAK && !weak) {
		/* bfd's UND action: the strong reference becomes the one that
		   names the symbol, and it joins the undefined list again. */
		s->state = SYM_UNDEFINED;
		s->first_reference = referrer;
		link->undefs++;
	}
	if (dynamic)
		s->referenced_dynamic = true;
	else if (!weak)
		s->referenced_nonweak_regular = true;
}

static void add_definition(struct link *link, const char *name, struct unit *u, uint32_t index,
			   bool weak)
{
	struct symbol_entry *s = symbol_get(link, name);

	switch (s->state) {
	case SYM_NEW:
	case SYM_UNDEFINED:
	case SYM_UNDEFWEAK:
	case SYM_DYNAMIC:
		s->state = weak ? SYM_DEFWEAK : SYM_DEFINED;
		s->definition = u;
		s->definition_index = index;
		s->discarded = false;
		break;
	case SYM_DEFWEAK:
	case SYM_COMMON:
		if (!weak) {
			s->state = SYM_DEFINED;
			s->definition = u;
			s->definition_index = index;
		}
		break;
	case SYM_DEFINED:
		if (!weak && s->definition != u)
			warn("%s: multiple definition of '%s'; first defined in %s", u->name, name,
			     s->definition->name);
		break;
	}
}

static void add_common(struct link *link, const char *name, struct unit *u, uint32_t index, uint64_t size)
{
	struct symbol_entry *s = symbol_get(link, name);

	switch (s->state) {
	case SYM_NEW:
		became_undefined(link, s, SYM_COMMON, u);
		/* fall through */
	case SYM_UNDEFINED:
	case SYM_UNDEFWEAK:
	case SYM_DYNAMIC:
		s->state = SYM_COMMON;
		s->definition = u;
		s->definition_index = index;
		s->common_size = size;
		break;
	case SYM_COMMON:
		if (size > s->common_size) {
			s->common_size = size;
			s->definition = u;
			s->definition_index = index;
		}
		break;
	default:
		break;
	}
}

/* "foo@@VER" also defines plain "foo", as _bfd_elf_add_default_symbol does. */
static const char *default_version_alias(const char *name)
{
	const char *at = strchr(name, '@');

	if (!at || at[1] != '@')
		return NULL;
	return xstrndup(name, at - name);
}

static const char *comdat_signature(struct unit *u, const struct elf_section *group)
{
	if (group->info < u->elf.symbol_count && group->link < u->elf.section_count &&
	    u->elf.sections[group->link].type == SHT_SYMTAB)
		return u->elf.symbols[group->info].name;
	return NULL;
}

/* ldlang_add_file: a COMDAT group (or .gnu.linkonce section) already linked
   from an earlier file is discarded before the file's symbols are added. */
static void discard_duplicate_groups(struct link *link, struct unit *u)
{
	size_t i, k;

	u->section_discarded = xcalloc(u->elf.section_count ? u->elf.section_count : 1, sizeof(bool));
	for (i = 1; i < u->elf.section_count; i++) {
		const struct elf_section *s = &u->elf.sections[i];
		const char *key = NULL;
		void **slot;
		bool comdat = false;

		if (s->type == SHT_GROUP) {
			if (!(s->group_flags & GRP_COMDAT))
				continue;
			comdat = true;
			key = comdat_signature(u, s);
		} else if (strncmp(s->name, ".gnu.linkonce.", 14) == 0) {
			key = s->name;
		}
		if (!key)
			continue;
		slot = strmap_slot(&link->comdat_groups, key);
		if (!*slot) {
			*slot = u;
			continue;
		}
		if (*slot == u)
			continue;
		u->section_discarded[i] = true;
		if (comdat)
			for (k = 1; k < u->elf.section_count; k++)
				if (u->elf.sections[k].group == i)
					u->section_discarded[k] = true;
	}
}

/* elf_link_add_object_symbols for a relocatable object. */
static void add_object_symbols(struct link *link, struct unit *u)
{
	size_t i;

	discard_duplicate_groups(link, u);
	for (i = u->elf.first_global; i < u->elf.symbol_count; i++) {
		const struct elf_symbol *sym = &u->elf.symbols[i];
		bool weak = sym->bind == STB_WEAK;
		const char *alias;

		if (sym->bind == STB_LOCAL || sym->name[0] == '\0')
			continue;
		if (sym->shndx == SHN_UNDEF) {
			add_reference(link, sym->name, weak, u, false);
			continue;
		}
		if (sym->shndx == SHN_COMMON) {
			add_common(link, sym->name, u, i, sym->size);
			continue;
		}
		if (sym->shndx < SHN_LORESERVE && u->section_discarded[sym->shndx]) {
			/* A symbol of a discarded group is undefined, and never pulls
			   an archive member (ld marks it indx -3). */
			struct symbol_entry *s = symbol_get(link, sym->name);

			if (s->state == SYM_NEW) {
				became_undefined(link, s, SYM_UNDEFINED, u);
				s->discarded = true;
			}
			continue;
		}
		add_definition(link, sym->name, u, i, weak);
		alias = default_version_alias(sym->name);
		if (alias)
			add_definition(link, alias, u, i, weak);
	}
}

static const char *versioned_name(const struct elf_symbol *sym, bool defined)
{
	if (!sym->version)
		return sym->name;
	if (defined && !sym->version_hidden)
		return sym->name;   /* the default version answers to the plain name */
	return xasprintf("%s@%s", sym->name, sym->version);
}

/* An --as-needed library is kept only if it defines a symbol that a regular
   object has referenced (not weakly) by the time ld reaches it. */
static bool shared_is_needed(struct link *link, struct unit *u)
{
	size_t i;

	for (i = u->elf.first_global; i < u->elf.symbol_count; i++) {
		const struct elf_symbol *sym = &u->elf.symbols[i];
		struct symbol_entry *s;

		if (sym->shndx == SHN_UNDEF || sym->bind == STB_LOCAL ||
		    sym->visibility == STV_HIDDEN || sym->visibility == STV_INTERNAL)
			continue;
		if (sym->version && sym->version_hidden)
			continue;
		s = strmap_get(&link->symbols, sym->name);
		if (s && s->referenced_nonweak_regular)
			return true;
	}
	return false;
}

static void add_shared_symbols(struct link *link, struct unit *u)
{
	size_t i;

	for (i = u->elf.first_global; i < u->elf.symbol_count; i++) {
		const struct elf_symbol *sym = &u->elf.symbols[i];
		struct symbol_entry *s;

		if (sym->bind == STB_LOCAL || sym->name[0] == '\0')
			continue;
		if (sym->shndx == SHN_UNDEF) {
			add_reference(link, versioned_name(sym, false), sym->bind == STB_WEAK, u, true);
			continue;
		}
		if (sym->visibility == STV_HIDDEN || sym->visibility == STV_INTERNAL)
			continue;
		s = symbol_get(link, versioned_name(sym, true));
		if (s->state == SYM_NEW || s->state == SYM_UNDEFINED || s->state == SYM_UNDEFWEAK) {
			s->state = SYM_DYNAMIC;
			s->definition = u;
			s->definition_index = i;
		}
	}
}

static void record_unit(struct link *link, struct unit *u)
{
	u->loaded = true;
	u->load_index = link->unit_count;
	*ARRAY_PUSH(link->units, link->unit_count, link->unit_capacity) = u;
}

static void load_object(struct link *link, struct input *in)
{
	if (in->loaded)
		return;
	in->loaded = true;
	record_unit(link, in->unit);
	add_object_symbols(link, in->unit);
}

static void load_shared(struct link *link, struct input *in)
{
	if (in->loaded)
		return;
	if (in->as_needed && !shared_is_needed(link, in->unit))
		return;
	in->loaded = true;
	*ARRAY_PUSH(link->shared, link->shared_count, link->shared_capacity) = in->unit;
	add_shared_symbols(link, in->unit);
}

/* Opens member m of an archive as a unit; NULL after reporting an error. */
static struct unit *member_unit(struct link *link, struct input *in, size_t m)
{
	struct archive *ar = in->archive;
	struct archive_member *am = &ar->members[m];
	struct unit *u;
	char *why = NULL;
	void *data;
	size_t size;

	if (in->members[m])
		return in->members[m];
	u = xcalloc(1, sizeof(*u));
	/* ld names a thin archive's member by its own path, as its map shows. */
	u->name = ar->thin ? archive_member_path(ar, am) : xasprintf("%s(%s)", in->path, am->name);
	u->input = in;
	u->member = m;
	u->is_member = true;
	if (ar->thin) {
		char *path = archive_member_path(ar, am);

		if (map_file(path, &u->map, &u->map_size, &why) < 0) {
			error("%s: thin archive member '%s': %s", in->path, path, why);
			free(path);
			goto fail;
		}
		free(path);
		data = u->map;
		size = u->map_size;
	} else {
		data = (void *)am->data;
		size = am->size;
	}
	if (elfobj_open(&u->elf, u->name, data, size, &why) < 0) {
		error("%s: %s", u->name, why);
		goto fail;
	}
	if (u->elf.type != ET_REL) {
		error("%s: archive member is not a relocatable object", u->name);
		goto fail;
	}
	in->members[m] = u;
	return u;
fail:
	free(why);
	link->status = EXIT_INPUT;
	if (!link->keep_going)
		exit(EXIT_INPUT);
	free(u->name);
	free(u);
	return NULL;
}

static void load_member(struct link *link, struct input *in, size_t m, const char *why_name,
			struct unit *referrer)
{
	struct unit *u = member_unit(link, in, m);

	if (!u || u->loaded)
		return;
	u->pulled_for = why_name;
	u->pulled_by = referrer;
	record_unit(link, u);
	add_object_symbols(link, u);
}

/* elf_link_is_defined_archive_symbol: a common symbol pulls a member only if
   the member really defines it as data, not as another common. */
static bool member_defines_data(struct link *link, struct input *in, size_t m, const char *name)
{
	struct unit *u = member_unit(link, in, m);
	uint32_t i;

	if (!u)
		return false;
	for (i = elfobj_symbol_by_name(&u->elf, name); i; i = elfobj_symbol_next_named(&u->elf, i)) {
		const struct elf_symbol *sym = &u->elf.symbols[i];

		if (i < u->elf.first_global)
			continue;
		if (sym->bind != STB_GLOBAL && sym->bind < STB_LOOS)
			return false;
		if (sym->type == STT_FUNC || sym->type == STT_GNU_IFUNC)
			return false;
		if (sym->shndx == SHN_UNDEF || sym->shndx == SHN_COMMON)
			return false;
		if (sym->shndx >= SHN_LORESERVE && sym->shndx < SHN_ABS)
			return false;
		return true;
	}
	return false;
}

/* _bfd_elf_archive_symbol_lookup: "foo@@VER" in an index also answers
   references to "foo@VER" and "foo". */
static struct symbol_entry *archive_lookup(struct link *link, const char *name)
{
	struct symbol_entry *s = strmap_get(&link->symbols, name);
	const char *at;
	char *copy;

	if (s)
		return s;
	at = strchr(name, '@');
	if (!at || at[1] != '@')
		return NULL;
	copy = xasprintf("%.*s%s", (int)(at - name), name, at + 1);
	s = strmap_get(&link->symbols, copy);
	if (!s) {
		copy[at - name] = '\0';
		s = strmap_get(&link->symbols, copy);
	}
	free(copy);
	return s;
}

static void scan_archive(struct link *link, struct input *in)
{
	struct archive *ar = in->archive;
	bool *included, loop;
	size_t i;

	if (in->whole_archive) {
		if (in->loaded)
			return;
		in->loaded = true;
		for (i = 0; i < ar->member_count; i++)
			load_member(link, in, i, "--whole-archive", NULL);
		return;
	}
	in->loaded = true;
	if (ar->symbol_count == 0)
		return;
	included = xcalloc(ar->symbol_count, sizeof(bool));
	do {
		size_t last = (size_t)-1;

		loop = false;
		for (i = 0; i < ar->symbol_count; i++) {
			const struct archive_symbol *sd = &ar->symbols[i];
			struct symbol_entry *s;
			uint64_t undefs_before;
			size_t mark;

			if (included[i])
				continue;
			if (sd->member == last) {
				included[i] = true;
				continue;
			}
			s = archive_lookup(link, sd->name);
			if (!s)
				continue;
			if (s->state == SYM_UNDEFINED) {
				if (s->discarded)
					continue;
			} else if (s->state == SYM_COMMON) {
				if (!member_defines_data(link, in, sd->member, sd->name))
					continue;
			} else {
				if (s->state != SYM_UNDEFWEAK && s->state != SYM_NEW)
					included[i] = true;
				continue;
			}
			undefs_before = link->undefs;
			load_member(link, in, sd->member, sd->name, s->first_reference);
			if (undefs_before != link->undefs)
				loop = true;
			for (mark = i;; mark--) {
				included[mark] = true;
				if (mark == 0 || ar->symbols[mark - 1].member != sd->member)
					break;
			}
			last = sd->member;
		}
	} while (loop);
	free(included);
}

static void process(struct link *link, struct input *group, bool rescan)
{
	size_t i;

	for (i = 0; i < group->child_count; i++) {
		struct input *in = group->children[i];

		switch (in->kind) {
		case INPUT_OBJECT:
			load_object(link, in);
			break;
		case INPUT_SHARED:
			load_shared(link, in);
			break;
		case INPUT_ARCHIVE:
			if (!in->loaded || (rescan && !in->whole_archive))
				scan_archive(link, in);
			break;
		case INPUT_SCRIPT:
			process(link, in, rescan);
			break;
		case INPUT_GROUP: {
			uint64_t before;

			do {
				before = link->undefs;
				process(link, in, true);
			} while (before != link->undefs);
			break;
		}
		case INPUT_FILE:
		case INPUT_FAILED:
			break;
		}
	}
}

/* ld defines __start_SEC and __stop_SEC for a section SEC of the output. */
static bool start_stop_section_exists(struct link *link, const char *name)
{
	const char *sec;
	size_t i;

	if (!strncmp(name, "__start_", 8))
		sec = name + 8;
	else if (!strncmp(name, "__stop_", 7))
		sec = name + 7;
	else
		return false;
	for (i = 0; i < link->unit_count; i++)
		if (elfobj_section_by_name(&link->units[i]->elf, sec))
			return true;
	return false;
}

static void report_undefined(struct link *link)
{
	struct link_options *opt = link->options;
	size_t i;

	if (opt->ignore_undefined || (opt->shared && !opt->report_undefined_in_shared))
		return;
	for (i = 0; i < link->symbol_count; i++) {
		struct symbol_entry *s = link->symbol_list[i];

		if (s->state != SYM_UNDEFINED || s->discarded)
			continue;
		if (s->first_reference && s->first_reference->is_shared)
			continue;
		if (inputs_linker_defines(s->name) || start_stop_section_exists(link, s->name))
			continue;
		if (s->first_reference)
			warn("%s: undefined reference to '%s'", s->first_reference->name, s->name);
		else
			warn("undefined symbol '%s' (given on the command line)", s->name);
	}
}

void closure_run(struct link *link)
{
	struct link_options *opt = link->options;
	size_t i;

	for (i = 0; i < link->seed_count; i++) {
		add_reference(link, link->seeds[i], false, NULL, false);
		symbol_get(link, link->seeds[i])->command_line = true;
	}
	for (i = 0; i < opt->undefined_count; i++) {
		add_reference(link, opt->undefined[i], false, NULL, false);
		symbol_get(link, opt->undefined[i])->command_line = true;
	}
	if (!link->seed_count && (opt->entry || !opt->shared)) {
		const char *entry = opt->entry ? opt->entry : "_start";

		add_reference(link, entry, false, NULL, false);
		symbol_get(link, entry)->command_line = true;
	}
	process(link, opt->root, false);
	report_undefined(link);
}

struct unit *closure_definer(struct link *link, const char *name)
{
	struct symbol_entry *s = strmap_get(&link->symbols, name);

	if (!s || !s->definition || s->definition->is_shared)
		return NULL;
	if (s->state != SYM_DEFINED && s->state != SYM_DEFWEAK && s->state != SYM_COMMON)
		return NULL;
	return s->definition;
}

int closure_load_relocs(struct link *link)
{
	size_t i;

	for (i = 0; i < link->unit_count; i++) {
		struct unit *u = link->units[i];
		char *why;

		if (elfobj_load_relocs(&u->elf, &why) < 0) {
			error("%s: %s", u->name, why);
			free(why);
			link->status = EXIT_INPUT;
			if (!link->keep_going)
				return EXIT_INPUT;
		}
	}
	return 0;
}
