#define _GNU_SOURCE /* memrchr */
#include "ldmap.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_address(const void *a, const void *b)
{
	const struct ldmap_section *x = a, *y = b;

	return x->address < y->address ? -1 : x->address > y->address;
}

/* Reads "0xADDR 0xSIZE FILE" from s; false if s is not that. */
static bool address_size_file(const char *s, uint64_t *address, uint64_t *size, const char **file)
{
	int used = 0;

	if (sscanf(s, " 0x%" SCNx64 " 0x%" SCNx64 " %n", address, size, &used) != 2 || !used || !s[used])
		return false;
	*file = s + used;
	return true;
}

/* Adds an input section; returns 1 + its index, or 0 for one of size 0
   (left out). */
static size_t add(struct ldmap *map, const char *name, const char *output, uint64_t address, uint64_t size,
		  const char *file)
{
	struct ldmap_section *s;
	size_t len = strlen(file);

	if (!size)
		return 0;
	while (len && isspace((unsigned char)file[len - 1]))
		len--;
	s = ARRAY_PUSH(map->sections, map->count, map->capacity);
	s->file = xstrndup(file, len);
	s->name = xstrdup(name);
	s->output = xstrdup(output);
	s->address = address;
	s->size = size;
	s->symbol_first = s->symbol_count = 0;
	return map->count;
}

/* A symbol line: "                0xADDR                NAME" (an
   assignment, "0x... PROVIDE (x = .)" or "x = .", has blanks in it). */
static bool symbol_line(const char *line, uint64_t *address, const char **name)
{
	int used = 0;

	if (strncmp(line, "                0x", 18))
		return false;
	if (sscanf(line, " 0x%" SCNx64 " %n", address, &used) != 1 || !used || !line[used])
		return false;
	*name = line + used;
	/* gold writes the address and size of its "** merge strings" on the
	   next line: "0x..." is no symbol's name */
	return !strpbrk(*name, " =(") && strncmp(*name, "0x", 2);
}

/* "OUTPUT(NAME FORMAT)": the link's output, whose NAME may hold blanks
   and newlines (ld writes it as it is; the format name has neither). */
static void output_line(struct ldmap *map, const char *text)
{
	const char *start = text + 7, *close = strrchr(start, ')');
	size_t len = close ? (size_t)(close - start) : strlen(start);
	const char *blank = memrchr(start, ' ', len);

	if (blank)
		len = blank - start;
	*ARRAY_PUSH(map->outputs, map->output_count, map->output_capacity) = xstrndup(start, len);
}

/* Why a complete read is not one link's map, or NULL. */
static char *not_one_link(const struct ldmap *map)
{
	size_t i;

	if (map->map_headers > 1 || map->output_count > 1) {
		char *names = xstrdup(""), *why;

		for (i = 0; i < map->output_count; i++) {
			char *more = xasprintf("%s%s%s", names, i ? ", " : "", map->outputs[i]);

			free(names);
			names = more;
		}
		why = xasprintf("holds %zu links (outputs: %s): several links wrote one -Map file (a parallel "
				"build?); give each output its own map, e.g. -Wl,-Map=$@.map",
				map->map_headers > map->output_count ? map->map_headers : map->output_count, names);
		free(names);
		return why;
	}
	if (map->output_count == 0 && map->format == LDMAP_GNU_LD)
		return xstrdup("cut short: no OUTPUT(...) line, which ld writes at the end of a map");
	return NULL;
}

/* Where the reading of the memory map stands between lines. */
struct reader {
	struct ldmap *map;
	char output[512];          /* the output section the input sections go to */
	bool loaded;               /* it is loaded (not .debug_*, .comment) */
	bool address_next;         /* its name was alone on its line */
	char *pending;             /* an input section name alone on its line */
	bool file_open;            /* the last line ended with an input file's name */
	size_t file_section;       /* 1 + the index of the section it is of, or 0 */
	size_t last_section;       /* 1 + the index of the output section's last input section, or 0 */
	char *open_output;         /* an OUTPUT( statement whose ')' has not come yet */
	uint64_t output_address, output_size; /* the output section's */
	size_t output_inputs;      /* input sections the map lists in it */
};

/* The output section just read, if the map lists none of its inputs: the
   linker made its content (mold's .plt, .got, merged strings; gold's
   "** merge strings"), one section of file LDMAP_INTERNAL.  GNU ld files
   what it makes under an input, and its maps are read as they were. */
