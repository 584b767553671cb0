#include "sites.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* The key of a site in by_key: its identifying fields, file normalized. */
static char *site_key(const char *file, unsigned int line, const char *function,
		      const char *expression, long expect)
{
	return xasprintf("%s\t%u\t%s\t%s\t%ld", file, line, function, expression, expect);
}

struct site *site_table_get(struct site_table *table, const char *raw_file, unsigned int line,
			    const char *function, const char *expression, long expect)
{
	char *file = path_normalize(raw_file);
	char *key = site_key(file, line, function, expression, expect);
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

int path_shared_tail(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int components = 0;

	while (la > 0 && lb > 0) {
		size_t ea = la, eb = lb;

		while (la > 0 && a[la - 1] != '/')
			la--;
		while (lb > 0 && b[lb - 1] != '/')
			lb--;
		if (ea - la != eb - lb || strncmp(a + la, b + lb, ea - la) != 0)
			return -1;
		components++;
		if (la == 0 || lb == 0)
			return components;
		la--;
		lb--;
	}
	return components;
}

void site_table_note_macro(struct site_table *table, const char *file, unsigned int line,
			   const char *macro)
{
	char *normal = path_normalize(file), *key = xasprintf("%s:%u", normal, line);
	void **slot = strmap_slot(&table->macro_at, key);
	struct macro_note *note;

	if (*slot) {
		free(key);
		free(normal);
		return;
	}
	*slot = xstrdup(macro);
	note = ARRAY_PUSH(table->macros, table->macro_count, table->macro_capacity);
	note->file = normal;
	note->line = line;
	note->macro = *slot;
}

void site_table_attach_macros(struct site_table *table)
{
	struct strmap by_line = { 0 }; /* "name:line" -> the first note, + 1 */
	size_t i, j;

	for (i = 0; i < table->macro_count; i++) {
		char *key = xasprintf("%s:%u", base_name(table->macros[i].file), table->macros[i].line);
		void **slot = strmap_slot(&by_line, key);

		if (*slot)
			free(key);
		else
			*slot = (void *)(i + 1);
	}
	for (i = 0; i < table->count && table->macro_count; i++) {
		struct site *s = table->sites[i];
		char *key = xasprintf("%s:%u", base_name(s->file), s->line);
		size_t first = (size_t)strmap_get(&by_line, key);
		const struct macro_note *best = NULL;
		int best_tail = -1;
		bool tie = false;

		free(key);
		for (j = first ? first - 1 : table->macro_count; j < table->macro_count; j++) {
			const struct macro_note *n = &table->macros[j];
			int tail;

			if (n->line != s->line ||
			    strcmp(base_name(n->file), base_name(s->file)) != 0)
				continue;
			tail = path_shared_tail(n->file, s->file);
			if (tail > best_tail) {
				best = n;
				best_tail = tail;
				tie = false;
			} else if (tail == best_tail && tail >= 0 && strcmp(n->macro, best->macro) != 0) {
				tie = true;
			}
		}
		if (!s->macro && best && !tie)
			s->macro = best->macro;
	}
	for (i = 0; i < by_line.capacity; i++)
		free((char *)by_line.slots[i].key);
	strmap_free(&by_line);
}

int site_add_counts(struct site_table *table, struct site *site, unsigned long long correct,
		    unsigned long long incorrect, unsigned long long constant)
{
	unsigned long long runs, total, constant_sum;

	if (__builtin_add_overflow(correct, incorrect, &runs) ||
	    __builtin_add_overflow(table->total, runs, &total) ||
	    __builtin_add_overflow(site->constant, constant, &constant_sum))
		return -1;
	site->correct += correct;
	site->incorrect += incorrect;
	site->constant = constant_sum;
	site->counted = true;
	table->total = total;
	return 0;
}

/* Why counts cannot be taken: no run counts 2^64 times. */
#define COUNT_OVERFLOW "counts overflow 64 bits when summed"
#define CORRUPT "(no run counts that often: the data is corrupt)"

/* Reads the count at *p: decimal digits, no sign; moves *p past it.
   Returns NULL, or a new string saying what is wrong. */
static char *read_count(char **p, unsigned long long *value)
{
	char *start = *p, *end;
	int len = (int)strcspn(start, " \t");

	if (len > 40)
		len = 40;
	if (*start == '-')
		return xasprintf("negative count '%.*s'", len, start);
	if (!isdigit((unsigned char)*start))
		return xstrdup("malformed line");
	errno = 0;
	*value = strtoull(start, &end, 10);
	if (errno == ERANGE)
		return xasprintf("count '%.*s' above 2^64 - 1", len, start);
	*p = end;
	return NULL;
}

/* Reads the integer at *p (a sign allowed when is_signed) into *value, at
   most max in size; moves *p past it; false when there is none. */
static bool read_integer(char **p, bool is_signed, long long max, long long *value)
{
	char *end;

	if (!isdigit((unsigned char)**p) && !(is_signed && **p == '-' && isdigit((unsigned char)(*p)[1])))
		return false;
	errno = 0;
	*value = strtoll(*p, &end, 10);
	if (errno == ERANGE || *value > max || *value < -max - 1)
		return false;
	*p = end;
	return true;
}

/* Skips the blanks at *p; false when there are none. */
static bool skip_blanks(char **p)
{
	char *start = *p;

	while (**p == ' ')
		(*p)++;
	return *p != start;
}

/* Adds a "site" line's counts to table.  Returns NULL, or a new string
   saying what is wrong with it. */
static char *read_site(struct site_table *table, char *line)
{
	unsigned long long counts[3];
	long long expect, site_line;
	char *p = line + 5, *fields[3], *why;
	struct site *site;
	int i;

	for (i = 0; i < 3; i++) {
		why = read_count(&p, &counts[i]);
		if (why)
			return why;
		if (!skip_blanks(&p))
			return xstrdup("malformed line");
	}
	if (!read_integer(&p, true, LONG_MAX, &expect) || !skip_blanks(&p) ||
	    !read_integer(&p, false, UINT_MAX, &site_line) || *p++ != '\t' ||
	    split_tabs(p, fields, 3) != 3)
		return xstrdup("malformed line");
	site = site_table_get(table, fields[0], (unsigned int)site_line, fields[1], fields[2], expect);
	if (site_add_counts(table, site, counts[0], counts[1], counts[2]) < 0)
		return xstrdup(COUNT_OVERFLOW " " CORRUPT);
	return NULL;
}

/* Adds an "unmatched" line's site and reason to table; false when it is
   not one. */
static bool read_unmatched(struct site_table *table, char *line)
{
	long long expect, site_line;
	char *p = line + 10, *fields[4];
	struct site *site;

	if (strncmp(line, "unmatched ", 10) != 0 || !read_integer(&p, true, LONG_MAX, &expect) ||
	    !skip_blanks(&p) || !read_integer(&p, false, UINT_MAX, &site_line) || *p++ != '\t' ||
	    split_tabs(p, fields, 4) != 4)
		return false;
	site = site_table_get(table, fields[0], (unsigned int)site_line, fields[1], fields[2], expect);
	if (!site->reason)
		site->reason = xstrdup(fields[3]);
	return true;
}

/* Notes a "macro" line's macro in table; false when it is not one. */
static bool read_macro(struct site_table *table, char *line)
{
	long long site_line;
	char *p = line + 6, *fields[2];

	if (strncmp(line, "macro ", 6) != 0 || !read_integer(&p, false, UINT_MAX, &site_line) ||
	    *p++ != '\t' || split_tabs(p, fields, 2) != 2)
		return false;
	site_table_note_macro(table, fields[0], (unsigned int)site_line, fields[1]);
	return true;
}

/* Adds one line after the first of a data file to table.  Returns NULL,
   or a new string saying what is wrong with the line. */
static char *read_record(struct site_table *table, char *line)
{
	if (strncmp(line, "module ", 7) == 0) {
		table->counting = true;
		return NULL;
	}
	if (line[0] == '\0')
		return NULL;
	if (strcmp(line, "source profile") == 0) {
		table->profile = true;
		return NULL;
	}
	if (strncmp(line, "site ", 5) == 0)
		return read_site(table, line);
	if (read_unmatched(table, line) || read_macro(table, line))
		return NULL;
	return xstrdup("malformed line");
}

void site_table_free(struct site_table *table)
{
	size_t i;

	for (i = 0; i < table->count; i++) {
		struct site *s = table->sites[i];

		free(s->file);
		free(s->function);
		free(s->expression);
		free(s->reason);
		free(s);
	}
	free(table->sites);
	for (i = 0; i < table->by_key.capacity; i++)
		free((char *)table->by_key.slots[i].key);
	strmap_free(&table->by_key);
	for (i = 0; i < table->macro_count; i++) {
		free(table->macros[i].file);
		free(table->macros[i].macro);
	}
	free(table->macros);
	for (i = 0; i < table->read_count; i++)
		free(table->read[i].name);
	free(table->read);
	free(table->first_counting);
	free(table->first_profile);
	for (i = 0; i < table->macro_at.capacity; i++)
		free((char *)table->macro_at.slots[i].key);
	strmap_free(&table->macro_at);
	memset(table, 0, sizeof(*table));
}

/* Adds the sites, counts and macros of from (one file's) to table; false,
   with nothing added, when a sum would overflow. */
static bool merge_file(struct site_table *table, const struct site_table *from)
{
	unsigned long long total;
	size_t i;

	if (__builtin_add_overflow(table->total, from->total, &total))
		return false;
	for (i = 0; i < from->count; i++) {
		const struct site *s = from->sites[i];
		char *key = site_key(s->file, s->line, s->function, s->expression, s->expect);
		const struct site *old = strmap_get(&table->by_key, key);
		unsigned long long sum;

		free(key);
		if (old && __builtin_add_overflow(old->constant, s->constant, &sum))
			return false;
	}
	for (i = 0; i < from->count; i++) {
		const struct site *s = from->sites[i];
		struct site *t = site_table_get(table, s->file, s->line, s->function, s->expression,
						s->expect);

		t->correct += s->correct;
		t->incorrect += s->incorrect;
		t->constant += s->constant;
		t->counted |= s->counted;
		if (!t->reason && s->reason)
			t->reason = xstrdup(s->reason);
	}
	for (i = 0; i < from->macro_count; i++)
		site_table_note_macro(table, from->macros[i].file, from->macros[i].line,
				      from->macros[i].macro);
	table->total = total;
	table->profile |= from->profile;
	table->counting |= from->counting;
	return true;
}

/* False after saying why when the file at path (open as f) was read into
   table before, under this name or another. */
static bool first_reading(struct site_table *table, const char *path, FILE *f)
{
	struct stat st;
	struct read_file *r;
	size_t i;

	if (fstat(fileno(f), &st) < 0)
		return true;
	for (i = 0; i < table->read_count; i++)
		if (table->read[i].device == st.st_dev && table->read[i].inode == st.st_ino &&
		    S_ISREG(st.st_mode)) {
			error("%s: given twice (it is %s, read already): its counts would be added twice",
			      path, table->read[i].name);
			return false;
		}
	r = ARRAY_PUSH(table->read, table->read_count, table->read_capacity);
	r->device = st.st_dev;
	r->inode = st.st_ino;
	r->name = xstrdup(path);
	return true;
}

/* False after saying why when file (read from path) holds data of the
   other mode than the files read into table before: counting-mode and
   profile-mode data of one program count the same runs twice. */
static bool same_mode(struct site_table *table, const struct site_table *file, const char *path)
{
	if (file->profile && file->counting) {
		error("%s: holds counting-mode data (module lines) and profile-mode data: the same runs "
		      "would be counted twice", path);
		return false;
	}
	if (file->profile && table->first_counting) {
		error("%s: profile-mode data beside counting-mode data (%s): the same runs would be "
		      "counted twice (compare them instead)", path, table->first_counting);
		return false;
	}
	if (file->counting && table->first_profile) {
		error("%s: counting-mode data beside profile-mode data (%s): the same runs would be "
		      "counted twice (compare them instead)", path, table->first_profile);
		return false;
	}
	if (file->profile && !table->first_profile)
		table->first_profile = xstrdup(path);
	if (file->counting && !table->first_counting)
		table->first_counting = xstrdup(path);
	return true;
}

int site_table_read(struct site_table *table, const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	struct site_table file = { 0 };
	char *line = NULL, *why;
	size_t cap = 0;
	ssize_t len;
	unsigned long lineno = 0;
	int status = 0;

	if (!f) {
		error("%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (!first_reading(table, path, f)) {
		if (f != stdin)
			fclose(f);
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
		if (lineno > 1 && (why = read_record(&file, line))) {
			error("%s:%lu: %s", path, lineno, why);
			free(why);
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
	if (status == 0 && !same_mode(table, &file, path)) {
		status = -1;
	} else if (status == 0 && !merge_file(table, &file)) {
		error("%s: " COUNT_OVERFLOW " with the earlier files' " CORRUPT, path);
		status = -1;
	}
	site_table_free(&file);
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
