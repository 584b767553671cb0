/* sites: the table of hint sites read from counting and profile data. */
#ifndef LIKELY_CHECK_SITES_H
#define LIKELY_CHECK_SITES_H

#include "util.h"

#include <stdio.h>
#include <sys/types.h>

struct site {
	char *file, *function, *expression;
	char *reason;   /* profile mode: why the site has no counts, or NULL */
	char *macro;    /* the project macro the hint was expanded from, or NULL */
	long expect;
	unsigned int line;
	unsigned long long correct, incorrect, constant;
	bool counted;   /* some input counted it (ran or not) */
	bool paired;    /* compare: matched to a site of the other side */
};

struct site_table {
	struct site **sites;
	size_t count, capacity;
	struct strmap by_key;
	struct macro_note { char *file, *macro; unsigned int line; } *macros;
	size_t macro_count, macro_capacity;
	struct strmap macro_at;  /* "file:line" -> macro, the file normalized */
	size_t files_read;
	bool profile;  /* some input came from profile mode */
	bool counting; /* some input came from counting mode (has module lines) */
	/* the files read, to refuse one given twice, and the first of each mode */
	struct read_file { dev_t device; ino_t inode; char *name; } *read;
	size_t read_count, read_capacity;
	char *first_counting, *first_profile;
	/* correct + incorrect over every site: kept below 2^64, so that no sum
	   of a site's, a macro's or all counts wraps */
	unsigned long long total;
};

/* Returns the site with these identifying fields, adding a zeroed one. */
struct site *site_table_get(struct site_table *table, const char *file, unsigned int line,
			    const char *function, const char *expression, long expect);

/* Adds counts to site (of table) and marks it counted; -1, with nothing
   added, when a sum would pass 2^64 - 1 (no run counts that often). */
int site_add_counts(struct site_table *table, struct site *site, unsigned long long correct,
		    unsigned long long incorrect, unsigned long long constant);

/* Adds the counts of one data file (counting or profile mode) to the
   table, all or nothing; returns 0, or -1 after printing "file:line: what"
   of the line that makes the file unusable (a malformed line, a negative
   count, counts that overflow), or why the file cannot join the table: it
   is one read before (its counts would be added twice), or of the other
   mode than those before (the same runs counted twice). */
int site_table_read(struct site_table *table, const char *path);

/* Records that the hint sites at file:line come from the project macro
   described by macro ("NAME (where defined)"). */
void site_table_note_macro(struct site_table *table, const char *file, unsigned int line,
			   const char *macro);

/* Gives each site the macro noted for its file and line, if any: a note's
   file spelled otherwise (absolute, relative) is the site's when one is the
   other's tail and no other note of that line is as close. */
void site_table_attach_macros(struct site_table *table);

/* Frees every site, macro note and key of table and zeroes it. */
void site_table_free(struct site_table *table);

/* Writes the table in the data-file format (profile mode's output). */
void site_table_write(const struct site_table *table, FILE *out);

/* Returns path with "dir/.." and "./" parts removed, without asking the
   file system (a build's and a profile's spellings of one header agree). */
char *path_normalize(const char *path);

/* How many trailing components the paths a and b share, or -1 when
   neither is the other's tail (lib/a/util.h and lib/b/util.h are two
   files; /src/lib/lz4.c and lib/lz4.c may be one). */
int path_shared_tail(const char *a, const char *b);

/* Removes every blank from s in place (to compare expression spellings). */
void squeeze_blanks(char *s);

#endif
