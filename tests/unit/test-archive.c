/* Unit tests of lib/archive.c, the ar reader, with lib/elfobj.c opening
   what it finds.  The archives are made here from C source with gcc and
   ar (llvm-ar for the /SYM64/ index, when it is installed): regular,
   thin, with a long-name table, with an odd-sized member, empty.  Each
   is checked for its members (names, header offsets, bytes) and its
   symbol index; then broken copies of them (cut, or with a byte changed)
   must give the error the table says, and every prefix of an archive and
   every change of one byte of its first 512 must give an archive or an
   error, never a read outside the bytes given (run it under make SAN=1
   to have that checked). */
#define _GNU_SOURCE
#include "archive.h"
#include "elfobj.h"
#include "unit.h"
#include "util.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HEADER 60

static char *folder;

static char *path_in(const char *name)
{
	return xasprintf("%s/%s", folder, name);
}

/* Runs a shell command line in folder; true when it exits 0. */
static bool shell(const char *command)
{
	char *line = xasprintf("cd '%s' && (%s) > /dev/null 2>&1", folder, command);
	int status = system(line);

	free(line);
	return status == 0;
}

struct bytes {
	unsigned char *data;
	size_t size;
};

/* The bytes of folder/name, in a buffer of exactly their size. */
static struct bytes load(const char *name)
{
	char *path = path_in(name);
	struct bytes b = { NULL, 0 };
	FILE *f = fopen(path, "rb");

	if (f && fseek(f, 0, SEEK_END) == 0) {
		long size = ftell(f);

		b.data = xmalloc(size > 0 ? size : 1);
		b.size = size;
		rewind(f);
		if (fread(b.data, 1, b.size, f) != b.size)
			b.size = 0;
	}
	if (!f)
		fprintf(stderr, "test-archive: cannot open %s\n", path);
	else
		fclose(f);
	free(path);
	return b;
}

static const char *const fixture_commands =
	"printf 'int alpha_data = 1;\\nint alpha(void) { return alpha_data; }\\n' > a.c && "
	"printf 'extern int alpha(void);\\nint beta(void) { return alpha() + 1; }\\n' > b.c && "
	"mkdir sub && printf 'int gamma_fn(void) { return 3; }\\n' > sub/c.c && "
	"gcc -c a.c b.c && gcc -c -o sub/c.o sub/c.c && printf 'note\\n' > note.txt && "
	"cp a.o a_very_long_member_name.o && cp b.o fifteen_chars.o && cp b.o sixteen_chars_.o && "
	"ar rcs lib.a a.o b.o && ar rcs odd.a note.txt a.o && ar rcs odd-last.a a.o note.txt && "
	"ar rcsT thin.a a.o b.o sub/c.o && "
	"ar rcs long.a a_very_long_member_name.o fifteen_chars.o sixteen_chars_.o && "
	"ar rcsT thin-long.a a_very_long_member_name.o && ar rcs empty.a";

/* llvm-ar writes a /SYM64/ index for archives past SYM64_THRESHOLD bytes. */
static const char *const sym64_command =
	"for ar in llvm-ar llvm-ar-19 llvm-ar-18 llvm-ar-17 llvm-ar-16 llvm-ar-15 llvm-ar-14; do "
	"command -v $ar && SYM64_THRESHOLD=0 $ar rcs s64.a a.o b.o && exit 0; done; exit 1";

static const struct archive_case {
	const char *file;
	bool thin, has_index;
	const char *members;  /* names, a space between */
	const char *sources;  /* the file each member holds */
	const char *symbols;  /* NAME@MEMBER-INDEX, in index order */
} good_cases[] = {
	{ "lib.a", false, true, "a.o b.o", "a.o b.o", "alpha_data@0 alpha@0 beta@1" },
	{ "odd.a", false, true, "note.txt a.o", "note.txt a.o", "alpha_data@1 alpha@1" },
	{ "odd-last.a", false, true, "a.o note.txt", "a.o note.txt", "alpha_data@0 alpha@0" },
	{ "thin.a", true, true, "a.o b.o sub/c.o", "a.o b.o sub/c.o", "alpha_data@0 alpha@0 beta@1 gamma_fn@2" },
	{ "long.a", false, true, "a_very_long_member_name.o fifteen_chars.o sixteen_chars_.o",
	  "a_very_long_member_name.o fifteen_chars.o sixteen_chars_.o", "alpha_data@0 alpha@0 beta@1 beta@2" },
	{ "thin-long.a", true, true, "a_very_long_member_name.o", "a_very_long_member_name.o",
	  "alpha_data@0 alpha@0" },
	{ "empty.a", false, false, "", "", "" },
	{ "s64.a", false, true, "a.o b.o", "a.o b.o", "alpha_data@0 alpha@0 beta@1" },
};

