#define _GNU_SOURCE
#include "switches.h"
#include "archive.h"
#include "elfobj.h"
#include "files.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts lines and drops repeats. */
static void sort_unique(char **lines, size_t *n)
{
	size_t i, k = 0;

	if (*n == 0)
		return;
	qsort(lines, *n, sizeof(*lines), compare_strings);
	for (i = 0; i < *n; i++) {
		if (k && !strcmp(lines[k - 1], lines[i]))
			free(lines[i]);
		else
			lines[k++] = lines[i];
	}
	*n = k;
}

/* Sets *lines to the option lines the file at path records (one per
   compile that went into it); false when it cannot be read or records
   none. */
static bool recorded_lines(const char *path, char ***lines, size_t *n)
{
	void *map;
	size_t size, length, cap = 0, at;
	const void *contents;
	char *why;
	bool ok;

	*lines = NULL;
	*n = 0;
	if (map_file(path, &map, &size, &why) < 0) {
		free(why);
		return false;
	}
	ok = elfobj_find_section(map, size, ".GCC.command.line", &contents, &length, &why) == 0 && contents;
	free(why);
	for (at = 0; ok && at < length; at += strlen((const char *)contents + at) + 1) {
		const char *line = (const char *)contents + at;

		if (memchr(line, '\0', length - at) == NULL)
			break;
		if (*line)
			*ARRAY_PUSH(*lines, *n, cap) = xstrdup(line);
	}
	munmap(map, size);
	sort_unique(*lines, n);
	return *n > 0;
}

void switches_read(const struct compiles *c, const char *dir, struct switches *s)
{
	size_t i, cap = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < c->count; i++) {
		const struct compile_output *o = &c->outputs[i];
		struct switches_entry e = { 0 };

		if (o->kind == OUTPUT_ARCHIVE || !recorded_lines(o->path, &e.lines, &e.nlines))
			continue;
		e.key = compiles_relative(o->path, dir);
		*ARRAY_PUSH(s->items, s->count, cap) = e;
	}
}

void switches_free(struct switches *s)
{
	size_t i, k;

	for (i = 0; i < s->count; i++) {
		for (k = 0; k < s->items[i].nlines; k++)
			free(s->items[i].lines[k]);
		free(s->items[i].lines);
		free(s->items[i].key);
	}
	free(s->items);
	memset(s, 0, sizeof(*s));
}

