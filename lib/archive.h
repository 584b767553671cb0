/* archive: a reader for GNU ar archives, regular and thin, with their symbol
   index ("/" and "/SYM64/") and long-name table ("//").  Every length and
   offset read from the file is checked; a bad archive gives an error string,
   never a crash. */
#ifndef LINKOPT_ARCHIVE_H
#define LINKOPT_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

struct archive_member {
	char *name;            /* name as stored; for thin archives a path */
	uint64_t header_offset; /* file offset of the member header: its identity */
	const unsigned char *data; /* contents, or NULL in a thin archive */
	size_t size;
};

struct archive_symbol {
	const char *name;   /* points into the archive's mapping */
	size_t member;      /* index into members */
};

struct archive {
	char *path;
	bool thin;
	bool has_index;
	struct archive_member *members;
	size_t member_count;
	struct archive_symbol *symbols; /* index order, as ld scans it */
	size_t symbol_count;
};

/* True if the bytes start with an ar magic string (regular or thin). */
bool archive_is(const void *data, size_t size);

/* Parses an archive held in data (which must outlive the result).  Returns
   NULL and sets *why to a newly allocated message on a malformed archive. */
struct archive *archive_parse(const char *path, const unsigned char *data, size_t size, char **why);

/* Path of a thin archive's member, resolved against the archive's folder. */
char *archive_member_path(const struct archive *ar, const struct archive_member *m);

/* Frees what archive_parse allocated. */
void archive_free(struct archive *ar);

#endif