static void end_output(struct reader *r)
{
	if (r->map->format == LDMAP_GNU_LD || !r->loaded || r->output_inputs || r->output[0] != '.' ||
	    !strcmp(r->output, ".tbss"))
		return;
	add(r->map, r->output, r->output, r->output_address, r->output_size, LDMAP_INTERNAL);
}

/* ld writes a file name as it is, a newline in it too: a line that starts
   in the first column right after an input section's line (where ld
   writes no such line: an output section follows a blank line or a
   pattern line) is the rest of the file's name. */
static void continue_file_name(struct reader *r, const char *line)
{
	struct ldmap_section *s;
	char *joined;

	if (!r->file_section)
		return;
	s = &r->map->sections[r->file_section - 1];
	joined = xasprintf("%s\n%s", s->file, line);
	free(s->file);
	s->file = joined;
}

/* A line of an OUTPUT( statement (ld writes a newline in the name as it
   is): collects it until the closing ')'. */
static void output_statement(struct reader *r, const char *line)
{
	char *joined = r->open_output ? xasprintf("%s\n%s", r->open_output, line) : xstrdup(line);
	size_t len = strlen(joined);

	free(r->open_output);
	r->open_output = NULL;
	if (len && joined[len - 1] == ')') {
		output_line(r->map, joined);
		free(joined);
	} else {
		r->open_output = joined;
	}
}

/* An output section: ".text   0x... 0x..." or its name alone.  Sections
   at address 0 are not loaded: their inputs' addresses are offsets and
   would collide. */
static void output_section(struct reader *r, const char *line)
{
	uint64_t address, size = 0;
	int fields;

	end_output(r);
	if (sscanf(line, "%511s", r->output) != 1)
		r->output[0] = '\0';
	r->loaded = true;
	r->output_inputs = 0;
	fields = sscanf(line + strlen(r->output), " 0x%" SCNx64 " 0x%" SCNx64, &address, &size);
	r->address_next = fields < 1;
	r->output_address = fields >= 1 ? address : 0;
	r->output_size = size;
	if (!r->address_next)
		r->loaded = address != 0;
	free(r->pending);
	r->pending = NULL;
	r->last_section = 0;
}

/* A line inside an output section: its address (after a long name), a
   symbol, or an input section (" .text.foo 0xADDR 0xSIZE file", or its
   name alone when long); never "*(pattern)" or "*fill*". */
static void inside_output(struct reader *r, const char *line)
{
	uint64_t address, size;
	const char *file;
	char name[4096];

	if (r->address_next) {
		int used = 0;

		r->address_next = false;
		if (sscanf(line, " 0x%" SCNx64 " 0x%" SCNx64 " %n", &address, &size, &used) == 2 && !line[used]) {
			r->loaded = address != 0;
			r->output_address = address;
			r->output_size = size;
			return;
		}
	}
	if (!r->loaded)
		return;
	if (!r->pending && symbol_line(line, &address, &file)) {
		struct ldmap_symbol *sym = ARRAY_PUSH(r->map->symbols, r->map->symbol_count, r->map->symbol_capacity);

		sym->name = xstrdup(file);
		sym->address = address;
		if (r->last_section) {
			struct ldmap_section *s = &r->map->sections[r->last_section - 1];

			if (!s->symbol_count++)
				s->symbol_first = r->map->symbol_count - 1;
		}
		return;
	}
	if (r->pending) {
		bool taken = address_size_file(line, &address, &size, &file);

		if (taken) {
			r->file_open = true;
			r->output_inputs++;
			r->file_section = r->last_section = add(r->map, r->pending, r->output, address, size, file);
		}
		free(r->pending);
		r->pending = NULL;
		/* what was pending was a statement of the script ("file.o(.text.f)"
		   of a script naming input sections): the line is the section */
		if (!taken)
			inside_output(r, line);
		return;
	}
	if (line[0] != ' ' || line[1] == ' ' || line[1] == '*' || !line[1] || sscanf(line + 1, "%4095s", name) != 1)
		return;
	if (!line[1 + strlen(name)]) {
		r->pending = xstrdup(name);
	} else if (address_size_file(line + 1 + strlen(name), &address, &size, &file)) {
		r->file_open = true;
		r->output_inputs++;
		r->file_section = r->last_section = add(r->map, name, r->output, address, size, file);
	}
}

/* The columns of lld's and mold's table, from its header line: where
   each of VMA (lld's LMA, old lld's Address), Size, Align ends, and where
   an output section's name, an input section and a symbol start. */
struct table {
	int numbers;               /* leading number columns */
	bool size_hex[4];          /* which are written in hex */
	int out, in, symbol;       /* text columns */
};