static char *member_names(const struct archive *ar)
{
	char *text = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < ar->member_count; i++) {
		more = xasprintf("%s%s%s", text, i ? " " : "", ar->members[i].name);
		free(text);
		text = more;
	}
	return text;
}

static char *symbol_list(const struct archive *ar)
{
	char *text = xstrdup(""), *more;
	size_t i;

	for (i = 0; i < ar->symbol_count; i++) {
		more = xasprintf("%s%s%s@%zu", text, i ? " " : "", ar->symbols[i].name, ar->symbols[i].member);
		free(text);
		text = more;
	}
	return text;
}

/* Opens a member's bytes with elfobj_open; its symbol name must be a
   global defined there. */
static void check_defined(const struct archive *ar, const struct archive_member *m, const char *symbol)
{
	struct elf_object obj;
	char *why = NULL, *path = NULL;
	void *data;
	size_t size;
	uint32_t index;

	if (ar->thin) {
		path = archive_member_path(ar, m);
		if (!CHECK(map_file(path, &data, &size, &why) == 0)) {
			free(why);
			free(path);
			return;
		}
	} else {
		size = m->size;
		data = xmalloc(size ? size : 1);
		memcpy(data, m->data, size);
	}
	if (EXPECT_INT(0, elfobj_open(&obj, m->name, data, size, &why))) {
		EXPECT_INT(ET_REL, obj.type);
		index = elfobj_symbol_by_name(&obj, symbol);
		if (CHECK(index > 0 && index < obj.symbol_count)) {
			CHECK(obj.symbols[index].shndx != SHN_UNDEF);
			EXPECT_INT(STB_GLOBAL, obj.symbols[index].bind);
		}
		elfobj_close(&obj);
	} else {
		fprintf(stderr, "  why: %s\n", why);
	}
	free(why);
	if (ar->thin)
		munmap(data, size);
	else
		free(data);
	free(path);
}

static void check_good(const struct archive_case *c)
{
	struct bytes b = load(c->file);
	struct archive *ar;
	char *why = NULL, *path = path_in(c->file), *names, *symbols, *sources, *source, *save = NULL;
	size_t i;

	unit_case(c->file);
	ar = archive_parse(path, b.data, b.size, &why);
	if (!CHECK(ar != NULL)) {
		fprintf(stderr, "  why: %s\n", why);
		goto done;
	}
	EXPECT_STR(NULL, why);
	EXPECT_STR(path, ar->path);
	EXPECT_INT(c->thin, ar->thin);
	EXPECT_INT(c->has_index, ar->has_index);
	names = member_names(ar);
	symbols = symbol_list(ar);
	EXPECT_STR(c->members, names);
	EXPECT_STR(c->symbols, symbols);
	free(names);
	free(symbols);
	sources = xstrdup(c->sources);
	for (i = 0, source = strtok_r(sources, " ", &save); i < ar->member_count && source;
	     i++, source = strtok_r(NULL, " ", &save)) {
		const struct archive_member *m = &ar->members[i];
		struct bytes want = load(source);
		const unsigned char *h = b.data + m->header_offset;

		/* a header at its offset, the one before it ended right there */
		if (CHECK(m->header_offset + HEADER <= b.size)) {
			CHECK(h[58] == '`' && h[59] == '\n');
			if (strlen(m->name) < 16 && !c->thin)
				CHECK(!memcmp(h, m->name, strlen(m->name)) && h[strlen(m->name)] == '/');
		}
		if (i > 0 && c->thin)
			EXPECT_INT(ar->members[i - 1].header_offset + HEADER, m->header_offset);
		if (i > 0 && !c->thin)
			EXPECT_INT(ar->members[i - 1].header_offset + HEADER + (ar->members[i - 1].size + 1) / 2 * 2,
				   m->header_offset);
		EXPECT_INT(want.size, m->size);
		if (c->thin) {
			char *member_path = archive_member_path(ar, m), *expected = path_in(source);

			CHECK(m->data == NULL);
			EXPECT_STR(expected, member_path);
			free(member_path);
			free(expected);
		} else {
			CHECK(m->data == h + HEADER);
			CHECK(m->size == want.size && !memcmp(m->data, want.data, want.size));
		}
		free(want.data);
	}
	CHECK(i == ar->member_count && !source);
	free(sources);
	for (i = 0; i < ar->symbol_count; i++)
		check_defined(ar, &ar->members[ar->symbols[i].member], ar->symbols[i].name);
	archive_free(ar);
done:
	free(why);
	free(path);
	free(b.data);
	unit_case(NULL);
}

