/* emit: an order in the forms linkers read: a complete GNU ld linker script
   (the linker's own default script with the ordered input sections at the
   head of their output sections), gold's --section-ordering-file, and
   lld's and mold's --symbol-ordering-file. */
#ifndef LINKSCRIPTS_EMIT_H
#define LINKSCRIPTS_EMIT_H

#include "../deporder/linkmodel.h"

/* Prints order (count units; section 0: the whole unit; the first hot of
   them traced) to stdout in the given form; provenance goes in a leading
   comment where the form has one.
   ld_argv (NULL-terminated, may be NULL) is the linker command of the link,
   for the options that choose its default script.  Returns 0, or EXIT_INPUT
   after reporting why. */
int emit_order(struct link *link, const struct unit_section *order, size_t count, size_t hot, enum emit_format format,
	       char **ld_argv, const char *ld_program, const char *provenance);

#endif