/* Reads the header line of lld's or mold's table into t; false if it is
   not one. */
static bool table_header(const char *line, struct table *t, enum ldmap_format *format)
{
	char word[16];
	int at = 0, used, column = 0;

	memset(t, 0, sizeof(*t));
	t->out = t->in = t->symbol = -1;
	*format = LDMAP_MOLD;
	while (sscanf(line + at, " %15s%n", word, &used) == 1) {
		column = at + used - (int)strlen(word);
		at += used;
		if (!strcmp(word, "Out"))
			t->out = column;
		else if (!strcmp(word, "In"))
			t->in = column;
		else if (!strcmp(word, "Symbol"))
			t->symbol = column;
		else if (t->out >= 0 || t->numbers == 4)
			return false;
		else if (!strcmp(word, "VMA") || !strcmp(word, "LMA") || !strcmp(word, "Address"))
			t->size_hex[t->numbers++] = true;
		else if (!strcmp(word, "Size") || !strcmp(word, "Align"))
			t->size_hex[t->numbers++] = false;
		else
			return false;
		/* lld writes every column in hex but Align; mold its sizes in
		   decimal, with VMA alone before them */
		if (!strcmp(word, "LMA") || !strcmp(word, "Address"))
			*format = LDMAP_LLD;
	}
	if (t->out < 0 || t->in <= t->out || t->symbol <= t->in || t->numbers < 2)
		return false;
	if (*format == LDMAP_LLD)
		for (used = 0; used < t->numbers; used++)
			t->size_hex[used] = true;
	return true;
}

/* "FILE:(SECTION)" of lld's and mold's input section column: the last
   ":(" starts the section (a file name may hold one).  lld writes a piece
   of a section it splits (.eh_frame) as SECTION+0xOFFSET: the linker
   rewrote that content, it is filed as LDMAP_INTERNAL. */
static bool table_input(const char *text, char **file, char **name)
{
	const char *open = NULL, *p, *plus;
	size_t len = strlen(text);

	if (len < 4 || text[len - 1] != ')')
		return false;
	for (p = text; (p = strstr(p, ":(")); p++)
		open = p;
	if (!open || open == text)
		return false;
	*name = xstrndup(open + 2, text + len - 1 - (open + 2));
	if ((plus = strstr(*name, "+0x")) && plus != *name) {
		(*name)[plus - *name] = '\0';
		*file = xstrdup(LDMAP_INTERNAL);
	} else {
		*file = xstrndup(text, open - text);
	}
	return true;
}

/* One line of lld's or mold's table. */
static void table_line(struct reader *r, const struct table *t, const char *line)
{
	uint64_t value[4] = { 0 };
	const char *p = line, *text;
	char *end, *file, *name;
	int i, column;

	for (i = 0; i < t->numbers; i++) {
		while (*p == ' ')
			p++;
		if (!isxdigit((unsigned char)*p))
			return;
		errno = 0;
		value[i] = strtoull(p, &end, t->size_hex[i] ? 16 : 10);
		if (end == p || errno || (*end != ' ' && *end))
			return;
		p = end;
	}
	for (text = p; *text == ' '; text++)
		;
	if (!*text)
		return;
	column = text - line;
	if (column >= t->symbol) {
		struct ldmap_symbol *sym;

		if (!r->loaded || strpbrk(text, " ="))
			return;
		/* mold lists a function a library calls through its own PLT
		   at the PLT entry's address (the binary's "NAME$plt"), under
		   the section that defines it: not where the symbol is */
		if (r->last_section) {
			const struct ldmap_section *in = &r->map->sections[r->last_section - 1];

			if (value[0] < in->address || value[0] > in->address + in->size)
				return;
		}
		sym = ARRAY_PUSH(r->map->symbols, r->map->symbol_count, r->map->symbol_capacity);
		sym->name = xstrdup(text);
		sym->address = value[0];
		if (r->last_section) {
			struct ldmap_section *s = &r->map->sections[r->last_section - 1];

			if (!s->symbol_count++)
				s->symbol_first = r->map->symbol_count - 1;
		}
	} else if (column >= t->in) {
		/* also a script's assignments ("x = ."), which are no input */
		if (!r->loaded || !table_input(text, &file, &name))
			return;
		r->output_inputs++;
		r->last_section = add(r->map, name, r->output, value[0], value[t->numbers - 2], file);
		free(file);
		free(name);
	} else if (column >= t->out && !strchr(text, ' ')) {
		end_output(r);
		snprintf(r->output, sizeof(r->output), "%s", text);
		r->loaded = value[0] != 0;
		r->output_address = value[0];
		r->output_size = value[t->numbers - 2];
		r->output_inputs = 0;
		r->last_section = 0;
	}
}

