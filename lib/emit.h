/* emit: an order in the forms linkers read: a complete GNU ld linker script
   (the linker's own default script with the ordered input sections at the
   head of their output sections), gold's --section-ordering-file, lld's and
   mold's --symbol-ordering-file, and lld's --call-graph-ordering-file. */
#ifndef LINKSCRIPTS_EMIT_H
#define LINKSCRIPTS_EMIT_H

#include "ordering.h"

#include <stdbool.h>

/* The input section of linkopt-prefetch.o's code, which the GNU ld script
   places on a page of its own before the code (or, when the default
   script has no page-aligned .init, inside the traced range). */
#define EMIT_PREFETCH_SECTION ".text.linkopt_prefetch"
/* linkopt-cut.o's (the cut alone, for a link BOLT rewrites), which the
   script places inside the traced range, so that BOLT keeps it hot. */
#define EMIT_CUT_SECTION ".text.linkopt_cut"

/* The output section the GNU ld script puts an input section of this name
   in when an order names it (.text, .rodata, .data.rel.ro, .data or .bss);
   NULL for one the script does not order. */
const char *emit_output_section(const char *name);

/* True if the default script of the linker, for the options of this
   link, lets a GNU ld script put the traced .rodata as rodata says
   (ORDERING_RODATA_APART: a .rodata statement before its data segment,
   an ldata-segment point after it; ORDERING_RODATA_BEFORE_CODE: also a
   page-aligned .init statement, and a rodata-segment point after the
   code). */
bool emit_can_place_rodata(char **ld_argv, const char *ld_program, enum ordering_rodata rodata);

enum emit_format { EMIT_LIST, EMIT_GOLD, EMIT_LLD, EMIT_GNU_LD, EMIT_CALL_GRAPH };

/* Prints order to stdout in the given form (EMIT_LIST: its units); its
   provenance goes in a leading comment where the form has one.
   ld_argv (NULL-terminated, may be NULL) is the linker command of the link,
   for the options that choose its default script.  Returns 0, or EXIT_INPUT
   (EXIT_USAGE: whole units for gold) after reporting why. */
int emit_order(const struct ordering *order, enum emit_format format, char **ld_argv, const char *ld_program);

#endif