static uint32_t read_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

/* lib.a, byte by byte as ar writes it: the magic, the index ("/", 3
   symbols: 4 + 3 * 4 bytes of count and offsets and 22 of names, 38 in
   all), then a.o at 8 + 60 + 38 = 106 and b.o after it; the index's
   offsets are those of the members' headers. */
static void test_layout(void)
{
	struct bytes b = load("lib.a"), a = load("a.o");
	struct archive *ar;
	char *why = NULL;
	uint64_t b_offset = 106 + HEADER + (a.size + 1) / 2 * 2;

	unit_case("lib.a's layout");
	ar = archive_parse("lib.a", b.data, b.size, &why);
	if (CHECK(ar && ar->member_count == 2 && ar->symbol_count == 3)) {
		EXPECT_INT(106, ar->members[0].header_offset);
		EXPECT_INT(b_offset, ar->members[1].header_offset);
		EXPECT_INT(3, read_be32(b.data + 68));
		EXPECT_INT(106, read_be32(b.data + 72));
		EXPECT_INT(106, read_be32(b.data + 76));
		EXPECT_INT(b_offset, read_be32(b.data + 80));
		CHECK(ar->symbols[0].name == (const char *)b.data + 84);
	}
	archive_free(ar);
	free(why);
	free(b.data);
	free(a.data);
	unit_case(NULL);
}

/* A broken copy of an archive: its first size bytes (WHOLE: all of
   them), then the bytes of patch at patch_at (counted from the header of
   member number member, when member >= 0). */
#define WHOLE SIZE_MAX
#define NO_PATCH NULL, 0
#define PATCH(bytes) bytes, sizeof(bytes) - 1

