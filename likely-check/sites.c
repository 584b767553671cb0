#include "sites.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *path_normalize(const char *path)
{
	char *out = xmalloc(strlen(path) + 1), *o = out;
	const char *p = path;

	while (*p) {
		const char *end = strchr(p, '/');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len == 1 && p[0] == '.' && o != out) {
			/* "./" inside a path says nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.' && o > out &&
			   !(o - out >= 3 && strncmp(o - 3, "../", 3) == 0 &&
			     (o - out == 3 || o[-4] == '/'))) {
			char *slash;

			o[-1] = '\0';
			slash = strrchr(out, '/');
			o = slash ? slash + 1 : out;
		} else {
			memcpy(o, p, len);
			o += len;
			if (end)
				*o++ = '/';
		}
		p += len + (end ? 1 : 0);
	}
	*o = '\0';
	return out;
}

struct site *site_table_get(struct site_table *table, const char *raw_file, unsigned int line,
			    const char *function, const char *expression, long expect)
{
	char *file = path_normalize(raw_file);
	char *key = xasprintf("%s\t%u\t%s\t%s\t%ld", file, line, function, expression, expect);
	void **slot = strmap_slot(&table->by_key, key);
	struct site *site;

	if (*slot) {
		free(key);
		free(file);
		return *slot;
	}
	site = xcalloc(1, sizeof(*site));
	site->file = file;
	site->line = line;
	site->function = xstrdup(function);
	site->expression = xstrdup(expression);
	site->expect = expect;
	*slot = site;
	*ARRAY_PUSH(table->sites, table->count, table->capacity) = site;
	return site;
}

void squeeze_blanks(char *s)
{
	char *d = s;

	for (; *s; s++)
		if (*s != ' ' && *s != '\t')
			*d++ = *s;
	*d = '\0';
}

/* Splits "a\tb\tc..." into at most max fields; returns how many. */
static int split_tabs(char *s, char **fields, int max)
{
	int n = 0;

	while (n < max) {
		fields[n++] = s;
		s = strchr(s, '\t');
		if (!s)
			break;
		*s++ = '\0';
	}
	return n;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void site_table_note_macro(struct site_table *table, const char *file, unsigned int line,
			   const char *macro)
{
	char *key = xasprintf("%s:%u", base_name(file), line);
	void **slot = strmap_slot(&table->macro_at, key);
	struct macro_note *note;

	if (*slot) {
		free(key);
		return;
	}
	*slot = xstrdup(macro);
	note = ARRAY_PUSH(table->macros, table->macro_count, table->macro_capacity);
	note->file = xstrdup(file);
	note->line = line;
	note->macro = *slot;
}

void site_table_attach_macros(struct site_table *table)
{
	size_t i;

	for (i = 0; i < table->count && table->macro_count; i++) {
		struct site *s = table->sites[i];
		char *key;

		if (s->macro)
			continue;
		key = xasprintf("%s:%u", base_name(s->file), s->line);
		s->macro = strmap_get(&table->macro_at, key);
		free(key);
	}
}

/* Adds a "site" line's counts to table; false when it is not one. */
static bool read_site(struct site_table *table, char *line)
{
	unsigned long long correct, incorrect, constant;
	unsigned int site_line;
	long expect;
	int used = 0;
	char *fields[3];
	struct site *site;

	if (strncmp(line, "site ", 5) != 0 ||
	    sscanf(line + 5, "%llu %llu %llu %ld %u\t%n", &correct, &incorrect, &constant,
		   &expect, &site_line, &used) != 5 || used == 0 ||
	    split_tabs(line + 5 + used, fields, 3) != 3)
		return false;
	site = site_table_get(table, fields[0], site_line, fields[1], fields[2], expect);
	site->correct += correct;
	site->incorrect += incorrect;
	site->constant += constant;
	site->counted = true;
	return true;
}

/* Adds an "unmatched" line's site and reason to table; false when it is
   not one. */
static bool read_unmatched(struct site_table *table, char *line)
{
	unsigned int site_line;
	long expect;
	int used = 0;
	char *fields[4];
	struct site *site;

	if (strncmp(line, "unmatched ", 10) != 0 ||
	    sscanf(line + 10, "%ld %u\t%n", &expect, &site_line, &used) != 2 || used == 0 ||
	    split_tabs(line + 10 + used, fields, 4) != 4)
		return false;
	site = site_table_get(table, fields[0], site_line, fields[1], fields[2], expect);
	if (!site->reason)
		site->reason = xstrdup(fields[3]);
	return true;
}

/* Notes a "macro" line's macro in table; false when it is not one. */
static bool read_macro(struct site_table *table, char *line)
{
	unsigned int site_line;
	int used = 0;
	char *fields[2];

	if (strncmp(line, "macro ", 6) != 0 ||
	    sscanf(line + 6, "%u\t%n", &site_line, &used) != 1 || used == 0 ||
	    split_tabs(line + 6 + used, fields, 2) != 2)
		return false;
	site_table_note_macro(table, fields[0], site_line, fields[1]);
	return true;
}

/* Adds one line after the first of a data file to table; false when the
   line is malformed. */
static bool read_record(struct site_table *table, char *line)
{
	if (strncmp(line, "module ", 7) == 0 || line[0] == '\0')
		return true;
	if (strcmp(line, "source profile") == 0) {
		table->profile = true;
		return true;
	}
	return read_site(table, line) || read_unmatched(table, line) || read_macro(table, line);
}

int site_table_read(struct site_table *table, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int status = 0;

	if (!f) {
		error("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (lineno == 1 && strcmp(line, "likely-check 1") != 0) {
			error("%s: not a likely-check data file (first line '%.40s')", path, line);
			status = -1;
			break;
		}
		if (lineno > 1 && !read_record(table, line)) {
			error("%s:%lu: malformed line", path, lineno);
			status = -1;
			break;
		}
	}
	if (lineno == 0) {
		error("%s: empty file", path);
		status = -1;
	}
	if (ferror(f)) {
		error("%s: read failed: %s", path, strerror(errno));
		status = -1;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	if (status == 0)
		table->files_read++;
	return status;
}

void site_table_write(const struct site_table *table, FILE *out)
{
	size_t i;

	fputs("likely-check 1\n", out);
	if (table->profile)
		fputs("source profile\n", out);
	for (i = 0; i < table->macro_count; i++)
		fprintf(out, "macro %u\t%s\t%s\n", table->macros[i].line, table->macros[i].file,
			table->macros[i].macro);
	for (i = 0; i < table->count; i++) {
		const struct site *s = table->sites[i];

		if (s->reason)
			fprintf(out, "unmatched %ld %u\t%s\t%s\t%s\t%s\n", s->expect, s->line,
				s->file, s->function, s->expression, s->reason);
		else
			fprintf(out, "site %llu %llu %llu %ld %u\t%s\t%s\t%s\n", s->correct,
				s->incorrect, s->constant, s->expect, s->line, s->file,
				s->function, s->expression);
	}
}
