/* linkcmd: a compiler driver's command line as a build runs it (gcc or
   cc, and their options): whether it links a program or shared library,
   compiles, or does neither, and what it writes. */
#ifndef LINKOPT_LINKCMD_H
#define LINKOPT_LINKCMD_H

#include <stdbool.h>

enum linkcmd_kind {
	LINKCMD_OTHER,   /* preprocesses, asks for the version, links nothing one could order */
	LINKCMD_COMPILE, /* compiles sources (-c, -S, or sources with or without objects) */
	LINKCMD_LINK,    /* links objects, archives or response files into -o OUTPUT */
};

/* What argv (the compiler, then its arguments; NULL-terminated) does: a
   link when it names an output (-o) and links only objects, archives,
   libraries and response files (no -c, -S, -E, -M, -MM, -r and no source
   file: configure's and meson's compile-and-link checks are compiles). */
enum linkcmd_kind linkcmd_classify(char *const *argv);

/* True when argv compiles and links in one command, as gcc -o prog
   main.cc lib.a does: no -c, -S, -E, -M, -MM, -r, an output (-o), a
   source and an object, archive or library besides.  Not with -x, a
   source read from stdin or a response file (what they hold cannot be
   told apart safely). */
bool linkcmd_compiles_and_links(char *const *argv);

/* The compile of the source index (0-based, among argv's sources) of a
   command linkcmd_compiles_and_links accepted, into object: argv without
   its other operands, its output and its link-only options (-l, -L, -Wl,
   -Xlinker, -shared, -static, -rdynamic, -no-pie, -T, -u, -z, -s,
   -nostdlib, -nostartfiles, -nodefaultlibs, -fuse-ld=), then extra
   (NULL-terminated, may be NULL), "-c SOURCE -o OBJECT".  A new vector of
   argv's strings and new ones (free the vector alone). */
char **linkcmd_compile_part(char *const *argv, int index, const char *object, char *const *extra);

/* The link of such a command: argv with its sources replaced, in place,
   by objects[0], objects[1]... (one per source, in order).  A new vector
   of argv's and objects' strings (free the vector alone). */
char **linkcmd_link_part(char *const *argv, char *const *objects);

/* The sources of such a command, in order (a new vector of argv's
   strings, NULL-terminated; free the vector alone). */
char **linkcmd_sources(char *const *argv);

/* The output argv names (-o FILE or -oFILE), or NULL. */
const char *linkcmd_output(char *const *argv);

/* A copy of argv (a new vector of argv's strings) with the output replaced
   by output (-o FILE and -oFILE alike) and extra (NULL-terminated, may be
   NULL) appended; output NULL keeps argv's. */
char **linkcmd_rewrite(char *const *argv, const char *output, char *const *extra);

/* The operands of argv (the compiler, then its arguments): the words that
   are neither options nor the value of an option that takes the next word
   (-o's output, -L's folder...), in order, with each response file
   (@FILE) that can be read replaced by the words it holds, as gcc reads
   them; a new vector of new strings, NULL-terminated (linkcmd_free).
   NULL with *why set (new) when response files nest past 32 deep. */
char **linkcmd_operands(char *const *argv, char **why);

/* argv (NULL-terminated) with each @FILE that can be read replaced by its
   words (quotes and backslashes as gcc takes them), recursively; an @FILE
   that cannot be read stays a word, as gcc keeps it.  A new vector of new
   strings (linkcmd_free); NULL with *why set past 32 files deep. */
char **linkcmd_expand(char *const *argv, char **why);

/* The words of the response file at path, as gcc splits them (a new
   vector of *count new strings); false when it cannot be read. */
bool linkcmd_read_response_file(const char *path, char ***out, int *count);

/* Frees a vector linkcmd_expand or linkcmd_operands returned (NULL too). */
void linkcmd_free(char **v);

/* The number of strings of the NULL-terminated vector v. */
int linkcmd_count(char *const *v);

#endif