static const struct broken_case {
	const char *name, *file;
	size_t size;
	int member;
	size_t patch_at;
	const char *patch;
	size_t patch_size;
	const char *why; /* %llu: the header offset of member why_member (-1: the index's, 8) */
	int why_member;
} broken_cases[] = {
	{ "no bytes", "lib.a", 0, -1, 0, NO_PATCH, "cannot read archive: no ar magic", 0 },
	{ "7 bytes of the magic", "lib.a", 7, -1, 0, NO_PATCH, "cannot read archive: no ar magic", 0 },
	{ "another magic", "lib.a", WHOLE, -1, 2, PATCH("["), "cannot read archive: no ar magic", 0 },
	{ "cut inside the index's header", "lib.a", 38, -1, 0, NO_PATCH,
	  "cannot read archive: truncated member header at offset %llu", -1 },
	{ "cut inside the index", "lib.a", 78, -1, 0, NO_PATCH,
	  "cannot read archive: member at offset %llu extends past the end of the file", -1 },
	{ "cut inside b.o's header", "lib.a", WHOLE, -2, 0, NO_PATCH,
	  "cannot read archive: truncated member header at offset %llu", 1 },
	{ "cut inside a.o", "lib.a", 106 + HEADER + 100, -1, 0, NO_PATCH,
	  "cannot read archive: member at offset %llu extends past the end of the file", 0 },
	{ "a.o's size runs past the end", "lib.a", WHOLE, 0, 48, PATCH("9999999999"),
	  "cannot read archive: member at offset %llu extends past the end of the file", 0 },
	{ "b.o's size is not a number", "lib.a", WHOLE, 1, 48, PATCH("12x       "),
	  "cannot read archive: malformed member header at offset %llu", 1 },
	{ "a.o's size is blank", "lib.a", WHOLE, 0, 48, PATCH("          "),
	  "cannot read archive: malformed member header at offset %llu", 0 },
	{ "a.o's size is negative", "lib.a", WHOLE, 0, 48, PATCH("-1        "),
	  "cannot read archive: malformed member header at offset %llu", 0 },
	{ "a.o's header does not end with `\\n", "lib.a", WHOLE, 0, 58, PATCH("x"),
	  "cannot read archive: malformed member header at offset %llu", 0 },
	{ "a.o named /0 with no long-name table", "lib.a", WHOLE, 0, 0, PATCH("/0              "),
	  "cannot read archive: member at offset %llu has a bad long-name reference", 0 },
	{ "the index names offset 107, no member's", "lib.a", WHOLE, -1, 72, PATCH("\0\0\0\153"),
	  "cannot read archive: symbol index names offset 107, which is no member", 0 },
	{ "the index counts 16777215 symbols", "lib.a", WHOLE, -1, 68, PATCH("\0\377\377\377"),
	  "cannot read archive: symbol index is truncated", 0 },
	{ "the index's last name has no NUL", "lib.a", WHOLE, -1, 8 + HEADER + 37, PATCH("x"),
	  "cannot read archive: symbol index is truncated", 0 },
	{ "a long name at offset 9999 of a 46-byte table", "long.a", WHOLE, 0, 0, PATCH("/9999           "),
	  "cannot read archive: member at offset %llu has a bad long-name reference", 0 },
	{ "a long name at offset 46 of a 46-byte table", "long.a", WHOLE, 0, 0, PATCH("/46             "),
	  "cannot read archive: member at offset %llu has a bad long-name reference", 0 },
	{ "a long name that is no number", "long.a", WHOLE, 0, 0, PATCH("/4x             "),
	  "cannot read archive: member at offset %llu has a bad long-name reference", 0 },
	{ "a thin archive cut inside its index", "thin.a", 78, -1, 0, NO_PATCH,
	  "cannot read archive: member at offset %llu extends past the end of the file", -1 },
	{ "a /SYM64/ index cut inside", "s64.a", 80, -1, 0, NO_PATCH,
	  "cannot read archive: member at offset %llu extends past the end of the file", -1 },
};

static void check_broken(const struct broken_case *c)
{
	struct bytes b = load(c->file);
	struct archive *ar, *good;
	char *why = NULL, *expected;
	size_t at = c->patch_at, size = c->size;
	unsigned long long why_offset = 8;
	unsigned char *copy;

	unit_case(c->name);
	good = archive_parse(c->file, b.data, b.size, &why);
	free(why);
	why = NULL;
	if (!CHECK(good != NULL && good->member_count >= 2))
		goto done;
	if (c->member >= 0)
		at += good->members[c->member].header_offset;
	/* member -2: cut 30 bytes into the header of member why_member */
	if (c->member == -2)
		size = good->members[c->why_member].header_offset + 30;
	if (c->why_member >= 0)
		why_offset = good->members[c->why_member].header_offset;
	if (size > b.size)
		size = b.size;
	copy = xmalloc(size ? size : 1);
	memcpy(copy, b.data, size);
	if (c->patch && CHECK(at + c->patch_size <= size))
		memcpy(copy + at, c->patch, c->patch_size);
	ar = archive_parse(c->file, copy, size, &why);
	CHECK(ar == NULL);
	expected = xasprintf(c->why, why_offset);
	EXPECT_STR(expected, why);
	free(expected);
	archive_free(ar);
	free(copy);
done:
	archive_free(good);
	free(why);
	free(b.data);
	unit_case(NULL);
}

/* An odd-sized last member may lack its pad byte. */
static void test_no_last_pad(void)
{
	struct bytes b = load("odd-last.a");
	struct archive *ar;
	char *why = NULL;

	unit_case("odd-last.a without its last byte, the pad");
	CHECK(b.size > 0 && b.data[b.size - 1] == '\n' && b.data[b.size - 2] == '\n');
	ar = archive_parse("odd-last.a", b.data, b.size - 1, &why);
	if (CHECK(ar != NULL) && EXPECT_INT(2, ar->member_count)) {
		EXPECT_INT(5, ar->members[1].size);
		CHECK(!memcmp(ar->members[1].data, "note\n", 5));
	}
	archive_free(ar);
	free(why);
	free(b.data);
	unit_case(NULL);
}

