#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Paths differ between a build and a profile run (absolute, relative); the
   file name, the line and the expression without blanks do not.  Sites of
   one key are told apart by their paths' tails. */
static char *site_key(const struct site *s, bool with_expression)
{
	char *expression = xstrdup(s->expression), *key;

	squeeze_blanks(expression);
	key = with_expression ? xasprintf("%s:%u:%s", base_name(s->file), s->line, expression)
			      : xasprintf("%s:%u", base_name(s->file), s->line);
	free(expression);
	return key;
}

/* The sites of one key. */
struct bucket {
	struct site **sites;
	size_t count, capacity;
};

static void add_to(struct strmap *map, char *key, struct site *s)
{
	void **slot = strmap_slot(map, key);
	struct bucket *b = *slot;

	if (!b)
		*slot = b = xcalloc(1, sizeof(*b));
	else
		free(key);
	*ARRAY_PUSH(b->sites, b->count, b->capacity) = s;
}

static void free_buckets(struct strmap *map)
{
	size_t i;

	for (i = 0; i < map->capacity; i++) {
		struct bucket *b = map->slots[i].value;

		if (!map->slots[i].key)
			continue;
		free(b->sites);
		free(b);
		free((char *)map->slots[i].key);
	}
	strmap_free(map);
}

static void index_table(struct site_table *table, struct strmap *full, struct strmap *by_line)
{
	size_t i;

	for (i = 0; i < table->count; i++) {
		struct site *s = table->sites[i];

		add_to(full, site_key(s, true), s);
		add_to(by_line, site_key(s, false), s);
	}
}

/* The site of bucket (unpaired, NULL: none) whose path is the left site
   l's, or the longest tail of it; NULL when two are as good (which one is
   l cannot be told). */
static struct site *best_match(const struct site *l, const struct bucket *bucket)
{
	struct site *best = NULL;
	int best_tail = -1;
	bool tie = false;
	size_t i;

	for (i = 0; bucket && i < bucket->count; i++) {
		struct site *r = bucket->sites[i];
		int tail = r->paired ? -1 : path_shared_tail(l->file, r->file);

		if (tail < 0)
			continue;
		if (tail > best_tail) {
			best = r;
			best_tail = tail;
			tie = false;
		} else if (tail == best_tail) {
			tie = true;
		}
	}
	return tie ? NULL : best;
}

static void print_counts(const struct site *s)
{
	if (!s)
		printf(" %10s %10s", "-", "-");
	else if (s->reason)
		printf(" %10s %10s", "?", "?");
	else
		printf(" %10llu %10llu", s->correct, s->incorrect);
}

static int by_location(const void *pa, const void *pb)
{
	const struct site *a = *(struct site *const *)pa, *b = *(struct site *const *)pb;
	int c = strcmp(base_name(a->file), base_name(b->file));

	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return strcmp(a->expression, b->expression);
}

size_t compare_print(struct site_table *left, struct site_table *right)
{
	struct strmap full = { 0 }, by_line = { 0 };
	size_t i, same = 0, differ = 0, unmatched = 0, one_side = 0;
	struct site **order = xcalloc(left->count + 1, sizeof(*order));

	index_table(right, &full, &by_line);
	if (left->count)
		memcpy(order, left->sites, left->count * sizeof(*order));
	qsort(order, left->count, sizeof(*order), by_location);
	printf("   %21s   %21s\n", "left", "right");
	printf("    correct  incorrect    correct  incorrect  verdict    function file:line  expression\n");
	for (i = 0; i < left->count; i++) {
		struct site *l = order[i], *r;
		char *key = site_key(l, true), *line_key = site_key(l, false);
		const char *verdict;

		r = best_match(l, strmap_get(&full, key));
		if (!r) {
			/* the expression spelled otherwise: the one site of its line */
			const struct bucket *line = strmap_get(&by_line, line_key);

			if (line && line->count == 1)
				r = best_match(l, line);
		}
		if (r)
			r->paired = true;
		if (!r) {
			verdict = "left only";
			one_side++;
		} else if (l->reason || r->reason) {
			verdict = "unmatched";
			unmatched++;
		} else if (l->correct == r->correct && l->incorrect == r->incorrect) {
			verdict = "same";
			same++;
		} else {
			verdict = "DIFFER";
			differ++;
		}
		print_counts(l);
		print_counts(r);
		printf("  %-9s  %s %s:%u  %s", verdict, l->function, l->file, l->line, l->expression);
		if (l->reason || (r && r->reason))
			printf(" [%s]", l->reason ? l->reason : r->reason);
		putchar('\n');
		free(key);
		free(line_key);
	}
	for (i = 0; i < right->count; i++) {
		struct site *r = right->sites[i];

		if (r->paired)
			continue;
		one_side++;
		print_counts(NULL);
		print_counts(r);
		printf("  %-9s  %s %s:%u  %s\n", "right only", r->function, r->file, r->line,
		       r->expression);
	}
	printf("\n%zu same, %zu differ, %zu unmatched, %zu on one side only\n", same, differ,
	       unmatched, one_side);
	free(order);
	free_buckets(&full);
	free_buckets(&by_line);
	return differ;
}
