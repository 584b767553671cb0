/* symbolize: addresses of a traced process turned into (object, section,
   symbol) through the objects' own symbol tables, each object opened once
   and checked against the build-id the trace recorded. */
#ifndef LINKOPT_SYMBOLIZE_H
#define LINKOPT_SYMBOLIZE_H

#include "elfobj.h"

#include <stdbool.h>
#include <stdint.h>

struct image {
	char *path;
	struct elf_object elf;   /* its functions: elfobj_function_at (section 0) */
	char *failure;            /* why it could not be opened, or NULL */
};

struct symbolizer;

/* A new, empty cache of opened images. */
struct symbolizer *symbolizer_new(void);

/* The image at path, opened once; if build_id is not NULL or "none", the
   file's build-id must equal it.  NULL with *why set (newly allocated). */
struct image *symbolizer_image(struct symbolizer *s, const char *path, const char *build_id, char **why);

/* The name of the section holding sym, or "?". */
const char *image_section_of(const struct image *image, const struct elf_symbol *sym);

#endif
