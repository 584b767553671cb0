/* compiles: what a build's compiler commands wrote, from the log the
   compiler wrapper (pgo-cc) keeps: the objects, the programs and shared
   libraries linked, and the archives those links read that the build
   made; and, for an object, the names gcc gives its notes and profile
   files. */
#ifndef PGO_COMPILES_H
#define PGO_COMPILES_H

#include <stdbool.h>
#include <stddef.h>

enum output_kind {
	OUTPUT_OBJECT,  /* a compile's object (-c) */
	OUTPUT_LINKED,  /* a link's program or shared library */
	OUTPUT_ARCHIVE, /* an archive a link read, written since the build began */
};

struct compile_output {
	char *path;   /* absolute: the command's folder joined with name */
	char *dir;    /* the folder the command ran in */
	char *name;   /* the file as the command named it */
	enum output_kind kind;
};

struct compiles {
	struct compile_output *outputs; /* each file once, in the order written */
	size_t count;
	size_t commands;                /* compiler commands in the log */
	char **sources;                 /* absolute paths of the sources compiled, each once */
	size_t nsources;
};

/* Reads the log at path (a missing log holds no command) into c; archives
   count when modified at or after since (seconds since the epoch).
   Returns 0, or -1 with *why set to a new message naming the log when it
   cannot be read or is not a log pgo-cc wrote; compiles_free is safe
   either way. */
int compiles_read(const char *path, long since, struct compiles *c, char **why);

/* Frees what compiles_read allocated. */
void compiles_free(struct compiles *c);

/* The notes file (.gcno) gcc writes beside the object o; a new string. */
char *compiles_notes_path(const struct compile_output *o);

/* The name gcc gives the profile file of the object o when
   -fprofile-prefix-path is prefix (the folder, '/' as '#', ".." as '^',
   no suffix); a new string. */
char *compiles_profile_name(const struct compile_output *o, const char *prefix);

/* The inverse for a profile file found under the profile folder at
   relative path rel (suffix included): the notes file gcc wrote for it
   when the prefix was prefix; a new string. */
char *compiles_notes_of_profile(const char *rel, const char *prefix);

/* path relative to the folder base ("../lib/x.o" when it lies beside it;
   both absolute); a new string. */
char *compiles_relative(const char *path, const char *base);

#endif