int ldmap_read(const char *path, struct ldmap *map, char **why)
{
	FILE *f = fopen(path, "r");
	struct reader r = { .map = map, .loaded = true };
	struct table table, another;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool in_map = false, first = true, is_table = false;

	memset(map, 0, sizeof(*map));
	*why = NULL;
	if (!f) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		bool file_open = r.file_open;
		enum ldmap_format format;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (first && line[0] == ' ' && table_header(line, &table, &format)) {
			map->format = format;
			is_table = in_map = true;
			map->map_headers++;
			first = false;
			continue;
		}
		first = false;
		if (is_table) {
			if (table_header(line, &another, &format) && format == map->format)
				map->map_headers++;
			else
				table_line(&r, &table, line);
			continue;
		}
		r.file_open = false;
		if (r.open_output) {
			output_statement(&r, line);
		} else if (in_map && file_open && line[0] && line[0] != ' ') {
			continue_file_name(&r, line);
			r.file_open = true;
		} else if (!strncmp(line, "Linker script and memory map", 28)) {
			in_map = true;
			map->map_headers++;
		} else if (!strcmp(line, "Memory map")) {
			in_map = true;
			map->format = LDMAP_GOLD;
			map->map_headers++;
		} else if (!in_map) {
			continue;
		} else if (!strncmp(line, "OUTPUT(", 7)) {
			output_statement(&r, line);
		} else if (line[0] && line[0] != ' ') {
			output_section(&r, line);
		} else {
			inside_output(&r, line);
		}
	}
	if (in_map)
		end_output(&r);
	free(line);
	free(r.pending);
	free(r.open_output);
	fclose(f);
	if (!in_map) {
		*why = xstrdup("not a linker map file (no 'Linker script and memory map' of GNU ld, 'Memory map' "
			       "of gold, nor the table of lld or mold)");
		ldmap_free(map);
		return -1;
	}
	if ((*why = not_one_link(map))) {
		ldmap_free(map);
		return -1;
	}
	/* A map without a loaded input section has no array to sort: qsort
	   must not be given NULL, even for no elements. */
	if (map->count)
		qsort(map->sections, map->count, sizeof(*map->sections), by_address);
	return 0;
}

const char *ldmap_format_name(enum ldmap_format format)
{
	static const char *const names[] = { "GNU ld", "gold", "lld", "mold" };

	return names[format];
}

char *ldmap_normal_path(const char *path)
{
	char *out = xmalloc(strlen(path) + 1), *o = out;
	const char *p = path;
	size_t kept = 0; /* components written that a ".." may take out */

	if (*p == '/')
		*o++ = *p++;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* "//" or "/./": nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && kept) {
			o--; /* the '/' after the last component */
			while (o > out && o[-1] != '/')
				o--;
			kept--;
		} else if (n == 2 && p[0] == '.' && p[1] == '.' && o > out && out[0] == '/' && o == out + 1) {
			/* "/.." is "/" */
		} else {
			memcpy(o, p, n);
			o += n;
			*o++ = '/';
			if (!(n == 2 && p[0] == '.' && p[1] == '.'))
				kept++;
		}
		p += n;
		if (*p == '/')
			p++;
	}
	if (o > out + 1 && o[-1] == '/')
		o--;
	if (o == out)
		*o++ = '.';
	*o = '\0';
	return out;
}

const struct ldmap_section *ldmap_find(const struct ldmap *map, uint64_t address)
{
	size_t lo = 0, hi = map->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ldmap_section *s = &map->sections[mid];

		if (address < s->address)
			hi = mid;
		else if (address >= s->address + s->size)
			lo = mid + 1;
		else
			return s;
	}
	return NULL;
}

size_t ldmap_index_from(const struct ldmap *map, uint64_t address)
{
	size_t lo = 0, hi = map->count;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (map->sections[mid].address + map->sections[mid].size <= address)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void ldmap_free(struct ldmap *map)
{
	size_t i;

	for (i = 0; i < map->count; i++) {
		free(map->sections[i].file);
		free(map->sections[i].name);
		free(map->sections[i].output);
	}
	free(map->sections);
	for (i = 0; i < map->symbol_count; i++)
		free(map->symbols[i].name);
	free(map->symbols);
	for (i = 0; i < map->output_count; i++)
		free(map->outputs[i]);
	free(map->outputs);
	memset(map, 0, sizeof(*map));
}