/* A member name with no '/' after it (as other ar programs write
   names): the blanks after it are not part of it. */
static void test_name_without_slash(void)
{
	struct bytes b = load("lib.a");
	struct archive *ar;
	char *why = NULL, *names;

	unit_case("lib.a with a.o's name written \"a.o\" and 13 blanks");
	if (CHECK(b.size > 106 + 16 && !memcmp(b.data + 106, "a.o/            ", 16))) {
		memcpy(b.data + 106, "a.o             ", 16);
		ar = archive_parse("lib.a", b.data, b.size, &why);
		if (CHECK(ar != NULL)) {
			names = member_names(ar);
			EXPECT_STR("a.o b.o", names);
			free(names);
		}
		archive_free(ar);
	}
	free(why);
	free(b.data);
	unit_case(NULL);
}

/* Whatever came of data, size: an archive whose every member and symbol
   lies inside the bytes, or an error. */
static bool parse_is_sane(const unsigned char *data, size_t size)
{
	char *why = (char *)"unset";
	struct archive *ar = archive_parse("x.a", data, size, &why);
	bool ok = true;
	size_t i;

	if (!ar) {
		ok = why && !strncmp(why, "cannot read archive: ", 21);
		free(why);
		return ok;
	}
	ok = why == NULL;
	for (i = 0; i < ar->member_count; i++) {
		const struct archive_member *m = &ar->members[i];

		if (!ar->thin && (m->data < data || m->size > (size_t)(data + size - m->data)))
			ok = false;
	}
	for (i = 0; i < ar->symbol_count; i++) {
		const char *name = ar->symbols[i].name;

		if (ar->symbols[i].member >= ar->member_count || name < (const char *)data ||
		    name >= (const char *)data + size || !memchr(name, '\0', (const char *)data + size - name))
			ok = false;
	}
	archive_free(ar);
	return ok;
}

static void test_every_prefix_and_byte(const char *file)
{
	static const unsigned char values[] = { 0, ' ', '0', '9', '/', '\n', '`', 0xff };
	struct bytes b = load(file);
	size_t n, at, v, bad = 0;
	char *name = xasprintf("%s: every prefix, and every byte of the first 512 changed", file);

	unit_case(name);
	for (n = 0; n <= b.size; n++) {
		unsigned char *copy = xmalloc(n ? n : 1);

		memcpy(copy, b.data, n);
		if (!parse_is_sane(copy, n) && bad++ < 5)
			fprintf(stderr, "  the first %zu bytes give no sane answer\n", n);
		free(copy);
	}
	for (at = 0; at < b.size && at < 512; at++)
		for (v = 0; v < sizeof(values); v++) {
			unsigned char *copy = xmalloc(b.size);

			memcpy(copy, b.data, b.size);
			copy[at] = values[v];
			if (!parse_is_sane(copy, b.size) && bad++ < 5)
				fprintf(stderr, "  byte %zu set to %u gives no sane answer\n", at, values[v]);
			free(copy);
		}
	EXPECT_INT(0, bad);
	free(name);
	free(b.data);
	unit_case(NULL);
}

/* elfobj_open on every prefix of an object: it opens whole, and every
   shorter prefix is refused with a message (gcc puts the section header
   table last: every prefix lacks some of it). */
