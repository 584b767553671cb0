/* util: messages, checked allocation, a string-keyed hash table. */
#ifndef LINKOPT_UTIL_H
#define LINKOPT_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "output.h"

#ifndef LINKOPT_VERSION
#error "LINKOPT_VERSION comes from the Makefile (the file VERSION)"
#endif

/* Exit statuses shared by every tool. */
enum {
	EXIT_OK = 0,
	EXIT_INPUT = 1, /* a finding, or a failure on input */
	EXIT_USAGE = 2,
};

/* Name used as the prefix of every message; set once from main. */
extern const char *progname;

/* Prints "prog: msg" to stderr and exits with EXIT_INPUT. */
void fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Prints "prog: msg" to stderr. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "prog: warning: msg" to stderr. */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that never returns NULL: dies with a message instead. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a newly allocated formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *array (of *capacity elements of size elem) to hold at least need. */
void grow_array(void *array, size_t *capacity, size_t need, size_t elem);
#define ARRAY_PUSH(arr, len, cap) \
	(grow_array(&(arr), &(cap), (len) + 1, sizeof(*(arr))), &(arr)[(len)++])

/* qsort's comparison of two uint64_t. */
int u64_compare(const void *a, const void *b);
/* Sorts values[0..n) and removes repeats, in place; returns how many are
   left. */
size_t u64_sort_unique(uint64_t *values, size_t n);

/* FNV-1a hash of a NUL-terminated string. */
uint64_t hash_string(const char *s);

/* A string-keyed hash table of pointers; keys are not copied. */
struct strmap {
	struct strmap_slot { const char *key; void *value; uint64_t hash; } *slots;
	size_t count, capacity;
};
/* Returns the value for key, or NULL. */
void *strmap_get(const struct strmap *map, const char *key);
/* Returns the address of key's value slot, inserting a NULL value if absent. */
void **strmap_slot(struct strmap *map, const char *key);
/* Frees the table, not the keys or values. */
void strmap_free(struct strmap *map);

/* Maps a whole regular, non-empty file privately (writable, nothing reaches
   the file); returns 0, or -1 with *why set to a newly allocated message. */
int map_file(const char *path, void **map, size_t *size, char **why);

/* The process's file mode creation mask, left as it is. */
mode_t file_creation_mask(void);

/* Prints s to stdout as a JSON string, quotes and escapes included; a
   byte that is not part of valid UTF-8 (a path of another encoding) is
   written as \u00XX, the character of that value, so that the output is
   always valid JSON. */
void json_print_string(const char *s);

/* json_print_string to f. */
void json_fprint_string(FILE *f, const char *s);

/* Prints the first members every JSON document of the toolkit opens with:
   "format": name, "format_version": version, and a comma. */
void json_print_format(const char *name, int version);

/* json_print_format to f. */
void json_fprint_format(FILE *f, const char *name, int version);

/* Flushes stdout and dies if anything written to it failed (removing the
   temporary of stdout_to_temporary). */
void stdout_close_or_die(void);

#endif
