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
	return !strpbrk(*name, " =(");
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
	if (map->output_count == 0)
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
};

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
	uint64_t address;

	if (sscanf(line, "%511s", r->output) != 1)
		r->output[0] = '\0';
	r->loaded = true;
	r->address_next = sscanf(line + strlen(r->output), " 0x%" SCNx64, &address) != 1;
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
		r->file_section = r->last_section = add(r->map, name, r->output, address, size, file);
	}
}

int ldmap_read(const char *path, struct ldmap *map, char **why)
{
	FILE *f = fopen(path, "r");
	struct reader r = { .map = map, .loaded = true };
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	bool in_map = false;

	memset(map, 0, sizeof(*map));
	*why = NULL;
	if (!f) {
		*why = xasprintf("cannot open: %s", strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		bool file_open = r.file_open;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		r.file_open = false;
		if (r.open_output) {
			output_statement(&r, line);
		} else if (in_map && file_open && line[0] && line[0] != ' ') {
			continue_file_name(&r, line);
			r.file_open = true;
		} else if (!strncmp(line, "Linker script and memory map", 28)) {
			in_map = true;
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
	free(line);
	free(r.pending);
	free(r.open_output);
	fclose(f);
	if (!in_map) {
		*why = xstrdup("not a GNU ld map file (no 'Linker script and memory map')");
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