static void test_elf_prefixes(void)
{
	struct bytes b = load("b.o");
	struct elf_object obj;
	size_t n, opened = 0, bad = 0;
	char *why;

	unit_case("elfobj_open on every prefix of b.o");
	for (n = 0; n <= b.size; n++) {
		unsigned char *copy = xmalloc(n ? n : 1);

		memcpy(copy, b.data, n);
		why = NULL;
		if (elfobj_open(&obj, "b.o", copy, n, &why) == 0) {
			opened++;
			if (n < b.size && bad++ < 5)
				fprintf(stderr, "  the first %zu bytes of %zu opened\n", n, b.size);
			if (n == b.size) {
				uint32_t alpha = elfobj_symbol_by_name(&obj, "alpha"), beta = elfobj_symbol_by_name(&obj, "beta");

				if (CHECK(alpha > 0 && beta > 0)) {
					EXPECT_INT(SHN_UNDEF, obj.symbols[alpha].shndx);
					CHECK(obj.symbols[beta].shndx != SHN_UNDEF);
				}
			}
			elfobj_close(&obj);
		} else if (!why && bad++ < 5) {
			fprintf(stderr, "  the first %zu bytes: refused with no message\n", n);
		}
		free(why);
		free(copy);
	}
	EXPECT_INT(0, bad);
	EXPECT_INT(1, opened);

	unit_case("elfobj_open on a member that is no object");
	{
		char text[] = "note\n";

		why = NULL;
		EXPECT_INT(-1, elfobj_open(&obj, "note.txt", text, 5, &why));
		EXPECT_STR("not an ELF file", why);
		free(why);
	}
	free(b.data);
	unit_case(NULL);
}

/* b.o with one field of its ELF header or of a section header changed. */
enum elf_field { E_MACHINE, E_TYPE, E_SHOFF, E_SHENTSIZE, TEXT_OFFSET, SYMTAB_LINK };

static const struct {
	const char *name;
	enum elf_field field;
	uint64_t value; /* UINT64_MAX: the file's size */
	const char *why;
} elf_broken_cases[] = {
#if defined(__x86_64__)
	{ "an object for aarch64", E_MACHINE, EM_AARCH64,
	  "wrong target: ELF file for aarch64 (64-bit), not for this 64-bit x86-64 link" },
	{ "an object for machine 9999", E_MACHINE, 9999,
	  "wrong target: ELF file for machine 9999 (64-bit), not for this 64-bit x86-64 link" },
#endif
	{ "an executable", E_TYPE, ET_EXEC, "cannot link: it is an executable, not an object or shared library" },
	{ "a core file", E_TYPE, ET_CORE, "cannot link: not a relocatable object or shared library" },
	{ "the section header table at the end of the file", E_SHOFF, UINT64_MAX,
	  "cannot read ELF: the section header table extends past the end of the file (truncated?)" },
	{ "no section header table", E_SHOFF, 0, "cannot read ELF: no section header table" },
	{ "section headers of 10 bytes", E_SHENTSIZE, 10,
	  "cannot read ELF: the section header table extends past the end of the file (truncated?)" },
	{ ".text at the end of the file", TEXT_OFFSET, UINT64_MAX,
	  "cannot read ELF: section '.text' extends past the end of the file (truncated?)" },
	{ "the symbol table's strings in section 999", SYMTAB_LINK, 999,
	  "cannot read ELF: the symbol table links to a missing string table" },
};