int switches_save(const struct switches *s, const char *path, char **why)
{
	char *buf = NULL;
	size_t size = 0, i, k;
	FILE *f = open_memstream(&buf, &size);
	int status = -1;

	if (!f) {
		*why = xasprintf("%s: open_memstream failed: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "pgo-run options 1\n");
	for (i = 0; i < s->count; i++) {
		fprintf(f, "output %s\n", s->items[i].key);
		for (k = 0; k < s->items[i].nlines; k++)
			fprintf(f, "line %s\n", s->items[i].lines[k]);
	}
	if (fclose(f) != 0)
		*why = xasprintf("%s: fclose of its memory stream failed: %s", path, strerror(errno));
	else if (files_write(path, buf, size, false, why) == 0)
		status = 0;
	free(buf);
	return status;
}

int switches_load(const char *path, struct switches *s, char **why)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t linecap = 0, cap = 0, cap_lines = 0;
	ssize_t n;
	int status = 0;

	memset(s, 0, sizeof(*s));
	if (!f) {
		*why = xasprintf("%s: fopen failed: %s", path, strerror(errno));
		return -1;
	}
	while ((n = getline(&line, &linecap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!strncmp(line, "output ", 7)) {
			*ARRAY_PUSH(s->items, s->count, cap) = (struct switches_entry){ .key = xstrdup(line + 7) };
			cap_lines = 0;
		} else if (!strncmp(line, "line ", 5) && s->count) {
			struct switches_entry *e = &s->items[s->count - 1];

			*ARRAY_PUSH(e->lines, e->nlines, cap_lines) = xstrdup(line + 5);
		}
	}
	if (ferror(f)) {
		*why = xasprintf("%s: read failed: %s", path, strerror(errno));
		switches_free(s);
		status = -1;
	}
	free(line);
	fclose(f);
	return status;
}

/* True for an option pgo-run itself adds to the builds. */
static bool profile_flag(const char *word, size_t n)
{
	static const char *const prefixes[] = {
		"-fprofile-generate", "-fprofile-use", "-fprofile-update=", "-fprofile-prefix-path=",
		"-ftest-coverage", "-Wno-error=backend-plugin", NULL,
	};
	size_t i;

	for (i = 0; prefixes[i]; i++) {
		size_t len = strlen(prefixes[i]);

		if (n >= len && !strncmp(word, prefixes[i], len) &&
		    (n == len || prefixes[i][len - 1] == '=' || word[len] == '='))
			return true;
	}
	return false;
}

/* The words of the lines, each a new string, with the folder from replaced
   by to (NULL: as they are); profile flags left out unless keep is set. */
static void words_of(const struct switches_entry *e, const char *from, const char *to, bool keep,
		     char ***words, size_t *n)
{
	size_t i, cap = 0;

	*words = NULL;
	*n = 0;
	for (i = 0; i < e->nlines; i++) {
		const char *p = e->lines[i];

		while (*p) {
			size_t len = strcspn(p, " ");
			char *word = xstrndup(p, len), *at;

			/* clang's "-mllvm -pgo-warn-missing-function" (the optimized
			   build's) is one flag in two words */
			if (!keep && !strcmp(word, "-mllvm") && !strncmp(p + len, " -pgo-warn-missing-function", 27) &&
			    (p[len + 27] == ' ' || p[len + 27] == '\0')) {
				free(word);
				p += len + 27;
				p += strspn(p, " ");
				continue;
			}

			if (from && (at = strstr(word, from))) {
				char *moved = xasprintf("%.*s%s%s", (int)(at - word), word, to, at + strlen(from));

				free(word);
				word = moved;
			}
			if (keep || !profile_flag(word, len))
				*ARRAY_PUSH(*words, *n, cap) = word;
			else
				free(word);
			p += len;
			p += strspn(p, " ");
		}
	}
}

/* The option lines of e without the profile flags, as one string per line
   in a sorted list without repeats, with from replaced by to. */
static void normal_lines(const struct switches_entry *e, const char *from, const char *to, char ***lines,
			 size_t *n)
{
	size_t i, k, cap = 0;

	*lines = NULL;
	*n = 0;
	for (i = 0; i < e->nlines; i++) {
		struct switches_entry one = { .lines = &e->lines[i], .nlines = 1 };
		char **words, *line = NULL;
		size_t nwords, len = 0;
		FILE *f = open_memstream(&line, &len);

		words_of(&one, from, to, false, &words, &nwords);
		for (k = 0; k < nwords; k++) {
			fprintf(f, "%s%s", k ? " " : "", words[k]);
			free(words[k]);
		}
		free(words);
		fclose(f);
		*ARRAY_PUSH(*lines, *n, cap) = line;
	}
	sort_unique(*lines, n);
}

static void free_list(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static bool same_lines(char **a, size_t na, char **b, size_t nb)
{
	size_t i;

	if (na != nb)
		return false;
	for (i = 0; i < na; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* The words of a that b lacks (each word of b matching one of a), joined
   by blanks and shown as in shown (a's words as recorded, one for each);
   a new string, "no other option" when there is none. */
static char *only_in(char **a, char **shown, size_t na, char **b, size_t nb)
{
	bool *used = xcalloc(nb + 1, sizeof(bool));
	char *text = NULL;
	size_t len = 0, i, k;
	FILE *f = open_memstream(&text, &len);
	bool any = false;

	for (i = 0; i < na; i++) {
		for (k = 0; k < nb; k++)
			if (!used[k] && !strcmp(a[i], b[k]))
				break;
		if (k < nb) {
			used[k] = true;
			continue;
		}
		fprintf(f, "%s%s", any ? " " : "", shown[i]);
		any = true;
	}
	if (!any)
		fprintf(f, "no other option");
	fclose(f);
	free(used);
	return text;
}

/* Prints how e (of the build called name) differs from p, the plain
   build's record of the same output: the options only one of them used,
   the profile flags shown with the build's own. */
static void print_difference(const struct switches_entry *e, const char *name, const char *from,
			     const char *to, const struct switches_entry *p)
{
	char **bw, **pw, **shown, *mine, *theirs;
	size_t nb, np, ns;
	bool reordered;

	words_of(e, from, to, false, &bw, &nb);
	words_of(p, NULL, NULL, false, &pw, &np);
	mine = only_in(bw, bw, nb, pw, np);
	theirs = only_in(pw, pw, np, bw, nb);
	reordered = !strcmp(mine, "no other option") && !strcmp(theirs, "no other option");
	free(mine);
	free(theirs);
	free_list(bw, nb);
	free_list(pw, np);
	if (reordered) {
		error("%s: built with '%s' where the plain build used '%s': the %s reordered the project's flags",
		      e->key, e->lines[0], p->lines[0], name);
		return;
	}
	/* matched in the plain build's folder, shown as recorded */
	words_of(e, from, to, true, &bw, &nb);
	words_of(e, NULL, NULL, true, &shown, &ns);
	words_of(p, NULL, NULL, true, &pw, &np);
	mine = only_in(bw, shown, nb, pw, np);
	theirs = only_in(pw, pw, np, bw, nb);
	error("%s: built with %s where the plain build used %s: the %s replaced the project's flags", e->key,
	      mine, theirs, name);
	free(mine);
	free(theirs);
	free_list(bw, nb);
	free_list(shown, ns);
	free_list(pw, np);
}

static const struct switches_entry *find(const struct switches *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		if (!strcmp(s->items[i].key, key))
			return &s->items[i];
	return NULL;
}

size_t switches_compare(const struct switches *build, const char *name, const char *dir,
			const struct switches *plain, const char *plain_dir, size_t *compared)
{
	enum { SHOWN = 5 };
	const char *from = strcmp(dir, plain_dir) != 0 ? dir : NULL;
	size_t i, differ = 0;

	*compared = 0;
	for (i = 0; i < build->count; i++) {
		const struct switches_entry *e = &build->items[i], *p = find(plain, e->key);
		char **a, **b;
		size_t na, nb;
		bool same;

		if (!p)
			continue;
		(*compared)++;
		normal_lines(e, from, plain_dir, &a, &na);
		normal_lines(p, NULL, NULL, &b, &nb);
		same = same_lines(a, na, b, nb);
		free_list(a, na);
		free_list(b, nb);
		if (same)
			continue;
		if (differ < SHOWN)
			print_difference(e, name, from, plain_dir, p);
		differ++;
	}
	if (differ > SHOWN)
		error("and %zu more output%s of the %s", differ - SHOWN, differ - SHOWN == 1 ? "" : "s", name);
	return differ;
}

/* True when the option line (one compile) optimizes: its last -O option,
   if any, is not -O0. */
static bool line_optimizes(const char *line)
{
	bool optimizes = false;
	const char *w = line;

	while (*w) {
		size_t n = strcspn(w, " ");

		if (n >= 2 && w[0] == '-' && w[1] == 'O')
			optimizes = !(n == 3 && w[2] == '0');
		w += n;
		w += strspn(w, " ");
	}
	return optimizes;
}

size_t switches_unoptimized(const struct switches *s, const char **names, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < s->count; i++) {
		const struct switches_entry *e = &s->items[i];

		for (j = 0; j < e->nlines && !line_optimizes(e->lines[j]); j++)
			;
		if (j < e->nlines)
			continue;
		if (n < max)
			names[n] = e->key;
		n++;
	}
	return n;
}

/* True when the ELF file in data records -fprofile-generate. */
static bool records_generate(const void *data, size_t size)
{
	const void *contents;
	size_t length, at;
	char *why = NULL;
	bool found = false;

	if (elfobj_find_section(data, size, ".GCC.command.line", &contents, &length, &why) == 0 && contents)
		for (at = 0; !found && at < length; at += strnlen((const char *)contents + at, length - at) + 1)
			found = memmem((const char *)contents + at, strnlen((const char *)contents + at, length - at),
				       "-fprofile-generate", 18) != NULL;
	free(why);
	return found;
}

bool switches_instrumented(const char *path)
{
	void *map;
	size_t size, i;
	char *why;
	struct archive *ar;
	bool instrumented = false;

	if (map_file(path, &map, &size, &why) < 0) {
		free(why);
		return false;
	}
	if (!archive_is(map, size)) {
		instrumented = records_generate(map, size);
	} else if ((ar = archive_parse(path, map, size, &why))) {
		/* an archive holds an instrumented build when a member does: one
		   made again since from plain objects is the project's */
		for (i = 0; i < ar->member_count && !instrumented; i++) {
			const struct archive_member *m = &ar->members[i];

			if (m->data) {
				instrumented = records_generate(m->data, m->size);
			} else if (ar->thin) {
				char *member = archive_member_path(ar, m);

				instrumented = switches_instrumented(member);
				free(member);
			}
		}
		archive_free(ar);
	} else {
		free(why);
	}
	munmap(map, size);
	return instrumented;
}
