/* symbolize: addresses of a traced process turned into (object, section,
   symbol) through libdwfl: each object opened once and checked against the
   build-id the trace recorded; its symbols come from its own symbol table,
   or for a stripped file from its separate debug file (found by build-id
   or .gnu_debuglink along a debuginfo path, when one is given), or from
   .dynsym. */
#ifndef LINKOPT_SYMBOLIZE_H
#define LINKOPT_SYMBOLIZE_H

#include "elfobj.h"

#include <stdint.h>

struct image;
struct symbolizer;

/* A new, empty cache of opened images.  debuginfo_path is libdwfl's: folders
   separated by ':' where debug files are looked for (under .build-id/ in
   the absolute ones, as in /usr/lib/debug); NULL: no separate debug files. */
struct symbolizer *symbolizer_new(const char *debuginfo_path);

/* The image at path, opened once; if build_id is not NULL or "none", the
   file's build-id must equal it.  NULL with *why set (newly allocated). */
struct image *symbolizer_image(struct symbolizer *s, const char *path, const char *build_id, char **why);

/* The function symbol whose entry is vaddr (an address of the file), or NULL;
   among aliases, a global one.  It lives as long as the symbolizer. */
const struct elf_symbol *image_function_at(const struct image *image, uint64_t vaddr);

/* The function symbol whose body holds vaddr, or NULL. */
const struct elf_symbol *image_function_containing(const struct image *image, uint64_t vaddr);

/* The name of the section holding sym (a symbol of image), or "?". */
const char *image_section_of(const struct image *image, const struct elf_symbol *sym);

#endif