static void test_elf_broken(void)
{
	struct bytes b = load("b.o");
	size_t i;

	for (i = 0; i < sizeof(elf_broken_cases) / sizeof(elf_broken_cases[0]); i++) {
		unsigned char *copy = xmalloc(b.size);
		uint64_t value = elf_broken_cases[i].value == UINT64_MAX ? b.size : elf_broken_cases[i].value;
		struct elf_object obj;
		Elf64_Ehdr eh;
		Elf64_Shdr sh;
		char *why = NULL;
		uint16_t k;

		unit_case(elf_broken_cases[i].name);
		memcpy(copy, b.data, b.size);
		if (!CHECK(b.size >= sizeof(eh) && copy[EI_CLASS] == ELFCLASS64)) {
			free(copy);
			continue;
		}
		memcpy(&eh, copy, sizeof(eh));
		switch (elf_broken_cases[i].field) {
		case E_MACHINE: eh.e_machine = value; break;
		case E_TYPE: eh.e_type = value; break;
		case E_SHOFF: eh.e_shoff = value; break;
		case E_SHENTSIZE: eh.e_shentsize = value; break;
		case TEXT_OFFSET:
		case SYMTAB_LINK:
			for (k = 1; k < eh.e_shnum; k++) {
				unsigned char *at = copy + eh.e_shoff + (size_t)k * eh.e_shentsize;

				memcpy(&sh, at, sizeof(sh));
				if (elf_broken_cases[i].field == TEXT_OFFSET && sh.sh_type == SHT_PROGBITS &&
				    (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size) {
					sh.sh_offset = value;
					memcpy(at, &sh, sizeof(sh));
					break;
				}
				if (elf_broken_cases[i].field == SYMTAB_LINK && sh.sh_type == SHT_SYMTAB) {
					sh.sh_link = value;
					memcpy(at, &sh, sizeof(sh));
					break;
				}
			}
			CHECK(k < eh.e_shnum);
			break;
		}
		memcpy(copy, &eh, sizeof(eh));
		EXPECT_INT(-1, elfobj_open(&obj, "b.o", copy, b.size, &why));
		EXPECT_STR(elf_broken_cases[i].why, why);
		free(why);
		free(copy);
	}
	free(b.data);
	unit_case(NULL);
}

static const struct {
	const char *bytes;
	size_t size;
	bool is;
} magic_cases[] = {
	{ "!<arch>\n", 8, true },
	{ "!<thin>\n", 8, true },
	{ "!<arch>\nmore", 12, true },
	{ "!<arch>", 7, false },
	{ "!<ARCH>\n", 8, false },
	{ "\177ELF\2\1\1\0", 8, false },
	{ "", 0, false },
};

static void test_magic_and_paths(void)
{
	struct archive ar = { 0 };
	struct archive_member m = { 0 };
	char *path;
	size_t i;

	unit_case("archive_is");
	for (i = 0; i < sizeof(magic_cases) / sizeof(magic_cases[0]); i++)
		EXPECT_INT(magic_cases[i].is, archive_is(magic_cases[i].bytes, magic_cases[i].size));

	unit_case("archive_member_path");
	ar.path = (char *)"dir/sub/x.a";
	m.name = (char *)"a.o";
	path = archive_member_path(&ar, &m);
	EXPECT_STR("dir/sub/a.o", path);
	free(path);
	ar.path = (char *)"x.a";
	path = archive_member_path(&ar, &m);
	EXPECT_STR("a.o", path);
	free(path);
	ar.path = (char *)"/abs/x.a";
	m.name = (char *)"sub/c.o";
	path = archive_member_path(&ar, &m);
	EXPECT_STR("/abs/sub/c.o", path);
	free(path);
	ar.path = (char *)"dir/x.a";
	m.name = (char *)"/elsewhere/c.o";
	path = archive_member_path(&ar, &m);
	EXPECT_STR("/elsewhere/c.o", path);
	free(path);
	archive_free(NULL);
	unit_case(NULL);
}

int main(void)
{
	bool sym64;
	size_t i;
	int status;

	test_magic_and_paths();
	folder = unit_folder("test-archive");
	if (!folder)
		return 1;
	if (!shell("command -v gcc && command -v ar")) {
		printf("test-archive: skipped: needs gcc and ar\n");
		rmdir(folder);
		free(folder);
		return UNIT_SKIP;
	}
	if (!shell(fixture_commands)) {
		fprintf(stderr, "test-archive: cannot make the archives in %s\n", folder);
		return 1;
	}
	sym64 = shell(sym64_command) && shell("head -c 16 s64.a | grep -q '/SYM64/'");
	if (!sym64)
		printf("test-archive: no llvm-ar writes a /SYM64/ index here: that archive is not checked\n");
	for (i = 0; i < sizeof(good_cases) / sizeof(good_cases[0]); i++)
		if (sym64 || strcmp(good_cases[i].file, "s64.a"))
			check_good(&good_cases[i]);
	test_layout();
	test_no_last_pad();
	test_name_without_slash();
	for (i = 0; i < sizeof(broken_cases) / sizeof(broken_cases[0]); i++)
		if (sym64 || strcmp(broken_cases[i].file, "s64.a"))
			check_broken(&broken_cases[i]);
	test_every_prefix_and_byte("lib.a");
	test_every_prefix_and_byte("thin.a");
	test_every_prefix_and_byte("long.a");
	if (sym64)
		test_every_prefix_and_byte("s64.a");
	test_elf_prefixes();
	test_elf_broken();
	status = unit_end("test-archive");
	if (status == 0) {
		char *command = xasprintf("rm -rf '%s'", folder);

		if (system(command) != 0)
			fprintf(stderr, "test-archive: cannot remove %s\n", folder);
		free(command);
	} else {
		fprintf(stderr, "test-archive: kept %s\n", folder);
	}
	free(folder);
	return status;
}
